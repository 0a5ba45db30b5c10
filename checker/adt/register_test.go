package adt

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/checker/session"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// registerCheck decides criterion on a read/write history with the
// register checkers.
func registerCheck(h *history.History, criterion string, init history.Value) (checker.Result, error) {
	if criterion == checker.PRAM || containsCrit(session.Criteria, criterion) {
		return session.Check(context.Background(), h, criterion, session.Options{Init: init})
	}
	return causal.Check(context.Background(), h, criterion, causal.Options{Init: init})
}

func containsCrit(cs []string, c string) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

// keyed reports whether some operation of h names a key.
func keyed(h *history.History) bool {
	for i := range h.Ops {
		if !h.Ops[i].Key.IsNone() {
			return true
		}
	}
	return false
}

// TestAgreesWithRegisterCheckers compares every criterion with the
// register checkers on random read/write histories of unique values,
// with crashed and failed operations and tied times.
func TestAgreesWithRegisterCheckers(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewPCG(24, 7))
	counts := map[string]int{}
	for i := 0; i < n; i++ {
		h, init := randhist.ReadWrite(r, randhist.WeakConfig{CrashRate: 0.15, FailRate: 0.1})
		mopts := model.Options{Init: init}
		if keyed(h) {
			compareAll(t, model.NewKV(mopts), h, init, i, counts)
		} else {
			compareAll(t, model.NewRegister(mopts), h, init, i, counts)
		}
	}
	t.Logf("verdicts compared: %v", counts)
}

// checkVerified runs Check (the search alone when noSeq) and verifies a
// witness.
func checkVerified[S comparable](t *testing.T, m model.Model[S], h *history.History, crit string, noSeq bool) (checker.Result, error) {
	t.Helper()
	res, err := Check(context.Background(), m, h, crit, Options{NoSequentialFirst: noSeq})
	if err != nil || res.Valid != checker.True {
		return res, err
	}
	if verr := VerifyWitness(m, h, crit, res); verr != nil {
		t.Errorf("%s witness does not verify: %v\n%s", crit, verr, dump(h))
	}
	return res, nil
}

func dump(h *history.History) string {
	s := ""
	for i := range h.Ops {
		s += h.Ops[i].Label() + " " + h.Ops[i].Status.String() + "\n"
	}
	return s
}

// orderedRegister draws a register history whose reads return values some
// write wrote (or the initial 0), so that most violations are about order
// rather than values nobody wrote: 2 or 3 processes, unique values,
// writes of unknown outcome now and then.
func orderedRegister(r *rand.Rand) *history.History {
	procs := 2 + r.IntN(2)
	n := 4 + r.IntN(5)
	var steps []step
	next := int64(1)
	var written []int64
	for i := 0; i < n; i++ {
		p := r.IntN(procs)
		if r.IntN(2) == 0 {
			st := history.OK
			if r.IntN(8) == 0 {
				st = history.Info
			}
			steps = append(steps, step{p, "write", i64(next), st})
			written = append(written, next)
			next++
			continue
		}
		v := int64(0)
		if len(written) > 0 && r.IntN(5) > 0 {
			v = written[r.IntN(len(written))]
		}
		steps = append(steps, step{p, "read", i64(v), history.OK})
	}
	// A process issues nothing after an operation of unknown outcome.
	seenInfo := map[int]bool{}
	var out []step
	for _, s := range steps {
		if !seenInfo[s.proc] {
			out = append(out, s)
		}
		seenInfo[s.proc] = seenInfo[s.proc] || s.status == history.Info
	}
	return build(out)
}

// TestAgreesOnOrder compares with the register checkers on histories
// whose violations are mostly about order.
func TestAgreesOnOrder(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewPCG(24, 8))
	counts := map[string]int{}
	init := i64(0)
	m := model.NewRegister(model.Options{Init: init})
	for i := 0; i < n; i++ {
		compareAll(t, m, orderedRegister(r), init, i, counts)
	}
	t.Logf("verdicts compared: %v", counts)
}

// compareAll decides every criterion on history number i with Check (the
// search alone for odd i) and with the register checkers, and counts the
// verdicts (and the patterns of Check's refutations); decided verdicts
// must agree.
func compareAll[S comparable](t *testing.T, m model.Model[S], h *history.History, init history.Value, i int, counts map[string]int) {
	t.Helper()
	for _, crit := range Criteria {
		want, err := registerCheck(h, crit, init)
		if err != nil || want.Valid == checker.Unknown {
			continue
		}
		got, err := checkVerified(t, m, h, crit, i%2 == 1)
		if err != nil {
			t.Fatalf("history %d %s: %v", i, crit, err)
		}
		if got.Valid == checker.Unknown {
			t.Errorf("history %d, %s: unknown (%s)\n%s", i, crit, got.Reason, dump(h))
			continue
		}
		counts[crit+" "+want.Valid.String()]++
		if len(got.Violations) > 0 {
			counts[got.Violations[0].Pattern]++
		}
		if got.Valid != want.Valid {
			t.Errorf("history %d, %s: adt says %s (%s), the register checker %s\n%s", i, crit, got.Valid, got.Reason, want.Valid, dump(h))
		}
	}
}
