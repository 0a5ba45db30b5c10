package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/histcheck/histcheck/internal/porcupinesuite"
)

// suiteRun is one run of a compiled test binary: its processor time (user
// and system) and peak resident memory.
type suiteRun struct {
	cpu time.Duration
	rss int64
}

// porcupineSuiteRows time Porcupine v1.3.1's own porcupine_test.go (all
// but the test of its internals) compiled against package porcupine and
// against Porcupine itself: both binaries are compiled first (the compile
// is not measured), then run in turn, alternating which goes first, by
// processor time, since the machine may be shared. One row for the whole
// run and one for -test.short (which skips Porcupine's two tests of a
// key-value store checked without partitions).
func (b *bench) porcupineSuiteRows() error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	src, err := porcupinesuite.Source(root)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "histbench-porcupine-suite")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bins := map[porcupinesuite.Impl]string{}
	dirs := map[porcupinesuite.Impl]string{}
	for _, impl := range []porcupinesuite.Impl{porcupinesuite.Histcheck, porcupinesuite.Porcupine} {
		dir := filepath.Join(tmp, fmt.Sprint(impl))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		if err := porcupinesuite.Stage(dir, root, src, impl); err != nil {
			return err
		}
		bin := filepath.Join(dir, "suite.test")
		if out, err := porcupinesuite.Compile(dir, bin); err != nil {
			return fmt.Errorf("compiling the staged tests: %v\n%s", err, out)
		}
		bins[impl], dirs[impl] = bin, dir
	}
	for _, short := range []bool{false, true} {
		var hs, ps []suiteRun
		for r := 0; r < b.o.childReps; r++ {
			order := []porcupinesuite.Impl{porcupinesuite.Histcheck, porcupinesuite.Porcupine}
			if r%2 == 1 {
				order[0], order[1] = order[1], order[0]
			}
			for _, impl := range order {
				run, err := runSuite(bins[impl], dirs[impl], short)
				if err != nil {
					return err
				}
				if impl == porcupinesuite.Histcheck {
					hs = append(hs, run)
				} else {
					ps = append(ps, run)
				}
			}
		}
		b.addSuiteRow(hs, ps, short)
	}
	return nil
}

func (b *bench) addSuiteRow(hs, ps []suiteRun, short bool) {
	cpu := func(rs []suiteRun) time.Duration {
		var xs []time.Duration
		for _, r := range rs {
			xs = append(xs, r.cpu)
		}
		return median(xs)
	}
	rss := func(rs []suiteRun) int64 {
		var xs []int64
		for _, r := range rs {
			xs = append(xs, r.rss)
		}
		return median(xs)
	}
	h, p := cpu(hs), cpu(ps)
	ratio := float64(h) / float64(p)
	name := "Porcupine's porcupine_test.go, compiled test binaries"
	if short {
		name += ", -test.short"
	}
	b.add(row{name: name, histcheck: dur(h) + " CPU", porcupine: dur(p) + " CPU", ratio: fmt.Sprintf("%.2f", ratio),
		hMem: bytes(uint64(rss(hs))) + " peak RSS", pMem: bytes(uint64(rss(ps))) + " peak RSS",
		target: "≤ 0.5× Porcupine's processor time", met: ratio <= 0.5,
		note: fmt.Sprintf("user+system time, medians of %d runs each, alternating", len(hs))})
}

// runSuite runs a compiled test binary in its folder (where test_data is).
func runSuite(bin, dir string, short bool) (suiteRun, error) {
	var args []string
	if short {
		args = append(args, "-test.short")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	tmp, err := os.MkdirTemp("", "histbench-suite-run")
	if err != nil {
		return suiteRun{}, err
	}
	defer os.RemoveAll(tmp)
	// The tests write pictures to the temporary folder; each run gets one
	// of its own, removed after it.
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if out, err := cmd.CombinedOutput(); err != nil {
		return suiteRun{}, fmt.Errorf("%s: %v\n%s", bin, err, out)
	}
	st := cmd.ProcessState
	run := suiteRun{cpu: st.UserTime() + st.SystemTime()}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		run.rss = ru.Maxrss << 10
	}
	return run, nil
}
