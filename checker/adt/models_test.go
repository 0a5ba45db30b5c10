package adt

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// modelCase draws random histories of one model and checks them.
type modelCase struct {
	name string
	gen  func(r *rand.Rand, cfg randhist.Config) *history.History
	run  func(t *testing.T, h *history.History, tally map[string]int)
}

func caseOf[S comparable](name string, gen func(*rand.Rand, randhist.Config) *history.History, newModel func(model.Options) model.Model[S]) modelCase {
	return modelCase{name: name, gen: gen, run: func(t *testing.T, h *history.History, tally map[string]int) {
		selfConsistent(t, name, newModel(model.Options{}), h, tally)
	}}
}

func mutexHistory(r *rand.Rand, cfg randhist.Config) *history.History {
	cfg.Model = "mutex"
	h, err := randhist.New(r, cfg)
	if err != nil {
		panic(err)
	}
	return h
}

// TestModels checks random histories of every model the weak criteria
// are bound to (not the unordered queue: which element its dequeue
// removes is the dequeue's output, so hiding it leaves the effect to the
// model's rule for unknown outcomes, and a sequential order need not be a
// witness): each criterion's search alone and with the sequential
// witness first agree, every witness verifies, a sequentially consistent
// history passes every criterion, and the implications that hold by
// definition (causal-memory and causal-convergence each imply causal)
// hold, and so does causal-memory ⇒ pram (hidden steps are total, so a
// view may hold a refused acquire).
func TestModels(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 25
	}
	cases := []modelCase{
		caseOf("set", randhist.Set, model.NewSet),
		caseOf("fifo-queue", randhist.FIFOQueue, model.NewFIFOQueue),
		caseOf("counter", randhist.Counter, model.NewCounter),
		caseOf("lock", randhist.Lock, model.NewLock),
		caseOf("mutex", mutexHistory, model.NewMutex),
		caseOf("fenced-register", randhist.FencedRegister, model.NewFencedRegister),
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(24, uint64(len(c.name))))
			tally := map[string]int{}
			for i := 0; i < n; i++ {
				cfg := randhist.Config{Ops: 4 + r.IntN(6), CrashRate: 0.1, FailRate: 0.05, Corrupt: 0.8}
				c.run(t, c.gen(r, cfg), tally)
			}
			t.Logf("%s: %v", c.name, tally)
		})
	}
}

// selfConsistent checks one history as TestModels says.
func selfConsistent[S comparable](t *testing.T, name string, m model.Model[S], h *history.History, tally map[string]int) {
	t.Helper()
	seq, err := sequential.Check(context.Background(), m, h, sequential.Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	got := map[string]checker.Verdict{}
	for _, crit := range Criteria {
		both := [2]checker.Result{}
		for k, noSeq := range []bool{false, true} {
			res, err := checkVerified(t, m, h, crit, noSeq)
			if err != nil {
				t.Fatalf("%s %s: %v", name, crit, err)
			}
			both[k] = res
		}
		a, b := both[0].Valid, both[1].Valid
		if a != checker.Unknown && b != checker.Unknown && a != b {
			t.Errorf("%s %s: %s with the sequential witness first, %s by its search\n%s", name, crit, a, b, dump(h))
		}
		if seq.Valid == checker.True && a != checker.True {
			t.Errorf("%s %s: %s although sequentially consistent\n%s", name, crit, a, dump(h))
		}
		got[crit] = b
		tally[fmt.Sprintf("%s %s", crit, b)]++
	}
	for _, strong := range []string{checker.CausalMemory, checker.CausalConvergence} {
		if got[strong] == checker.True && got[checker.Causal] == checker.False {
			t.Errorf("%s: %s holds but causal fails\n%s", name, strong, dump(h))
		}
	}
	if got[checker.CausalMemory] == checker.True && got[checker.PRAM] == checker.False {
		t.Errorf("%s: causal-memory holds but pram fails\n%s", name, dump(h))
	}
}
