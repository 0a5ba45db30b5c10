package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/histcheck/histcheck/format"
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

// coreRows times one `histcheck check` process with default flags, which
// also shrinks the violation to a core, on long histories with many
// clients and one stale read, and reads the core's size from the JSON
// report. Porcupine has no cores; its column is its verdict alone, in a
// child process of its own.
func (b *bench) coreRows() error {
	return b.withHistcheck(func(bin, dir string) error {
		for _, spec := range []string{
			"register/ops=5000/clients=32/crash=0.02/anomaly=stale-read/seed=5",
			"kv/ops=5000/keys=10/clients=32/crash=0.02/anomaly=stale-read/seed=5",
		} {
			if err := b.coreRow(bin, dir, spec); err != nil {
				return err
			}
		}
		return nil
	})
}

func (b *bench) coreRow(bin, dir, spec string) error {
	w, err := generate(spec)
	if err != nil {
		return err
	}
	file := filepath.Join(dir, "core.json")
	if err := writeHistory(file, format.JSON, w.h); err != nil {
		return err
	}
	var hs []time.Duration
	size, minimal := 0, false
	for r := 0; r < b.o.childReps; r++ {
		start := time.Now()
		out, err := exec.Command(bin, "check", "-o", "json", file).Output()
		hs = append(hs, time.Since(start))
		if ee, ok := err.(*exec.ExitError); !ok && err != nil || ok && ee.ExitCode() != 1 {
			return fmt.Errorf("histcheck check %s: %v (want exit status 1: one stale read)", spec, err)
		}
		if size, minimal, err = coreSize(out); err != nil {
			return fmt.Errorf("%s: %w", spec, err)
		}
	}
	p := runChild(spec, "porcupine", b.o.pTimeout, b.o.pMemory)
	hd := median(hs)
	note := fmt.Sprintf("%d ops; core of %d operations", len(w.h.Ops), size)
	if minimal {
		note += ", shown minimal"
	}
	b.add(row{name: fmt.Sprintf("core: one `histcheck check` process, default flags, %s", spec),
		histcheck: dur(hd) + ", false", porcupine: outcome(p) + " (verdict only)", ratio: "–",
		hMem: "–", pMem: bytes(uint64(p.PeakRSS)) + " peak RSS", target: "≤ 2 s, core ≤ 20 ops",
		met: hd <= 2*time.Second && size <= 20, note: note})
	return nil
}
