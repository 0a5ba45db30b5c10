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
	"github.com/histcheck/histcheck/internal/porcupinemodel"
	"github.com/histcheck/histcheck/sim"
)

// withHistcheck builds the command into a temporary folder and calls fn
// with its path and the folder, which is removed afterwards.
func (b *bench) withHistcheck(fn func(bin, dir string) error) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "histbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "histcheck")
	build := exec.Command("go", "build", "-o", bin, "./cmd/histcheck")
	build.Dir, build.Stderr = root, b.log
	if err := build.Run(); err != nil {
		return fmt.Errorf("building histcheck: %w", err)
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
// report. Porcupine has no cores; its column is its verdict alone.
func (b *bench) coreRows() error {
	return b.withHistcheck(func(bin, dir string) error {
		for _, o := range []sim.RandomOptions{
			{Model: "register", Clients: 32, Ops: 5000, CrashRate: 0.02, Anomaly: "stale-read", Seed: 5},
			{Model: "kv", Clients: 32, Ops: 5000, Keys: 10, CrashRate: 0.02, Anomaly: "stale-read", Seed: 5},
		} {
			if err := b.coreRow(bin, dir, o); err != nil {
				return err
			}
		}
		return nil
	})
}

func (b *bench) coreRow(bin, dir string, o sim.RandomOptions) error {
	h, err := sim.Random(o)
	if err != nil {
		return err
	}
	file := filepath.Join(dir, o.Model+".json")
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := format.Write(f, h, "json"); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	var hs []time.Duration
	size, minimal := 0, false
	for r := 0; r < b.o.childReps; r++ {
		start := time.Now()
		out, err := exec.Command(bin, "check", "-o", "json", file).Output()
		hs = append(hs, time.Since(start))
		if ee, ok := err.(*exec.ExitError); !ok && err != nil || ok && ee.ExitCode() != 1 {
			return fmt.Errorf("histcheck check %s: %v (want exit status 1: one stale read)", o.Model, err)
		}
		if size, minimal, err = coreSize(out); err != nil {
			return fmt.Errorf("%s: %w", o.Model, err)
		}
	}
	w := &workload{h: h}
	w.pModel, w.pOps = porcupinemodel.Register(h, h.Meta["init"])
	start := time.Now()
	pv := w.porcupine(b.o.pTimeout)
	pt := time.Since(start)
	hd := median(hs)
	note := fmt.Sprintf("core of %d operations", size)
	if minimal {
		note += ", shown minimal"
	}
	b.add(row{name: fmt.Sprintf("core: one `histcheck check` process, default flags, %s, %d ops, %d clients, one stale read", o.Model, o.Ops, o.Clients),
		histcheck: dur(hd) + ", false", porcupine: dur(pt) + ", " + pv.String() + " (verdict only, in process)", ratio: "–",
		hMem: "–", pMem: "–", target: "≤ 2 s, core ≤ 20 ops", met: hd <= 2*time.Second && size <= 20, note: note})
	return nil
}
