package regdp_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/checker/regdp"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// casModel is the model the other checkers are given for opts.
func casModel(opts regdp.Options) model.Model[int64] { return modelFor(opts, model.NewCASRegister) }

// TestCASAgainstReference compares the compare-and-set sweep with the
// exact reference checker on small random cas-register histories.
func TestCASAgainstReference(t *testing.T) {
	variants := []struct {
		name string
		cfg  randhist.Config
		opts regdp.Options
		n    int
	}{
		{"default", randhist.Default("cas-register"), regdp.Options{}, 3000},
		{"many-clients", randhist.Config{Model: "cas-register", Ops: 10, Processes: 8, Values: 3, CrashRate: 0.1, FailRate: 0.1, Corrupt: 0.6}, regdp.Options{}, 2000},
		{"two-values", randhist.Config{Model: "cas-register", Ops: 11, Processes: 5, Values: 2, CrashRate: 0.25, FailRate: 0.1, Corrupt: 0.6}, regdp.Options{}, 2000},
		{"five-values-ties", randhist.Config{Model: "cas-register", Ops: 10, Processes: 6, Values: 5, CrashRate: 0.15, FailRate: 0.1, Corrupt: 0.6, Ties: 2}, regdp.Options{}, 3000},
		{"init", randhist.Config{Model: "cas-register", Ops: 9, Processes: 4, Values: 3, Init: history.IntValue(1), CrashRate: 0.15, Corrupt: 0.6}, regdp.Options{Init: history.IntValue(1)}, 1000},
		{"nil-any", randhist.Config{Model: "cas-register", Ops: 9, Processes: 4, Values: 2, CrashRate: 0.15, FailRate: 0.1, Corrupt: 0.6}, regdp.Options{NilAny: true}, 1000},
	}
	for vi, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			counts := map[checker.Verdict]int{}
			for seed := 0; seed < v.n; seed++ {
				r := rand.New(rand.NewPCG(uint64(seed), uint64(vi)+211))
				cfg := v.cfg
				if cfg.Ops == 0 {
					cfg.Ops = 3 + r.IntN(10)
				}
				h := randhist.CASRegister(r, cfg)
				if v.opts.NilAny && r.IntN(2) == 0 {
					nilReads(r, h)
				}
				if h.RealTime().Touching {
					// The caller orders touching operations (see Check).
					continue
				}
				ref, err := reference.Linearizable(context.Background(), casModel(v.opts), h)
				if err != nil {
					t.Fatalf("seed %d: reference: %v", seed, err)
				}
				checkCASAgainst(t, fmt.Sprintf("seed %d", seed), h, v.opts, ref.Valid)
				counts[ref.Valid]++
			}
			if n := counts[checker.True] + counts[checker.False]; n < v.n/4 || counts[checker.True] < n/10 || counts[checker.False] < n/10 {
				t.Errorf("verdicts too one-sided: %v", counts)
			}
			t.Logf("%v", counts)
		})
	}
}

// checkCASAgainst runs the sweep on h, verifies its witness or violation
// prefix, and compares the verdict with want.
func checkCASAgainst(t *testing.T, name string, h *history.History, opts regdp.Options, want checker.Verdict) checker.Result {
	t.Helper()
	got, err := regdp.Check(context.Background(), h, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	verifyCAS(t, name, h, opts, got, want)
	return got
}

// verifyCAS compares the sweep's verdict got on h with want, and verifies
// its witness or violation prefix.
func verifyCAS(t *testing.T, name string, h *history.History, opts regdp.Options, got checker.Result, want checker.Verdict) {
	t.Helper()
	if got.Valid != want {
		t.Fatalf("%s: regdp says %v (%s), want %v\n%s", name, got.Valid, got.Reason, want, dump(h))
	}
	m := casModel(opts)
	switch got.Valid {
	case checker.True:
		if err := checker.VerifyWitness(m, h, got.Witness, checker.RealTime); err != nil {
			t.Fatalf("%s: witness %v: %v\n%s", name, got.Witness, err, dump(h))
		}
	case checker.False:
		if len(got.Violations) != 1 || len(got.Violations[0].Ops) == 0 {
			t.Fatalf("%s: violation without operations: %+v", name, got.Violations)
		}
		if err := verifyPrefix(m, h, got.Violations[0].Prefix); err != nil {
			t.Fatalf("%s: prefix %v: %v\n%s", name, got.Violations[0].Prefix, err, dump(h))
		}
	}
}

// TestCASAgainstLinear compares the compare-and-set sweep with the
// Wing–Gong engine on medium cas-register histories: up to 12 clients,
// values from 2 to 5, crashed and failed operations, tied times, and one
// operation altered four times in five.
func TestCASAgainstLinear(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 400
	}
	counts := map[checker.Verdict]int{}
	ops := 0
	for seed := 0; seed < n; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 307))
		cfg := randhist.Config{Model: "cas-register", Ops: 30 + r.IntN(91), Processes: 3 + r.IntN(10), Values: 2 + r.IntN(4),
			Init: history.IntValue(0), CrashRate: 0.05, FailRate: 0.1, Corrupt: 0.8, Ties: 1 + r.IntN(2)}
		h := randhist.CASRegister(r, cfg)
		if h.RealTime().Touching {
			continue
		}
		opts := regdp.Options{Init: history.IntValue(0)}
		want, err := linear.Check(context.Background(), casModel(opts), h, linear.Options{Workers: 1, NoZones: true})
		if err != nil || want.Valid == checker.Unknown {
			t.Fatalf("seed %d: linear: %v %s", seed, err, want.Reason)
		}
		checkCASAgainst(t, fmt.Sprintf("seed %d", seed), h, opts, want.Valid)
		counts[want.Valid]++
		ops += len(h.Ops)
	}
	t.Logf("%d operations", ops)
	if m := counts[checker.True] + counts[checker.False]; m < n/3 || counts[checker.True] < m/5 || counts[checker.False] < m/5 {
		t.Errorf("too few or too one-sided: %v", counts)
	}
	t.Logf("%v", counts)
}
