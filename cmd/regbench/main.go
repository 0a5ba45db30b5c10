// Command regbench times histcheck's register engine (checker/regdp) and
// Porcupine on a deterministic family of single-register histories with
// many concurrent clients and few distinct values, each history under a
// time budget, and prints a Markdown table of who answered and in what
// time. With -plot it also draws the times as a PNG.
//
//	regbench -budget 10s -goal-budget 60s -plot many-clients.png
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/regdp"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/sim"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "regbench:", err)
		os.Exit(1)
	}
}

// Row is one history of the family.
type Row struct {
	Clients int
	Ops     int
	Crash   float64 // probability an operation crashes; about that share of writes crash
	Invalid bool    // one stale read injected
	Goal    bool    // the goal row: Porcupine gets the longer budget
	Seed    uint32
}

func (r Row) variant() string {
	if r.Invalid {
		return "invalid"
	}
	return "valid"
}

// Outcome is what each checker said about one row.
type Outcome struct {
	Row
	Reads, Writes, CrashedWrites int
	Ours                         checker.Verdict
	OursTime                     time.Duration
	OursNote                     string
	Porc                         checker.Verdict
	PorcTime                     time.Duration
	PorcBudget                   time.Duration
}

// Family returns the benchmark family: clients 8, 16, 32, 64 with 500,
// 2,000 and 10,000 operations at 1% crashes, the goal size (32 clients,
// 2,000 operations) also at 0% and 2%, and 64 clients with 10,000
// operations at 2%; each valid and with one stale read injected.
func Family() []Row {
	var rows []Row
	add := func(c, n int, crash float64, goal bool) {
		for _, inv := range []bool{false, true} {
			rows = append(rows, Row{Clients: c, Ops: n, Crash: crash, Invalid: inv, Goal: goal, Seed: uint32(c*100003 + n)})
		}
	}
	for _, c := range []int{8, 16, 32, 64} {
		for _, n := range []int{500, 2000, 10000} {
			add(c, n, 0.01, c == 32 && n == 2000)
		}
	}
	add(32, 2000, 0, false)
	add(32, 2000, 0.02, false)
	add(64, 10000, 0.02, false)
	return rows
}

// Generate builds a row's history: sim.Random's register workload, one
// key, values drawn from 1 to 5 (the register starts at 0), each client one
// operation at a time with random durations, and for the invalid variant
// sim's stale-read gadget (a read returning a value overwritten before the
// read was called).
func Generate(r Row) (*history.History, error) {
	an := "none"
	if r.Invalid {
		an = "stale-read"
	}
	return sim.Random(sim.RandomOptions{Ops: r.Ops, Clients: r.Clients, Keys: 1, Model: "register",
		CrashRate: r.Crash, Anomaly: an, Seed: r.Seed})
}

// Measure runs both checkers on one row.
func Measure(r Row, budget, porcBudget time.Duration) (Outcome, error) {
	out := Outcome{Row: r, PorcBudget: porcBudget}
	h, err := Generate(r)
	if err != nil {
		return out, err
	}
	for i := range h.Ops {
		o := &h.Ops[i]
		switch {
		case o.F == "read" && o.Status == history.OK:
			out.Reads++
		case o.F == "write" && o.Status == history.Info:
			out.CrashedWrites++
			out.Writes++
		case o.F == "write":
			out.Writes++
		}
	}
	init := h.Meta["init"]
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	start := time.Now()
	res, err := regdp.Check(ctx, h, regdp.Options{Init: init})
	out.OursTime = time.Since(start)
	cancel()
	if err != nil {
		return out, err
	}
	out.Ours = res.Valid
	if res.Valid == checker.Unknown {
		out.OursNote = res.Reason
	}
	runtime.GC()
	start = time.Now()
	out.Porc = porcupineCheck(h, init, porcBudget)
	out.PorcTime = time.Since(start)
	runtime.GC()
	want := checker.True
	if r.Invalid {
		want = checker.False
	}
	for _, v := range []checker.Verdict{out.Ours, out.Porc} {
		if v != checker.Unknown && v != want {
			return out, fmt.Errorf("%d clients, %d ops, %s: verdict %v, the generator made it %v", r.Clients, r.Ops, r.variant(), v, want)
		}
	}
	return out, nil
}

// pIn is an operation's input for Porcupine's register model.
type pIn struct {
	write   bool
	value   int64
	unknown bool
}

// porcupineCheck runs Porcupine with its usual register model (integer
// states) the way its users convert histories: failed operations left out,
// an operation of unknown outcome returning at the end of time and
// accepting any output.
func porcupineCheck(h *history.History, init history.Value, budget time.Duration) checker.Verdict {
	i0, _ := init.Int()
	var ops []porcupine.Operation
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Status == history.Fail {
			continue
		}
		v, _ := o.Value.Int()
		in := pIn{write: o.F == "write", value: v, unknown: o.Status == history.Info}
		ops = append(ops, porcupine.Operation{ClientId: o.Process, Input: in, Call: o.Call, Output: v, Return: o.Return})
	}
	m := porcupine.Model{
		Init: func() interface{} { return i0 },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			s := state.(int64)
			in := input.(pIn)
			if in.write {
				return true, in.value
			}
			return in.unknown || output.(int64) == s, s
		},
	}
	done := make(chan porcupine.CheckResult, 1)
	go func() { done <- porcupine.CheckOperationsTimeout(m, ops, budget) }()
	var r porcupine.CheckResult
	select {
	case r = <-done:
	case <-time.After(budget + 5*time.Second):
		return checker.Unknown
	}
	switch r {
	case porcupine.Ok:
		return checker.True
	case porcupine.Illegal:
		return checker.False
	}
	return checker.Unknown
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("regbench", flag.ContinueOnError)
	budget := fs.Duration("budget", 10*time.Second, "time budget per history for each checker")
	goalBudget := fs.Duration("goal-budget", 60*time.Second, "Porcupine's budget on the goal row (32 clients, 2,000 operations, 1% crashes)")
	only := fs.String("rows", "", "comma-separated clients:ops[:crash%] to run, e.g. 32:2000:1 (default: the whole family)")
	plotFile := fs.String("plot", "", "write a PNG plot of the times to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rows, err := selectRows(Family(), *only)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d cores (GOMAXPROCS %d), %s; budget %s per history, Porcupine %s on the goal row\n\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), loadAverage(), *budget, *goalBudget)
	fmt.Fprintln(stdout, "| clients | ops | crash % | reads / writes (crashed) | variant | histcheck (regdp) | porcupine |")
	fmt.Fprintln(stdout, "|---:|---:|---:|---|---|---:|---:|")
	var outs []Outcome
	for _, r := range rows {
		pb := *budget
		if r.Goal {
			pb = *goalBudget
		}
		o, err := Measure(r, *budget, pb)
		if err != nil {
			return err
		}
		outs = append(outs, o)
		fmt.Fprintln(stdout, tableRow(o, *budget))
	}
	fmt.Fprintf(stdout, "\nload after the run: %s\n", loadAverage())
	for _, o := range outs {
		if o.OursNote != "" {
			fmt.Fprintf(stdout, "- %d clients, %d ops, %g%%, %s: %s\n", o.Clients, o.Ops, o.Crash*100, o.variant(), o.OursNote)
		}
	}
	if *plotFile != "" {
		if err := plotOutcomes(outs, *budget, *plotFile); err != nil {
			return err
		}
	}
	return nil
}

func tableRow(o Outcome, budget time.Duration) string {
	ours := "— (" + budget.String() + ")"
	if o.Ours != checker.Unknown {
		ours = fmt.Sprintf("%s %s", seconds(o.OursTime), o.Ours)
	}
	porc := "timeout (" + o.PorcBudget.String() + ")"
	if o.Porc != checker.Unknown {
		porc = fmt.Sprintf("%s %s", seconds(o.PorcTime), o.Porc)
	}
	goal := ""
	if o.Goal {
		goal = " **goal**"
	}
	return fmt.Sprintf("| %d | %d | %g | %d / %d (%d) | %s%s | %s | %s |", o.Clients, o.Ops, o.Crash*100,
		o.Reads, o.Writes, o.CrashedWrites, o.variant(), goal, ours, porc)
}

func seconds(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func selectRows(all []Row, spec string) ([]Row, error) {
	if spec == "" {
		return all, nil
	}
	var out []Row
	for _, part := range strings.Split(spec, ",") {
		var c, n int
		crash := -1.0
		k, _ := fmt.Sscanf(part, "%d:%d:%g", &c, &n, &crash)
		if k < 2 {
			return nil, fmt.Errorf("row %q: want clients:ops or clients:ops:crash%%", part)
		}
		found := false
		for _, r := range all {
			if r.Clients == c && r.Ops == n && (crash < 0 || r.Crash*100 == crash) {
				out = append(out, r)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("row %q is not in the family", part)
		}
	}
	return out, nil
}

// loadAverage reports the machine's load, since other work shares it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "load unknown"
	}
	return "load average " + strings.Join(f[:3], " ")
}

var errNoRows = errors.New("no rows to plot")
