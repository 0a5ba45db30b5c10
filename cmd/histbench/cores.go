package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/porcupinemodel"
)

// withHistcheck builds the command into a temporary folder and calls fn
// with its path and the folder, which is removed afterwards.
func (b *bench) withHistcheck(fn func(bin, dir string) error) error {
	dir, err := os.MkdirTemp("", "histbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := buildHistcheck(dir, b.log)
	if err != nil {
		return err
	}
	return fn(bin, dir)
}

// coreReport is the part of the JSON report the cores rows read.
type coreReport struct {
	Histories []struct {
		Results []struct {
			Verdict    string `json:"verdict"`
			Violations []struct {
				Core *struct {
					Ops      []json.RawMessage `json:"ops"`
					Weakened []json.RawMessage `json:"weakened"`
					Minimal  bool              `json:"minimal"`
				} `json:"core"`
			} `json:"violations"`
		} `json:"results"`
	} `json:"histories"`
}

// coreSize reads the first core of a JSON report: its operations (kept and
// weakened) and whether it was shown minimal.
func coreSize(out []byte) (int, bool, error) {
	var r coreReport
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, false, fmt.Errorf("reading the JSON report: %w", err)
	}
	for _, h := range r.Histories {
		for _, res := range h.Results {
			for _, v := range res.Violations {
				if v.Core != nil {
					return len(v.Core.Ops) + len(v.Core.Weakened), v.Core.Minimal, nil
				}
			}
		}
	}
	return 0, false, errors.New("the report has no core")
}

// coreCase is one history a cores row checks: a file, the flags of
// `histcheck check` before it, and how Porcupine's process reads it (conv,
// see porcupineFileChild).
type coreCase struct {
	name  string
	file  string
	flags []string
	conv  string
	// ratio is the row's target for histcheck's process with cores
	// against Porcupine's whole process; 0 keeps the time and size target.
	ratio float64
}

// coreRows times one `histcheck check` process with default flags, which
// also shrinks the violation to a core, against Porcupine's whole process
// on the same file (a child that reads it and checks it), and reads the
// core's size from the JSON report: Porcupine's kv history c50-bad, whose
// violation the core must start from, and long generated histories with
// many clients and one stale read. The kv rows are held to a ratio, cores
// included; each also times the command with --no-core, so that the
// core's own cost shows.
func (b *bench) coreRows() error {
	return b.withHistcheck(func(bin, dir string) error {
		cases := []coreCase{{name: "porcupine-kv c50-bad", file: filepath.Join(b.o.corpus, "porcupine-kv", "c50-bad.txt"),
			flags: []string{"-m", "kv", "--init", `""`}, conv: "kv", ratio: 0.5}}
		for _, spec := range []string{
			"register/ops=5000/clients=32/crash=0.02/anomaly=stale-read/seed=5",
			"kv/ops=5000/keys=10/clients=32/crash=0.02/anomaly=stale-read/seed=5",
		} {
			w, err := generate(spec)
			if err != nil {
				return err
			}
			file := filepath.Join(dir, strings.ReplaceAll(spec, "/", "_")+".json")
			if err := writeHistory(file, format.JSON, w.h); err != nil {
				return err
			}
			c := coreCase{name: spec, file: file, conv: "register"}
			if strings.HasPrefix(spec, "kv/") {
				c.ratio = 0.5
			}
			cases = append(cases, c)
		}
		for _, c := range cases {
			if err := b.coreRow(bin, c); err != nil {
				return err
			}
		}
		return nil
	})
}

// coreTimes are the medians of one cores row.
type coreTimes struct {
	cores, noCore, porcupine time.Duration
	size                     int
	minimal                  bool
	p                        childResult
	rss                      int64 // the command's peak resident memory, with cores
}

// measureCores runs, childReps times in turn, the command with default
// flags, the command with --no-core, and Porcupine's whole process, each
// timed from start to exit.
func (b *bench) measureCores(bin string, c coreCase) (coreTimes, error) {
	var t coreTimes
	var hs, ns, ps []time.Duration
	var prs []childResult
	var rss []int64
	args := append(append([]string{"check", "-o", "json"}, c.flags...), c.file)
	noCore := append(append([]string{"check", "-o", "json", "--no-core"}, c.flags...), c.file)
	for r := 0; r < b.o.childReps; r++ {
		cmd := exec.Command(bin, args...)
		start := time.Now()
		out, err := cmd.Output()
		hs = append(hs, time.Since(start))
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			return t, fmt.Errorf("histcheck check %s: %v (want exit status 1: a violation)", c.name, err)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = append(rss, ru.Maxrss<<10)
		}
		if t.size, t.minimal, err = coreSize(out); err != nil {
			return t, fmt.Errorf("%s: %w", c.name, err)
		}
		start = time.Now()
		err = exec.Command(bin, noCore...).Run()
		ns = append(ns, time.Since(start))
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			return t, fmt.Errorf("histcheck check --no-core %s: %v (want exit status 1: a violation)", c.name, err)
		}
		start = time.Now()
		p := runChild("porcupinefile="+c.conv+":"+c.file, "porcupine", b.o.pTimeout, b.o.pMemory)
		ps, prs = append(ps, time.Since(start)), append(prs, p)
	}
	t.cores, t.noCore, t.porcupine, t.p = median(hs), median(ns), median(ps), medianResult(prs)
	if len(rss) > 0 {
		t.rss = median(rss)
	}
	return t, nil
}

func (b *bench) coreRow(bin string, c coreCase) error {
	t, err := b.measureCores(bin, c)
	if err != nil {
		return err
	}
	note := fmt.Sprintf("core of %d operations", t.size)
	if t.minimal {
		note += ", shown minimal"
	}
	note += fmt.Sprintf("; with --no-core %s; Porcupine's process %s", dur(t.noCore), outcome(t.p))
	ratio, rs := 0.0, "–"
	if t.p.Verdict == "false" {
		ratio = float64(t.cores) / float64(t.porcupine)
		rs = fmt.Sprintf("%.3f", ratio)
	}
	target, met := "≤ 2 s, core ≤ 20 ops", t.cores <= 2*time.Second && t.size <= 20
	if c.ratio > 0 {
		target = fmt.Sprintf("ratio ≤ %.1f, ≤ 0.1 s more than --no-core", c.ratio)
		met = rs != "–" && ratio <= c.ratio && t.cores-t.noCore <= 100*time.Millisecond
	}
	command := strings.Join(append([]string{"histcheck", "check"}, c.flags...), " ")
	b.add(row{name: fmt.Sprintf("core: one `%s` process, default flags, %s", command, c.name),
		histcheck: dur(t.cores) + ", false", porcupine: dur(t.porcupine) + " (whole process: read + check)", ratio: rs,
		hMem: bytes(uint64(t.rss)) + " peak RSS", pMem: bytes(uint64(t.p.PeakRSS)) + " peak RSS", target: target, met: met, note: note})
	return nil
}

// porcupineFileChild reads the history file of arg, CONV:PATH, with
// histcheck's reader (Porcupine has no reader of these files) and checks
// it with Porcupine: CONV kv is Porcupine's own kv model (string values,
// initially ""), register its register model with keys as partitions,
// initially 0 (the generated histories').
func porcupineFileChild(arg string, timeout time.Duration) childResult {
	var res childResult
	conv, path, ok := strings.Cut(arg, ":")
	if !ok || conv != "kv" && conv != "register" {
		res.Error = fmt.Sprintf("porcupinefile=%s: want kv:PATH or register:PATH", arg)
		return res
	}
	start := time.Now()
	h, err := format.ReadFile(path, "")
	if err != nil {
		res.Error = err.Error()
		return res
	}
	w := &workload{}
	if conv == "kv" {
		w.pModel, w.pOps = porcupinemodel.KV(h)
	} else {
		w.pModel, w.pOps = porcupinemodel.Register(h, history.IntValue(0))
	}
	res.Verdict = w.porcupine(timeout).String()
	res.Ops = len(h.Ops)
	res.Seconds = time.Since(start).Seconds()
	return res
}
