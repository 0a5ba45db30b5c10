package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/sim"
)

// The transactional rows measure Elle-style checking of list-append
// histories like Jepsen's: the history is written to a JSON Lines file
// once, and each child process reads it (timed) and checks it for strict
// serializability (timed), so the row gives both figures, the processor
// time of each, and the child's peak memory.

// txnWorkload is the generated list-append workload of n transactions:
// keys retire after 32 appends, 30 clients, 1% crashed and 1% failed, on
// a store that keeps strict serializability.
func txnWorkload(n int) sim.TxnOptions {
	return sim.TxnOptions{Txns: n, Clients: 30, Keys: 10, WritesPerKey: 32, MaxLength: 4,
		Isolation: sim.IsoSerializable, FailRate: 0.01, CrashRate: 0.01, Seed: 1}
}

// benchFormat is the format of the benchmark files.
var benchFormat = format.JSONL

// writeTxnFile writes the workload of n transactions to a file in dir, in benchFormat.
func writeTxnFile(dir string, n int) (string, error) {
	h, err := sim.Txns(txnWorkload(n))
	if err != nil {
		return "", err
	}
	path := txnPath(dir, n)
	return path, writeHistory(path, benchFormat, h)
}

// txnPath is where the file of n transactions is written in dir.
func txnPath(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("list-append-%d."+benchFormat, n))
}

// writeTxnChild writes the file of "N:DIR" in a child process, so that
// the parent never holds the history: a child's peak memory, as the
// kernel reports it, counts its parent's peak too.
func writeTxnChild(arg string) childResult {
	var res childResult
	ns, dir, _ := strings.Cut(arg, ":")
	n, err := strconv.Atoi(ns)
	if err == nil {
		_, err = writeTxnFile(dir, n)
	}
	if err != nil {
		res.Error = err.Error()
	}
	res.Ops, res.Verdict = n, "-"
	return res
}

// txnChild reads the file and checks it for strict serializability, the
// default level of list-append.
func txnChild(path string) childResult {
	var res childResult
	start, cpu := time.Now(), cpuSeconds()
	h, err := format.ReadFile(path, "")
	res.ReadSeconds, res.ReadCPUSeconds = time.Since(start).Seconds(), cpuSeconds()-cpu
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Ops = len(h.Ops)
	start, cpu = time.Now(), cpuSeconds()
	out, err := check.Run(context.Background(), h, check.Request{Model: "list-append", Criteria: []string{"strict-serializable"}, NoCore: true})
	res.Seconds, res.CPUSeconds = time.Since(start).Seconds(), cpuSeconds()-cpu
	if err != nil {
		res.Error = err.Error()
		return res
	}
	r := out.Results[0]
	res.Verdict, res.Reason, res.Method = r.Valid.String(), r.Reason, r.Method
	return res
}

// cpuSeconds is the processor time the process has taken so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func (b *bench) txnRows() error {
	dir, err := os.MkdirTemp("", "histbench-txn")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, tc := range []struct {
		n      int
		target string
		met    func(r childResult) bool
	}{
		{200_000, "≤ 1.5 s, ≤ 3× read, < 2 GiB", func(r childResult) bool {
			return r.Seconds <= 1.5 && r.Seconds <= 3*r.ReadSeconds && r.PeakRSS < 2<<30
		}},
		{1_000_000, "< 10 s", func(r childResult) bool { return r.Seconds < 10 }},
	} {
		if res := runChild(fmt.Sprintf("writetxn=%d:%s", tc.n, dir), "none", 0, 0); res.Error != "" || res.Crashed != "" {
			return fmt.Errorf("writing %d transactions: %s%s", tc.n, res.Error, res.Crashed)
		}
		path := txnPath(dir, tc.n)
		var rs []childResult
		for r := 0; r < b.o.childReps; r++ {
			rs = append(rs, runChild("txnfile="+path, "histcheck", 0, 0))
		}
		h := medianResult(rs)
		if h.Error != "" || h.Crashed != "" || h.Verdict != "true" {
			return fmt.Errorf("list-append %d: %s%s, verdict %s", tc.n, h.Error, h.Crashed, h.Verdict)
		}
		b.add(row{name: fmt.Sprintf("list-append, %s transactions, strict-serializable", thousandsInt(tc.n)),
			histcheck: outcome(h), porcupine: "–", ratio: fmt.Sprintf("%.2f× read (%s)", h.Seconds/h.ReadSeconds, durSeconds(h.ReadSeconds)),
			hMem: bytes(uint64(h.PeakRSS)) + " peak RSS", pMem: "–", target: tc.target, met: tc.met(h),
			note: fmt.Sprintf("30 clients, keys retire after 32 appends, 1%% crashed, 1%% failed; read time of the JSON Lines file in the ratio column; "+
				"processor time %s to check, %s to read", durSeconds(h.CPUSeconds), durSeconds(h.ReadCPUSeconds))})
	}
	return nil
}

// thousandsInt writes n with comma separators.
func thousandsInt(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
