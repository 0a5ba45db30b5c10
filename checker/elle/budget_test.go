package elle_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/report"
	"github.com/histcheck/histcheck/sim"
)

// TestHugeSCCTinyBudget gives the cycle search of the huge-scc history a
// budget far too small to find its cycle: strict serializability is still
// decided, false, by the component that proves a cycle exists; read
// committed still holds, since no ww, wr cycle exists; and only a
// question whose answer depends on the cycle's class, such as whether
// the history has a G-single, stays unknown.
func TestHugeSCCTinyBudget(t *testing.T) {
	h := readHistory(t, "huge-scc.edn", sccRing(200, 10))
	a, err := elle.Analyze(context.Background(), h, elle.ListAppend, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Unsearched) == 0 {
		t.Fatal("the search finished within a budget of 10 nodes")
	}
	for _, l := range []string{ss, ser, si, rr} {
		res := verdict(t, a, h, l)
		if res.Valid != checker.False {
			t.Fatalf("%s: %v, want false (%s)", l, res.Valid, res.Reason)
		}
		v := res.Violations[0]
		if v.Pattern != "cycle-exists" || v.Anomaly == nil || v.Anomaly.Component < 200 || len(v.Ops) == 0 {
			t.Fatalf("%s: %+v, want the component as proof", l, v)
		}
		words := report.Explain(h, l, v)
		if !strings.Contains(words, fmt.Sprintf("an SCC of %d transactions proves a cycle exists; its class was not determined within the budget", v.Anomaly.Component)) {
			t.Errorf("%s: %q", l, words)
		}
	}
	for _, l := range []string{rc, ru} {
		if res := verdict(t, a, h, l); res.Valid != checker.True {
			t.Errorf("%s: %v, want true", l, res.Valid)
		}
	}
	for _, c := range []struct {
		ask  string
		want checker.Verdict
	}{
		{"G-single", checker.Unknown},    // the cycle may have more rw dependencies
		{"G-nonadjacent", checker.False}, // it has nonadjacent ones, G-single or not
		{"G2-item", checker.False},
		{"G1c", checker.True}, // no ww, wr cycle at all
	} {
		res, err := a.ResultAnomalies(h, []string{c.ask})
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid != c.want {
			t.Errorf("%s: %v, want %v (%s)", c.ask, res.Valid, c.want, res.Reason)
		}
	}
	// With the default budget the search finds the G-single itself.
	full := analyze(t, h, elle.ListAppend)
	if res, _ := full.ResultAnomalies(h, []string{"G-single"}); res.Valid != checker.False {
		t.Errorf("G-single with the default budget: %v", res.Valid)
	}
}

// countdown is a context whose Err turns to Canceled after a number of
// calls: a deterministic stand-in for a deadline that passes during a
// search.
type countdown struct {
	context.Context
	left atomic.Int64
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestSearchStopsOnContext cancels the context once the search is under
// way: a search in a huge component stops inside its path search rather
// than run to its end, and the components still decide the levels.
func TestSearchStopsOnContext(t *testing.T) {
	h := readHistory(t, "huge-scc.edn", sccRing(200, 10))
	ctx := &countdown{Context: context.Background()}
	ctx.left.Store(2) // Analyze's own look before the search, and one more
	a, err := elle.Analyze(ctx, h, elle.ListAppend, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Unsearched) == 0 {
		t.Fatal("the search ran to its end with its context cancelled")
	}
	if res := verdict(t, a, h, ss); res.Valid != checker.False {
		t.Errorf("strict-serializable: %v, want false", res.Valid)
	}
}

// TestBudgetNeverMisleads checks generated histories (serializable, snapshot
// isolation, read committed and a broken store; list-append and
// rw-register; crashed and failed transactions) with budgets from tiny to
// ample: every level's verdict is the one the full search gives, decided
// by the components where the search gave up.
func TestBudgetNeverMisleads(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	for _, iso := range sim.Isolations {
		for seed := uint32(1); seed <= uint32(seeds); seed++ {
			for _, registers := range []bool{false, true} {
				o := sim.TxnOptions{Txns: 200 + int(seed)*30, Clients: 2 + int(seed%5), Keys: 1 + int(seed%3), WritesPerKey: 3 + int(seed%7),
					MaxLength: 1 + int(seed%4), Registers: registers, Isolation: iso, FailRate: 0.04 * float64(seed%3),
					CrashRate: 0.04 * float64(seed%2), Seed: seed}
				h, err := sim.Txns(o)
				if err != nil {
					t.Fatal(err)
				}
				w := elle.ListAppend
				if registers {
					w = elle.RWRegister
				}
				full := analyze(t, h, w)
				for _, budget := range []int64{1, 10, 50, 400} {
					a, err := elle.Analyze(context.Background(), h, w, budget)
					if err != nil {
						t.Fatal(err)
					}
					for _, l := range elle.Levels {
						want, got := verdict(t, full, h, l).Valid, verdict(t, a, h, l).Valid
						if want == checker.Unknown {
							t.Fatalf("%s seed %d: the full search left %s unknown", iso, seed, l)
						}
						// Every level rules out all the classes of a
						// subgraph or none: the components decide it.
						if got != want {
							t.Errorf("%s seed %d registers %v budget %d: %s %v, full search %v", iso, seed, registers, budget, l, got, want)
						}
					}
				}
			}
		}
	}
	if !slices.Contains(sim.Isolations, sim.IsoBroken) {
		t.Fatal("the generator lost its broken store")
	}
}
