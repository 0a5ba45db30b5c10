package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/isogen"
	"github.com/histcheck/histcheck/sim"
)

// The isolation rows measure the levels decided from commit orders on
// rw-register histories with unique writes (20 sessions, 8
// micro-operations per transaction, half reads, 1,000 keys): read
// committed, read atomic and causal consistency at 10,000, 56,000,
// 100,000 and 1,000,000 transactions, with the growth of their processor
// time from 10,000 to 1,000,000 as an exponent; and snapshot isolation
// and serializability on 10,000, from a serializable store and with one
// write skew or lost update. The histories are those of `histcheck sim
// txn --workload rw-register` (its store's 20 clients run concurrently,
// so the history's order is not a commit order), or with -iso-store
// serial internal/isogen's, whose store runs the transactions one after
// another. Each child reads a JSON Lines file (timed apart) and checks
// one level through check.Run. Targets are met on the check's processor
// time (user and system), which a shared machine changes far less than
// the elapsed time shown beside it.

// Stores the isolation rows take their histories from.
const (
	isoStoreSim    = "sim"
	isoStoreSerial = "serial"
)

// isoHistory generates n transactions of the rows' workload from store,
// with anomaly an (isogen's names, which are sim's broken stores') added.
func isoHistory(store string, n int, an string) (*history.History, error) {
	switch store {
	case isoStoreSim:
		iso := sim.IsoSerializable
		if an != "" {
			iso = an
		}
		return sim.Txns(sim.TxnOptions{Txns: n, Clients: 20, Keys: 1000, MaxLength: 8, Ops: 8, ReadRatio: 0.5,
			Registers: true, Isolation: iso, Anomalies: 1, Seed: 1})
	case isoStoreSerial:
		o := isogen.Default(n)
		o.Anomaly = an
		return isogen.History(o)
	}
	return nil, fmt.Errorf("unknown store %q (want %s or %s)", store, isoStoreSim, isoStoreSerial)
}

// isoPath is where the file of n transactions with anomaly an is.
func isoPath(dir string, n int, an string) string {
	if an == "" {
		an = "none"
	}
	return filepath.Join(dir, fmt.Sprintf("rw-register-%s-%d.%s", an, n, benchFormat))
}

// writeIsoChild writes the file of "STORE:N:ANOMALY:DIR".
func writeIsoChild(arg string) childResult {
	var res childResult
	parts := strings.SplitN(arg, ":", 4)
	if len(parts) != 4 {
		res.Error = "want STORE:N:ANOMALY:DIR"
		return res
	}
	n, err := strconv.Atoi(parts[1])
	if err == nil {
		var h, herr = isoHistory(parts[0], n, parts[2])
		err = herr
		if err == nil {
			err = writeHistory(isoPath(parts[3], n, parts[2]), benchFormat, h)
		}
	}
	if err != nil {
		res.Error = err.Error()
	}
	res.Ops, res.Verdict = n, "-"
	return res
}

// isoChild reads "LEVEL:PATH" and checks the level.
func isoChild(arg string) childResult {
	var res childResult
	level, path, _ := strings.Cut(arg, ":")
	start, cpu := time.Now(), cpuSeconds()
	h, err := format.ReadFile(path, "")
	res.ReadSeconds, res.ReadCPUSeconds = time.Since(start).Seconds(), cpuSeconds()-cpu
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Ops = len(h.Ops)
	start, cpu = time.Now(), cpuSeconds()
	out, err := check.Run(context.Background(), h, check.Request{Model: "rw-register", Criteria: []string{level}, NoCore: true})
	res.Seconds, res.CPUSeconds = time.Since(start).Seconds(), cpuSeconds()-cpu
	if err != nil {
		res.Error = err.Error()
		return res
	}
	r := out.Results[0]
	res.Verdict, res.Method = r.Valid.String(), r.Method
	if r.Valid != 1 && len(r.Violations) > 0 {
		res.Reason = r.Violations[0].Pattern
	}
	return res
}

// isoRun writes (once) and checks a file, childReps times.
func (b *bench) isoRun(dir string, n int, an, level string, written map[string]bool) (childResult, error) {
	path := isoPath(dir, n, an)
	if !written[path] {
		if res := runChild(fmt.Sprintf("writeiso=%s:%d:%s:%s", b.o.isoStore, n, an, dir), "none", 0, 0); res.Error != "" || res.Crashed != "" {
			return res, fmt.Errorf("writing %d transactions: %s%s", n, res.Error, res.Crashed)
		}
		written[path] = true
	}
	var rs []childResult
	for r := 0; r < b.o.childReps; r++ {
		rs = append(rs, runChild("isofile="+level+":"+path, "histcheck", 0, 0))
	}
	h := medianResult(rs)
	if h.Error != "" || h.Crashed != "" {
		return h, fmt.Errorf("%s on %d: %s%s", level, n, h.Error, h.Crashed)
	}
	return h, nil
}

func (b *bench) isolationRows() error {
	dir, err := os.MkdirTemp("", "histbench-iso")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	written := map[string]bool{}
	store := "histcheck sim txn's store (20 concurrent clients)"
	if b.o.isoStore == isoStoreSerial {
		store = "a serial store (internal/isogen)"
	}
	note := "20 sessions, 8 micro-operations per transaction, half reads, 1,000 keys, unique writes, " + store + "; "
	for _, lc := range []struct {
		level string
		exp   float64
	}{{"read-committed-biswas-enea", 1.5}, {"read-atomic", 1.5}, {"causal-cerone", 1.1}} {
		cpuAt := map[int]float64{}
		for _, tc := range []struct {
			n      int
			target string
			met    func(r childResult) bool
		}{
			{10_000, "–", func(childResult) bool { return true }},
			{56_000, "≤ 2 s processor time, < 1 GiB", func(r childResult) bool { return r.CPUSeconds <= 2 && r.PeakRSS < 1<<30 }},
			{100_000, "–", func(childResult) bool { return true }},
			{1_000_000, "≤ 60 s processor time, < 4 GiB", func(r childResult) bool { return r.CPUSeconds <= 60 && r.PeakRSS < 4<<30 }},
		} {
			h, err := b.isoRun(dir, tc.n, "", lc.level, written)
			if err != nil {
				return err
			}
			cpuAt[tc.n] = h.CPUSeconds
			b.add(row{name: fmt.Sprintf("rw-register, %s transactions, %s", thousandsInt(tc.n), lc.level),
				histcheck: outcome(h), porcupine: "–", ratio: fmt.Sprintf("read %s", durSeconds(h.ReadSeconds)),
				hMem: bytes(uint64(h.PeakRSS)) + " peak RSS", pMem: "–", target: tc.target, met: tc.met(h) && h.Verdict == "true",
				note: note + fmt.Sprintf("processor time %s to check, %s to read", durSeconds(h.CPUSeconds), durSeconds(h.ReadCPUSeconds))})
		}
		e := math.Log(cpuAt[1_000_000]/cpuAt[10_000]) / math.Log(100)
		b.add(row{name: fmt.Sprintf("rw-register, %s, growth 10,000 → 1,000,000 transactions", lc.level),
			histcheck: fmt.Sprintf("exponent %.2f", e), porcupine: "–", ratio: "–", hMem: "–", pMem: "–",
			target: fmt.Sprintf("≤ %.1f", lc.exp), met: e <= lc.exp,
			note: fmt.Sprintf("log(t(1M)/t(10k))/log(100) of the processor time to check (%s, %s)", durSeconds(cpuAt[10_000]), durSeconds(cpuAt[1_000_000]))})
	}
	for _, tc := range []struct {
		an, level, want string
	}{
		{"", "snapshot-isolation", "true"}, {"", "serializable", "true"},
		{isogen.WriteSkew, "serializable", "false"}, {isogen.WriteSkew, "snapshot-isolation", "true"},
		{isogen.LostUpdate, "snapshot-isolation", "false"}, {isogen.LostUpdate, "serializable", "false"},
	} {
		h, err := b.isoRun(dir, 10_000, tc.an, tc.level, written)
		if err != nil {
			return err
		}
		what := "serializable store"
		if tc.an != "" {
			what = "one " + tc.an
		}
		b.add(row{name: fmt.Sprintf("rw-register, 10,000 transactions, %s, %s", what, tc.level),
			histcheck: outcome(h), porcupine: "–", ratio: fmt.Sprintf("read %s", durSeconds(h.ReadSeconds)),
			hMem: bytes(uint64(h.PeakRSS)) + " peak RSS", pMem: "–", target: "≤ 10 s processor time, " + tc.want, met: h.CPUSeconds <= 10 && h.Verdict == tc.want,
			note: note + fmt.Sprintf("processor time %s to check (Elle's analysis and the exact search), %s to read", durSeconds(h.CPUSeconds), durSeconds(h.ReadCPUSeconds))})
	}
	return nil
}
