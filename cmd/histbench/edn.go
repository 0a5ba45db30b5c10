package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// The EDN row compares reading the same history as EDN and as JSON Lines:
// both are read as streams, and EDN should cost at most half as much again
// in time and in memory. Each read runs in a child process of its own, so
// that its peak resident memory is the reader's; the formats alternate.

// ednSpec is the history of the EDN row, as the large rows generate it.
const ednSpec = "kv/ops=100000/keys=1000/clients=32/crash=0.01/anomaly=none"

// benchFiles are the files of the EDN row in dir.
func benchFiles(dir string) (edn, jsonl string) {
	return filepath.Join(dir, "kv-100000.edn"), filepath.Join(dir, "kv-100000.jsonl")
}

// writeBenchFiles writes the history of ednSpec to dir in both formats.
// It runs in a child process: a child's peak memory, as the kernel
// reports it, counts its parent's peak too (the child starts in the
// parent's memory), so the parent never holds the history.
func writeBenchFiles(dir string) childResult {
	var res childResult
	w, err := generate(ednSpec)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	ednPath, jsonlPath := benchFiles(dir)
	for _, f := range []struct{ path, to string }{{ednPath, format.EDN}, {jsonlPath, format.JSONL}} {
		if err := writeHistory(f.path, f.to, w.h); err != nil {
			res.Error = err.Error()
			return res
		}
	}
	res.Ops, res.Verdict = len(w.h.Ops), "-"
	return res
}

// writeHistory writes h to path in format to.
func writeHistory(path, to string, h *history.History) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = format.Write(bw, h, to)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readChild reads the file, timed.
func readChild(path string) childResult {
	var res childResult
	start := time.Now()
	h, err := format.ReadFile(path, "")
	res.Seconds = time.Since(start).Seconds()
	res.ReadSeconds = res.Seconds
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Ops, res.Verdict = len(h.Ops), "-"
	return res
}

// pair is one measurement of each format.
type pair struct{ edn, jsonl childResult }

// measurePairs measures EDN and JSON Lines reps times, alternating which
// goes first, and returns the medians (with the largest peak memory).
func measurePairs(reps int, measure func(path string) childResult, ednPath, jsonlPath string) (pair, error) {
	var es, js []childResult
	for r := 0; r < reps; r++ {
		if r%2 == 0 {
			es = append(es, measure(ednPath))
			js = append(js, measure(jsonlPath))
		} else {
			js = append(js, measure(jsonlPath))
			es = append(es, measure(ednPath))
		}
	}
	p := pair{medianResult(es), medianResult(js)}
	for _, r := range []childResult{p.edn, p.jsonl} {
		if r.Error != "" || r.Crashed != "" {
			return p, fmt.Errorf("%s%s", r.Error, r.Crashed)
		}
	}
	if p.edn.Ops != p.jsonl.Ops {
		return p, fmt.Errorf("EDN gives %d operations, JSON Lines %d", p.edn.Ops, p.jsonl.Ops)
	}
	return p, nil
}

// checkProcess runs `histcheck check` on a file and measures the process.
// The EDN file names its order (times), JSON Lines cannot: both are
// checked in the order of their events, so that the work is the same.
func checkProcess(bin string) func(path string) childResult {
	return func(path string) childResult {
		cmd := exec.Command(bin, "check", "-m", "kv", "--init", "0", "--order", "events", "--no-core", path)
		start := time.Now()
		err := cmd.Run()
		res := childResult{Seconds: time.Since(start).Seconds(), Verdict: "true", Ops: -1}
		if err != nil {
			res.Error = fmt.Sprintf("histcheck check %s: %v (want exit status 0: the history is linearizable)", filepath.Base(path), err)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			res.PeakRSS = ru.Maxrss << 10
		}
		return res
	}
}

func (b *bench) ednRows() error {
	dir, err := os.MkdirTemp("", "histbench-edn")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if res := runChild("writebench="+dir, "none", 0, 0); res.Error != "" || res.Crashed != "" {
		return fmt.Errorf("writing the history: %s%s", res.Error, res.Crashed)
	}
	ednPath, jsonlPath := benchFiles(dir)
	read := func(path string) childResult { return runChild("readfile="+path, "none", 0, 0) }
	p, err := measurePairs(b.o.childReps, read, ednPath, jsonlPath)
	if err != nil {
		return fmt.Errorf("reading: %w", err)
	}
	b.addPair(fmt.Sprintf("EDN vs JSON Lines: reading %s ops (kv, 1,000 keys, 32 clients, 1%% crashed)", thousandsInt(p.edn.Ops)), p)
	bin, err := buildHistcheck(dir, b.log)
	if err != nil {
		return err
	}
	if p, err = measurePairs(b.o.childReps, checkProcess(bin), ednPath, jsonlPath); err != nil {
		return err
	}
	b.addPair("EDN vs JSON Lines: one `histcheck check -m kv --init 0 --order events --no-core` process, same history", p)
	return nil
}

// addPair adds a row of EDN (histcheck's columns) against JSON Lines
// (Porcupine's columns).
func (b *bench) addPair(name string, p pair) {
	t := p.edn.Seconds / p.jsonl.Seconds
	m := float64(p.edn.PeakRSS) / float64(p.jsonl.PeakRSS)
	b.add(row{name: name, histcheck: "EDN " + durSeconds(p.edn.Seconds), porcupine: "JSON Lines " + durSeconds(p.jsonl.Seconds),
		ratio: fmt.Sprintf("%.2f× time, %.2f× memory", t, m),
		hMem:  bytes(uint64(p.edn.PeakRSS)) + " peak RSS", pMem: bytes(uint64(p.jsonl.PeakRSS)) + " peak RSS",
		target: "≤ 1.5× time and memory", met: t <= 1.5 && m <= 1.5,
		note: fmt.Sprintf("the Porcupine columns hold JSON Lines; medians of %d runs each", b.o.childReps)})
}
