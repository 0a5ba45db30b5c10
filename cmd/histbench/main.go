// Command histbench measures histcheck's linearizability checking against
// Porcupine v1.3.1 on the same parsed histories, in one run: the checks
// are interleaved, repeated, and summarised by their medians, so that the
// ratio holds on a loaded machine. It prints a Markdown table with a row
// per workload (times, ratio, memory, target, whether it was met) and can
// draw check time against history size as a PNG.
//
//	go run ./cmd/histbench [-reps 11] [-plot docs/perf/scaling.png]
//
// Large workloads run in child processes (one per tool and repetition) so
// that each reports its own peak resident memory.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/porcupinemodel"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are histbench's flags.
type options struct {
	corpus       string
	reps         int
	childReps    int
	rows         string
	plot         string
	pTimeout     time.Duration
	pMemory      int64
	budgetTime   time.Duration
	budgetMemory int64
	isoStore     string
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "child" {
		return childMain(args[1:], stdout)
	}
	var o options
	fs := flag.NewFlagSet("histbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.corpus, "corpus", "", "the corpus folder (default: shared/corpus beside the module)")
	fs.IntVar(&o.reps, "reps", 11, "repetitions of each in-process measurement")
	fs.IntVar(&o.childReps, "child-reps", 3, "repetitions of each child-process measurement")
	fs.StringVar(&o.rows, "rows", "all", "comma-separated groups to run: corpus, files, kv, e2e, kvprocess, cores, large, unique, many, writes, budget, txn, edn, txnprocess, porcupine-suite, isolation, or all")
	fs.StringVar(&o.plot, "plot", "", "write a PNG of check time against history size to this file")
	fs.DurationVar(&o.pTimeout, "porcupine-timeout", time.Minute, "time limit for Porcupine on the generated workloads")
	fs.Int64Var(&o.pMemory, "porcupine-memory", 8<<30, "address-space limit, in bytes, for Porcupine's child processes")
	fs.DurationVar(&o.budgetTime, "budget-timeout", 5*time.Second, "the --timeout of the beyond-budget row")
	fs.Int64Var(&o.budgetMemory, "budget-memory", 256<<20, "the --max-memory, in bytes, of the beyond-budget row")
	fs.StringVar(&o.isoStore, "iso-store", isoStoreSim, "the isolation rows' histories: sim (histcheck sim txn's store, its clients concurrent) or serial (transactions one after another)")
	if err := fs.Parse(args); err != nil {
		return 3
	}
	if o.reps < 1 || o.childReps < 1 {
		fmt.Fprintln(stderr, "histbench: -reps and -child-reps must be at least 1")
		return 3
	}
	if o.isoStore != isoStoreSim && o.isoStore != isoStoreSerial {
		fmt.Fprintf(stderr, "histbench: -iso-store: want %s or %s, got %q\n", isoStoreSim, isoStoreSerial, o.isoStore)
		return 3
	}
	if o.corpus == "" {
		c, err := findCorpus()
		if err != nil {
			fmt.Fprintln(stderr, "histbench:", err)
			return 3
		}
		o.corpus = c
	}
	want := map[string]bool{}
	for _, g := range strings.Split(o.rows, ",") {
		want[strings.TrimSpace(g)] = true
	}
	all := want["all"]
	b := &bench{o: o, log: stderr}
	fmt.Fprintf(stderr, "histbench: %s/%s, %d CPUs, %s, Porcupine v1.3.1\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	steps := []struct {
		group string
		fn    func() error
	}{
		{"corpus", b.corpusRow},
		{"files", b.fileRows},
		{"kv", b.kvRows},
		{"e2e", b.endToEnd},
		{"kvprocess", b.kvProcessRows},
		{"cores", b.coreRows},
		{"large", b.largeRows},
		{"unique", b.uniqueRow},
		{"many", b.manyClientsRows},
		{"writes", b.writesRows},
		{"budget", b.budgetRows},
		{"txn", b.txnRows},
		{"edn", b.ednRows},
		{"txnprocess", b.txnProcessRows},
		{"porcupine-suite", b.porcupineSuiteRows},
		{"isolation", b.isolationRows},
	}
	failed := false
	for _, s := range steps {
		if !all && !want[s.group] {
			continue
		}
		if err := s.fn(); err != nil {
			fmt.Fprintf(stderr, "histbench: %s: %v\n", s.group, err)
			failed = true
		}
	}
	b.print(stdout)
	if o.plot != "" {
		if err := b.scaling(o.plot); err != nil {
			fmt.Fprintln(stderr, "histbench: plot:", err)
			failed = true
		}
	}
	if failed {
		return 1
	}
	return 0
}

// row is one line of the table.
type row struct {
	name       string
	histcheck  string
	porcupine  string
	ratio      string
	hMem, pMem string
	target     string
	met        bool
	note       string
}

type bench struct {
	o    options
	log  io.Writer
	rows []row
}

func (b *bench) add(r row) {
	b.rows = append(b.rows, r)
	fmt.Fprintf(b.log, "  %s: histcheck %s, porcupine %s, ratio %s, met %v %s\n", r.name, r.histcheck, r.porcupine, r.ratio, r.met, r.note)
}

func (b *bench) print(w io.Writer) {
	fmt.Fprintln(w, "| workload | histcheck | Porcupine | ratio | histcheck memory | Porcupine memory | target | met |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |")
	for _, r := range b.rows {
		met := "yes"
		if !r.met {
			met = "**no**"
		}
		name := r.name
		if r.note != "" {
			name += " (" + r.note + ")"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", name, r.histcheck, r.porcupine, r.ratio, r.hMem, r.pMem, r.target, met)
	}
}

// measurement is the medians of repeated in-process checks.
type measurement struct {
	h, p           time.Duration
	hAlloc, pAlloc uint64 // bytes allocated by one check (median)
}

// interleave checks every workload with both tools reps times, alternating
// which goes first, and returns the medians of the summed times. Each
// check starts after a collection, so neither tool pays for the other's
// garbage. A verdict other than the expected one is an error.
func interleave(ws []*workload, reps int) (measurement, error) {
	var hs, ps []time.Duration
	var ha, pa []uint64
	var ms runtime.MemStats
	for r := 0; r < reps; r++ {
		var hSum, pSum time.Duration
		var hAl, pAl uint64
		for _, w := range ws {
			for k := 0; k < 2; k++ {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				before := ms.TotalAlloc
				if (k+r)%2 == 0 {
					start := time.Now()
					res, err := w.histcheck(context.Background(), linear.Options{})
					hSum += time.Since(start)
					if err != nil {
						return measurement{}, fmt.Errorf("%s: %w", w.name, err)
					}
					if res.Valid != w.want {
						return measurement{}, fmt.Errorf("%s: histcheck says %v, want %v", w.name, res.Valid, w.want)
					}
					runtime.ReadMemStats(&ms)
					hAl += ms.TotalAlloc - before
				} else {
					start := time.Now()
					v := w.porcupine(0)
					pSum += time.Since(start)
					if v != w.want {
						return measurement{}, fmt.Errorf("%s: Porcupine says %v, want %v", w.name, v, w.want)
					}
					runtime.ReadMemStats(&ms)
					pAl += ms.TotalAlloc - before
				}
			}
		}
		hs, ps, ha, pa = append(hs, hSum), append(ps, pSum), append(ha, hAl), append(pa, pAl)
	}
	return measurement{median(hs), median(ps), median(ha), median(pa)}, nil
}

func median[T int64 | uint64 | time.Duration | float64](xs []T) T {
	s := append([]T(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func (b *bench) ratioRow(name string, ws []*workload, reps int, note string) error {
	m, err := interleave(ws, reps)
	if err != nil {
		return err
	}
	ratio := float64(m.h) / float64(m.p)
	b.add(row{name: name, histcheck: dur(m.h), porcupine: dur(m.p), ratio: fmt.Sprintf("%.2f", ratio),
		hMem: bytes(m.hAlloc) + " alloc", pMem: bytes(m.pAlloc) + " alloc",
		target: "ratio ≤ 0.5", met: ratio <= 0.5, note: note})
	return nil
}

func (b *bench) corpusRow() error {
	ws, err := loadCorpus(b.o.corpus, "porcupine-etcd", nil)
	if err != nil {
		return err
	}
	return b.ratioRow(fmt.Sprintf("porcupine-etcd, all %d histories, summed", len(ws)), ws, b.o.reps, "")
}

func (b *bench) fileRows() error {
	for _, name := range []string{"etcd_002", "etcd_007", "etcd_057", "etcd_099", "etcd_075"} {
		ws, err := loadCorpus(b.o.corpus, "porcupine-etcd", map[string]bool{name: true})
		if err != nil {
			return err
		}
		if err := b.ratioRow(name, ws, 3*b.o.reps, ""); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) kvRows() error {
	for _, name := range []string{"c50-ok", "c50-bad"} {
		ws, err := loadCorpus(b.o.corpus, "porcupine-kv", map[string]bool{name: true})
		if err != nil {
			return err
		}
		if err := b.ratioRow("porcupine-kv "+name, ws, 3*b.o.reps, "partitioned by key"); err != nil {
			return err
		}
	}
	return nil
}

// endToEnd times one histcheck process reading and checking the whole etcd
// corpus. Porcupine has no command; its column is the in-process
// equivalent: parsing with histcheck's reader, then Porcupine's check.
func (b *bench) endToEnd() error {
	return b.withHistcheck(func(bin, _ string) error { return b.etcdProcess(bin) })
}

// etcdProcess is endToEnd with the command built at bin.
func (b *bench) etcdProcess(bin string) error {
	rows, err := readExpected(filepath.Join(b.o.corpus, "porcupine-etcd"))
	if err != nil {
		return err
	}
	var files []string
	for _, r := range rows {
		files = append(files, filepath.Join(b.o.corpus, "porcupine-etcd", r.file))
	}
	// The command also shrinks each violation to a minimal core by default;
	// that is explanation, not checking, so the target row leaves it out
	// when the command can, and a second row shows the default.
	help, _ := exec.Command(bin, "check", "--help").CombinedOutput()
	variants := [][]string{nil}
	if strings.Contains(string(help), "--no-core") {
		variants = [][]string{{"--no-core"}, nil}
	}
	for _, extra := range variants {
		args := append(append([]string{"check", "-m", "cas-register", "--init", "nil"}, extra...), files...)
		// One slow run with the default flags tells enough.
		slow := map[bool]time.Duration{true: 5 * time.Second}[extra == nil]
		hs, ps, rss, err := processVsPorcupine(bin, args, 1, files, history.NilValue, b.o.reps, slow)
		if err != nil {
			return fmt.Errorf("histcheck check: %v (want exit status 1: some histories are not linearizable)", err)
		}
		h, p := median(hs), median(ps)
		flags := "-m cas-register --init nil " + strings.Join(extra, " ")
		note := ""
		if extra == nil && len(variants) > 1 {
			note = "default flags: also shrinks each violation to a minimal core"
		}
		ratio := float64(h) / float64(p)
		// The default flags are what users run: they are held to the
		// ratio, cores included.
		target, met := "≤ 1 s", h <= time.Second
		if extra == nil {
			target, met = "ratio ≤ 0.35", ratio <= 0.35
		}
		b.add(row{name: fmt.Sprintf("end to end: one `histcheck check %s` process, %d etcd files", strings.TrimSpace(flags), len(files)),
			histcheck: dur(h), porcupine: dur(p) + " (parse + check in process)", ratio: fmt.Sprintf("%.2f", ratio),
			hMem: bytes(uint64(median(rss))) + " peak RSS", pMem: "–", target: target, met: met, note: note})
	}
	return nil
}

// kvProcessRows times one `histcheck check` process with default flags
// (which also shrink a violation to a core) on the 100,000-op key-value
// history written to a file, valid and with one stale read, against
// Porcupine's in-process equivalent: reading the file with histcheck's
// reader, then its check.
func (b *bench) kvProcessRows() error {
	return b.withHistcheck(func(bin, dir string) error {
		for _, anomaly := range []string{"none", "stale-read"} {
			spec := "kv/ops=100000/keys=1000/clients=32/crash=0.01/anomaly=" + anomaly
			w, err := generate(spec)
			if err != nil {
				return err
			}
			file := filepath.Join(dir, "kv.json")
			if err := writeHistory(file, format.JSON, w.h); err != nil {
				return err
			}
			want := map[checker.Verdict]int{checker.True: 0, checker.False: 1}[w.want]
			hs, ps, rss, err := processVsPorcupine(bin, []string{"check", file}, want, []string{file}, history.IntValue(0), b.o.childReps, 0)
			if err != nil {
				return fmt.Errorf("histcheck check %s: %w (want exit status %d)", spec, err, want)
			}
			h, p := median(hs), median(ps)
			ratio := float64(h) / float64(p)
			b.add(row{name: fmt.Sprintf("end to end: one `histcheck check` process, default flags, kv, 100,000 ops, 1,000 keys, 32 clients, 1%% crashed, %s",
				map[bool]string{true: "valid", false: "one stale read"}[anomaly == "none"]),
				histcheck: dur(h) + ", " + w.want.String(), porcupine: dur(p) + " (parse + check in process)", ratio: fmt.Sprintf("%.2f", ratio),
				hMem: bytes(uint64(median(rss))) + " peak RSS", pMem: "–", target: "ratio ≤ 0.5", met: ratio <= 0.5})
		}
		return nil
	})
}

// processVsPorcupine times reps runs of the command at bin with args,
// which must exit with status want, each followed by Porcupine's
// in-process equivalent: reading files with histcheck's reader, then its
// check of each as a register with initial value init. It returns the
// times and the command's peak resident memory; a run of the command that
// takes longer than slow (when not zero) ends the repetitions.
func processVsPorcupine(bin string, args []string, want int, files []string, init history.Value, reps int,
	slow time.Duration) (hs, ps []time.Duration, rss []int64, err error) {
	for r := 0; r < reps; r++ {
		cmd := exec.Command(bin, args...)
		start := time.Now()
		err := cmd.Run()
		hs = append(hs, time.Since(start))
		if _, exited := err.(*exec.ExitError); err != nil && !exited || cmd.ProcessState.ExitCode() != want {
			return nil, nil, nil, fmt.Errorf("exit: %v", err)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = append(rss, ru.Maxrss<<10)
		}
		runtime.GC()
		start = time.Now()
		for _, f := range files {
			h, err := format.ReadFile(f, "")
			if err != nil {
				return nil, nil, nil, err
			}
			m, ops := porcupinemodel.Register(h, init)
			(&workload{pModel: m, pOps: ops}).porcupine(0)
		}
		ps = append(ps, time.Since(start))
		if slow > 0 && hs[len(hs)-1] > slow {
			break
		}
	}
	return hs, ps, rss, nil
}

// buildHistcheck builds the histcheck command into dir, without cgo: as
// histbench itself is, whose child processes are Porcupine's side. The
// command would otherwise link C only for the network resolver (cobra's
// flags import package net), and a dynamically linked Go binary starts
// about 4 ms later, a tenth of a small check's process.
func buildHistcheck(dir string, log io.Writer) (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "histcheck")
	build := exec.Command("go", "build", "-o", bin, "./cmd/histcheck")
	build.Dir, build.Stderr = root, log
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building histcheck: %w", err)
	}
	return bin, nil
}

// childRow runs a generated workload with both tools in child processes.
func (b *bench) childRow(name, spec, target string, hTimeout time.Duration, hMem int64, pTimeout time.Duration,
	met func(h, p childResult) bool) error {
	var hs, ps []childResult
	for r := 0; r < b.o.childReps; r++ {
		order := []string{"histcheck", "porcupine"}
		if r%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, tool := range order {
			if tool == "histcheck" {
				hs = append(hs, runChild(spec, tool, hTimeout, hMem))
			} else {
				ps = append(ps, runChild(spec, tool, pTimeout, b.o.pMemory))
			}
		}
	}
	base := runChild(spec, "none", 0, 0)
	h, p := medianResult(hs), medianResult(ps)
	if h.Error != "" {
		return fmt.Errorf("%s: histcheck: %s", name, h.Error)
	}
	r := row{name: name, histcheck: outcome(h), porcupine: outcome(p), target: target, met: met(h, p),
		hMem: bytes(uint64(h.PeakRSS)) + " peak RSS", pMem: bytes(uint64(p.PeakRSS)) + " peak RSS",
		note: fmt.Sprintf("%d ops; the generated history alone peaks at %s", h.Ops, bytes(uint64(base.PeakRSS)))}
	switch {
	case p.Crashed != "" || p.Verdict == checker.Unknown.String():
		r.ratio = "–"
	default:
		r.ratio = fmt.Sprintf("%.3f", h.Seconds/p.Seconds)
	}
	b.add(r)
	return nil
}

// medianResult returns the result with the median time, with the largest
// peak memory of all.
func medianResult(rs []childResult) childResult {
	s := append([]childResult(nil), rs...)
	sort.Slice(s, func(i, j int) bool { return s[i].Seconds < s[j].Seconds })
	m := s[len(s)/2]
	for _, r := range rs {
		m.PeakRSS = max(m.PeakRSS, r.PeakRSS)
	}
	return m
}

func outcome(r childResult) string {
	if r.Crashed != "" {
		return r.Crashed
	}
	s := fmt.Sprintf("%s, %s", durSeconds(r.Seconds), r.Verdict)
	if r.Method != "" && r.Method != "wgl" {
		s += " by " + r.Method
	}
	if r.Reason != "" {
		s += " (" + r.Reason + ")"
	}
	return s
}

func (b *bench) largeRows() error {
	for _, anomaly := range []string{"none", "stale-read"} {
		spec := "kv/ops=100000/keys=1000/clients=32/crash=0.01/anomaly=" + anomaly
		want := map[bool]string{true: "true", false: "false"}[anomaly == "none"]
		err := b.childRow("kv, 100,000 ops, 1,000 keys, 32 clients, 1% crashed, "+map[bool]string{true: "valid", false: "one stale read"}[anomaly == "none"],
			spec, "< 5 s, < 1 GiB", 0, 0, b.o.pTimeout, func(h, _ childResult) bool {
				return h.Verdict == want && h.Seconds < 5 && h.PeakRSS < 1<<30
			})
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) uniqueRow() error {
	return b.childRow("register, unique values, 1,000,000 ops, 64 clients", "register/ops=1000000/clients=64/unique/anomaly=none",
		"< 10 s (zones)", 0, 0, b.o.pTimeout, func(h, _ childResult) bool {
			return h.Verdict == "true" && h.Seconds < 10 && h.Method == "zones"
		})
}

// manyClientsRows times one compare-and-set register, values drawn from
// five, 2% crashed, at Jepsen's concurrency: each row's goal is a verdict
// within a time and a memory budget. Porcupine gets manyPorcupineTime.
func (b *bench) manyClientsRows() error {
	rows := []struct {
		clients, ops int
		anomaly      string
		limit        time.Duration
		memory       int64
	}{
		{16, 5000, "none", 10 * time.Second, 1 << 30},
		{32, 5000, "none", 10 * time.Second, 1 << 30},
		{32, 5000, "stale-read", 10 * time.Second, 1 << 30},
		{64, 10000, "none", 30 * time.Second, 2 << 30},
	}
	for _, r := range rows {
		spec := fmt.Sprintf("cas-register/ops=%d/clients=%d/crash=0.02/seed=5/anomaly=%s", r.ops, r.clients, r.anomaly)
		want := map[bool]string{true: "true", false: "false"}[r.anomaly == "none"]
		name := fmt.Sprintf("cas register, values from 5, %d clients, %d ops, 2%% crashed, %s", r.clients, r.ops,
			map[bool]string{true: "valid", false: "one stale read"}[r.anomaly == "none"])
		target := fmt.Sprintf("%s in ≤ %s, ≤ %s", want, r.limit, bytes(uint64(r.memory)))
		limit, memory := r.limit, r.memory
		err := b.childRow(name, spec, target, 3*limit, 2*memory, manyPorcupineTime, func(h, _ childResult) bool {
			return h.Verdict == want && h.Seconds <= limit.Seconds() && h.PeakRSS <= memory
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// manyPorcupineTime bounds Porcupine on the many-clients rows, where it
// finds no answer in minutes.
const manyPorcupineTime = 30 * time.Second

// writesRows times write-only registers whose one write of the initial
// value takes them to the register sweep, every write overlapping every
// other.
func (b *bench) writesRows() error {
	for _, c := range []struct {
		ops   int
		limit float64
	}{{10000, 2}, {30000, 5}} {
		spec := fmt.Sprintf("writes/ops=%d/initwrite", c.ops)
		err := b.childRow(fmt.Sprintf("write-only register, %s overlapping writes, one of the initial value", thousandsInt(c.ops)), spec,
			fmt.Sprintf("≤ %g s", c.limit), time.Minute, 0, b.o.pTimeout, func(h, _ childResult) bool {
				return h.Verdict == "true" && h.Seconds <= c.limit
			})
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) budgetRows() error {
	spec := "hard/writers=60"
	t := b.o.budgetTime
	err := b.childRow(fmt.Sprintf("beyond any budget, --timeout %s", t), spec, "unknown at the timeout", t, 0, t,
		func(h, _ childResult) bool {
			return h.Verdict == "unknown" && h.Seconds < t.Seconds()+1
		})
	if err != nil {
		return err
	}
	mem := b.o.budgetMemory
	return b.childRow(fmt.Sprintf("beyond any budget, --max-memory %s, no timeout", bytes(uint64(mem))), spec,
		"unknown at the memory limit", 0, mem, b.o.pTimeout,
		func(h, _ childResult) bool {
			return h.Verdict == "unknown" && strings.HasPrefix(h.Reason, "memo exceeded") && h.PeakRSS < 3*mem+(256<<20)
		})
}

func dur(d time.Duration) string { return durSeconds(d.Seconds()) }

func durSeconds(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.1f ms", s*1e3)
	}
	return fmt.Sprintf("%.0f µs", s*1e6)
}

// bytes writes a size in powers of 1024, labelled as such.
func bytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
