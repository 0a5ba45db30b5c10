package regdp_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/checker/regdp"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/sim"
)

// narrowings are bounds of the narrow pass tight enough to cut the
// frontiers and gaps of small histories: configurations per frontier, and
// per gap.
var narrowings = [][2]int{{1, 1}, {1, 3}, {2, 8}, {3, 30}}

// windows are the spans, in events, of the windows that confirm where a
// narrow pass stopped: short enough for small histories.
var windows = []int{2, 6, 20}

// narrowTally counts how often a narrow pass alone got through a
// linearizable history, and how often it did not; and how often, on one
// that is not, windows confirmed where it stopped, and how often not.
type narrowTally struct{ through, stuck, confirmed, unconfirmed int }

// checkNarrowOn runs the narrow pass alone (with windows) and then narrow
// and exact on h with each of the narrowings, against the verdict want:
// the narrow pass alone may say true only when want is true (with a
// witness that verifies) and false only when want is false (with a
// violation whose prefix verifies); narrow then exact must give want.
func checkNarrowOn(t *testing.T, name string, h *history.History, opts regdp.Options, want checker.Verdict, tally *narrowTally) {
	t.Helper()
	if !hasCAS(h) {
		return // the read/write sweep decides it, without passes
	}
	for _, nw := range narrowings {
		label := fmt.Sprintf("%s, narrow %v", name, nw)
		got, err := regdp.CheckNarrow(context.Background(), h, opts, nw[0], nw[1], windows, false)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		switch {
		case got.Valid == checker.True:
			verifyCAS(t, label+" alone", h, opts, got, want)
			tally.through++
		case got.Valid == checker.False:
			verifyCAS(t, label+" alone", h, opts, got, want)
			tally.confirmed++
		case want == checker.True:
			tally.stuck++
		default:
			tally.unconfirmed++
		}
		got, err = regdp.CheckNarrow(context.Background(), h, opts, nw[0], nw[1], windows, true)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		verifyCAS(t, label+" then exact", h, opts, got, want)
	}
}

// TestNarrowAgainstReference compares the narrow pass, alone and followed
// by the exact one, with the exact reference checker on small random
// cas-register histories: many clients, two values with many crashes, and
// five values with tied times.
func TestNarrowAgainstReference(t *testing.T) {
	variants := []struct {
		name string
		cfg  randhist.Config
		n    int
	}{
		{"many-clients", randhist.Config{Model: "cas-register", Ops: 11, Processes: 8, Values: 3, CrashRate: 0.1, FailRate: 0.1, Corrupt: 0.6}, 1500},
		{"two-values-crashes", randhist.Config{Model: "cas-register", Ops: 11, Processes: 6, Values: 2, CrashRate: 0.3, FailRate: 0.1, Corrupt: 0.6}, 1500},
		{"five-values-ties", randhist.Config{Model: "cas-register", Ops: 10, Processes: 6, Values: 5, CrashRate: 0.15, FailRate: 0.1, Corrupt: 0.6, Ties: 2}, 1500},
	}
	var tally narrowTally
	for vi, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			n := v.n
			if testing.Short() {
				n /= 3
			}
			counts := map[checker.Verdict]int{}
			for seed := 0; seed < n; seed++ {
				r := rand.New(rand.NewPCG(uint64(seed), uint64(vi)+401))
				h := randhist.CASRegister(r, v.cfg)
				if h.RealTime().Touching {
					continue
				}
				ref, err := reference.Linearizable(context.Background(), casModel(regdp.Options{}), h)
				if err != nil {
					t.Fatalf("seed %d: reference: %v", seed, err)
				}
				checkNarrowOn(t, fmt.Sprintf("seed %d", seed), h, regdp.Options{}, ref.Valid, &tally)
				counts[ref.Valid]++
			}
			if counts[checker.True] < n/10 || counts[checker.False] < n/10 {
				t.Errorf("verdicts too one-sided: %v", counts)
			}
			t.Logf("%v", counts)
		})
	}
	// All must happen for the test to say anything: narrow passes that
	// got through (their witnesses checked) and ones the bounds stopped;
	// windows that confirmed a violation (checked) and ones that did not.
	least := 300 // of each, and three times as many passes through and confirmed
	if testing.Short() {
		least = 100
	}
	if tally.through < 3*least || tally.stuck < least || tally.confirmed < 3*least || tally.unconfirmed < least {
		t.Errorf("narrow passes %+v: the bounds do not cut, or the windows do not confirm", tally)
	}
	t.Logf("narrow passes %+v", tally)
}

// TestNarrowManyClients compares the sweep's default (narrow, then exact)
// and tight narrow passes with the exact pass alone on cas-register
// histories of 16 to 48 clients: values from 2 to 5 repeated, crashed and
// failed writes and compare-and-sets, tied times, and one operation
// altered four times in five; and on sim's random workload at 32 clients,
// valid and with a stale read.
func TestNarrowManyClients(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 40
	}
	var hs []*history.History
	for seed := 0; seed < n; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 409))
		cfg := randhist.Config{Model: "cas-register", Ops: 100 + r.IntN(400), Processes: 16 + r.IntN(33), Values: 2 + r.IntN(4),
			Init: history.IntValue(0), CrashRate: 0.05, FailRate: 0.1, Corrupt: 0.8, Ties: 1 + r.IntN(2)}
		if h := randhist.CASRegister(r, cfg); !h.RealTime().Touching {
			hs = append(hs, h)
		}
	}
	for _, anomaly := range []string{"none", "stale-read", "lost-update"} {
		h, err := sim.Random(sim.RandomOptions{Ops: 600, Clients: 32, Model: "cas-register", CrashRate: 0.02, Anomaly: anomaly, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	opts := regdp.Options{Init: history.IntValue(0)}
	counts := map[checker.Verdict]int{}
	var tally narrowTally
	for i, h := range hs {
		name := fmt.Sprintf("history %d", i)
		exact, err := regdp.CheckNarrow(context.Background(), h, opts, 0, 0, nil, true)
		if err != nil || exact.Valid == checker.Unknown {
			t.Fatalf("%s: exact: %v %s", name, err, exact.Reason)
		}
		verifyCAS(t, name+" exact", h, opts, exact, exact.Valid)
		checkCASAgainst(t, name+" default", h, opts, exact.Valid)
		checkNarrowOn(t, name, h, opts, exact.Valid, &tally)
		counts[exact.Valid]++
	}
	if counts[checker.True] < len(hs)/5 || counts[checker.False] < len(hs)/8 {
		t.Errorf("verdicts too one-sided: %v", counts)
	}
	t.Logf("%v; narrow passes %+v", counts, tally)
}

// hasCAS reports whether h has a compare-and-set, failed or not: the
// compare-and-set sweep then decides it.
func hasCAS(h *history.History) bool {
	for i := range h.Ops {
		if h.Ops[i].F == "cas" {
			return true
		}
	}
	return false
}
