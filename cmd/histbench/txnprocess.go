package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/sim"
)

// The transactional process rows time what a user runs: one `histcheck
// check -m list-append -c strict-serializable FILE` process on a
// 1,000,000-transaction list-append history of 32 processes and 200
// keys, strictly serializable by construction, as EDN and as JSON Lines.
// Each row gives the process's wall time, its processor time (user and
// system, every thread; unlike the wall time it hardly changes when
// other work shares the machine) and its peak resident memory, as
// medians of the repetitions, with their spread.

// bigTxnWorkload is the history of the rows: 32 clients, 200 keys in use
// at a time, each retiring after 32 appends, one to four micro-operations
// per transaction, 1% failed and 1% crashed.
func bigTxnWorkload() sim.TxnOptions {
	return sim.TxnOptions{Txns: 1_000_000, Clients: 32, Keys: 200, WritesPerKey: 32, MaxLength: 4,
		Isolation: sim.IsoSerializable, FailRate: 0.01, CrashRate: 0.01, Seed: 1}
}

// bigTxnFiles are the files of the rows in dir.
func bigTxnFiles(dir string) (edn, jsonl string) {
	return filepath.Join(dir, "list-append-1m.edn"), filepath.Join(dir, "list-append-1m.jsonl")
}

// writeBigTxnChild writes the rows' history to DIR in both formats, in a
// child process, so that the parent never holds it.
func writeBigTxnChild(dir string) childResult {
	var res childResult
	h, err := sim.Txns(bigTxnWorkload())
	if err != nil {
		res.Error = err.Error()
		return res
	}
	ednPath, jsonlPath := bigTxnFiles(dir)
	for _, f := range []struct{ path, to string }{{ednPath, format.EDN}, {jsonlPath, format.JSONL}} {
		if err := writeHistory(f.path, f.to, h); err != nil {
			res.Error = err.Error()
			return res
		}
	}
	res.Ops, res.Verdict = len(h.Ops), "-"
	return res
}

// txnCheckProcess runs `histcheck check` for strict serializability on a
// file and measures the process: wall time, processor time, peak memory.
func txnCheckProcess(bin string) func(path string) childResult {
	return func(path string) childResult {
		cmd := exec.Command(bin, "check", "-m", "list-append", "-c", "strict-serializable", path)
		start := time.Now()
		err := cmd.Run()
		res := childResult{Seconds: time.Since(start).Seconds(), Verdict: "true", Ops: -1}
		if err != nil {
			res.Error = fmt.Sprintf("histcheck check %s: %v (want exit status 0: the history is strictly serializable)", filepath.Base(path), err)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.PeakRSS = ru.Maxrss << 10
			res.CPUSeconds = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
		}
		return res
	}
}

func (b *bench) txnProcessRows() error {
	dir, err := os.MkdirTemp("", "histbench-txnprocess")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if res := runChild("writebigtxn="+dir, "none", 0, 0); res.Error != "" || res.Crashed != "" {
		return fmt.Errorf("writing the history: %s%s", res.Error, res.Crashed)
	}
	bin, err := buildHistcheck(dir, b.log)
	if err != nil {
		return err
	}
	ednPath, jsonlPath := bigTxnFiles(dir)
	measure := txnCheckProcess(bin)
	var es, js []childResult
	for r := 0; r < b.o.childReps; r++ {
		// The formats alternate, so that a burst of other work on the
		// machine falls on both.
		first, second := ednPath, jsonlPath
		if r%2 == 1 {
			first, second = second, first
		}
		for _, path := range []string{first, second} {
			res := measure(path)
			if res.Error != "" {
				return fmt.Errorf("%s", res.Error)
			}
			if path == ednPath {
				es = append(es, res)
			} else {
				js = append(js, res)
			}
		}
	}
	for _, f := range []struct {
		name string
		rs   []childResult
	}{{"EDN", es}, {"JSON Lines", js}} {
		b.add(txnProcessRow(f.name, f.rs, b.o.childReps))
	}
	return nil
}

// txnProcessRow is the row of one format's measurements.
func txnProcessRow(name string, rs []childResult, reps int) row {
	m := medianResult(rs)
	walls, cpus := make([]float64, len(rs)), make([]float64, len(rs))
	for i, r := range rs {
		walls[i], cpus[i] = r.Seconds, r.CPUSeconds
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	cpu := cpus[len(cpus)/2]
	return row{name: "list-append, 1,000,000 transactions, 32 processes, 200 keys: one `histcheck check -m list-append -c strict-serializable` process, " + name,
		histcheck: outcome(m), porcupine: "–", ratio: fmt.Sprintf("processor %s", durSeconds(cpu)),
		hMem: bytes(uint64(m.PeakRSS)) + " peak RSS", pMem: "–", target: "≤ 5 s, < 2 GB", met: m.Seconds <= 5 && m.PeakRSS < 2e9,
		note: fmt.Sprintf("medians of %d runs; wall %s–%s, processor (user and system) %s–%s; keys retire after 32 appends, 1%% crashed, 1%% failed",
			reps, durSeconds(walls[0]), durSeconds(walls[len(walls)-1]), durSeconds(cpus[0]), durSeconds(cpus[len(cpus)-1]))}
}
