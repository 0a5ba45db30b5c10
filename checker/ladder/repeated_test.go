package ladder_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/checker/session"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/internal/weakref"
	"github.com/histcheck/histcheck/model"
)

// repeatedHistories is how many random histories with repeated values
// TestRepeatedValuesAgreeWithBruteForce checks (a fifth with -short).
const repeatedHistories = 10000

// TestRepeatedValuesAgreeWithBruteForce compares every weak criterion's
// checker, which searches the choices of which write each read of a
// repeated value read, with the brute force of package weakref, which
// tries every such choice and every choice of the writes of unknown
// outcome that took effect, on seeded random histories whose values
// repeat (the initial value written again too), with crashed and failed
// operations, ties of times, nil reads and cas (half the histories). The
// reads-from a checker gives for a verdict true is checked too: the
// history relabelled by it (causal.Relabel: a value of its own per write,
// each read the value of the write it was given) must satisfy the
// criterion by the brute force, and by the checker without a search.
func TestRepeatedValuesAgreeWithBruteForce(t *testing.T) {
	n := repeatedHistories
	if testing.Short() {
		n /= 5
	}
	rng := rand.New(rand.NewPCG(24, 2026))
	ambiguous, cas, yes, no, large := 0, 0, 0, 0, 0
	for i := 0; i < n; i++ {
		cfg := randhist.WeakConfig{CrashRate: 0.15, FailRate: 0.05, Values: 1 + rng.IntN(3), Ops: 3 + rng.IntN(8)}
		if i%2 == 1 {
			cfg.CASRate = 0.4
		}
		h, init := randhist.ReadWrite(rng, cfg)
		p, err := causal.PrepareFor(h, casInfo, init, causal.PreferValues)
		if err != nil {
			t.Fatal(err)
		}
		chose := p.Ambiguous()
		for _, c := range weakref.Criteria {
			want, res, ok := agree(t, i, h, init, c, casEngine)
			if !ok {
				large++
				break
			}
			if want {
				yes++
				checkReadsFrom(t, h, init, c, res, i)
				again, err := casEngine(causal.Relabel(h, casInfo, init, res.ReadsFrom, res.Dropped), init, c)
				if err != nil || again.Valid != checker.True || len(again.ReadsFrom) > 0 {
					t.Fatalf("history %d, %s: relabelled by its witness %v, the checker says %s (%v, %s)\n%s", i, c, res.ReadsFrom, again.Valid, err, again.Reason, text(h, init))
				}
			} else {
				no++
			}
		}
		if chose {
			ambiguous++
		}
		if hasCAS(h) {
			cas++
		}
	}
	t.Logf("%d histories (%d too large for the brute force), %d with an ambiguous reads-from, %d with a cas; %d verdicts true, %d false", n, large, ambiguous, cas, yes, no)
	if large > n/50 {
		t.Fatalf("%d histories are too large for the brute force", large)
	}
	if ambiguous < n/4 || cas < n/5 || yes < n || no < n {
		t.Fatalf("the generator is too narrow: %d ambiguous histories, %d with a cas, %d true, %d false", ambiguous, cas, yes, no)
	}
}

// checkReadsFrom relabels h as the checker's reads-from says and checks
// that the brute force finds the criterion holds on it.
func checkReadsFrom(t *testing.T, h *history.History, init history.Value, c string, res checker.Result, i int) {
	t.Helper()
	rf := res.ReadsFrom
	r := causal.Relabel(h, casInfo, init, rf, res.Dropped)
	holds, err := weakref.Decide(r, init, c)
	if err != nil || !holds {
		t.Fatalf("history %d, %s: the reads-from %v given as witness does not hold (%v)\n%s\nrelabelled:\n%s", i, c, rf, err, text(h, init), text(r, init))
	}
}

// casInfo classes reads, writes and cas.
var casInfo = model.NewCASRegister(model.Options{}).Info()

// casEngine decides c with the checker, reads, writes and cas told apart by
// the cas register's model.
func casEngine(h *history.History, init history.Value, c string) (checker.Result, error) {
	switch c {
	case checker.Causal, checker.CausalMemory, checker.CausalConvergence:
		return causal.Check(context.Background(), h, c, causal.Options{Init: init, Model: casInfo})
	}
	return session.Check(context.Background(), h, c, session.Options{Init: init, Model: casInfo})
}

func hasCAS(h *history.History) bool {
	for _, o := range h.Ops {
		if o.F == "cas" && o.Status != history.Fail {
			return true
		}
	}
	return false
}
