package checker

import (
	"fmt"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Order says which order a witness must respect besides the model.
type Order uint8

// Orders a witness can be checked against.
const (
	// RealTime: an operation that returned before another was called comes
	// first (linearizability).
	RealTime Order = iota
	// ProcessOrder: each process's operations keep their order (sequential
	// consistency).
	ProcessOrder
)

// VerifyWitness checks, independently of any search, that order is a
// witness for h under m: every operation that completed ok appears exactly
// once, operations of unknown outcome at most once, failed ones never; the
// order respects ord; and replaying it step by step from the initial state
// (per key, for keyed models) is legal in the model. It returns nil or an
// error that says which condition broke first.
func VerifyWitness[S comparable](m model.Model[S], h *history.History, order []int, ord Order) error {
	if err := witnessMembers(h, order); err != nil {
		return err
	}
	rt := h.RealTime()
	if err := witnessOrder(h, rt, order, ord); err != nil {
		return err
	}
	return witnessReplay(m, h, rt, order)
}

// witnessMembers checks which operations the witness lists: each that
// exists at most once, every completed one, no failed one.
func witnessMembers(h *history.History, order []int) error {
	seen := make([]bool, len(h.Ops))
	for n, i := range order {
		if i < 0 || i >= len(h.Ops) {
			return fmt.Errorf("witness step %d names operation %d, which does not exist", n+1, i)
		}
		if seen[i] {
			return fmt.Errorf("witness lists %s twice", h.Ops[i].Label())
		}
		seen[i] = true
		if h.Ops[i].Status == history.Fail {
			return fmt.Errorf("witness lists %s, which failed", h.Ops[i].Label())
		}
	}
	for i := range h.Ops {
		if h.Ops[i].Status == history.OK && !seen[i] {
			return fmt.Errorf("witness leaves out %s, which completed", h.Ops[i].Label())
		}
	}
	return nil
}

// witnessOrder checks the order constraints by comparing every pair in
// the witness (quadratic, but this is a checker of checkers; clarity
// wins). A process's operations are in its order in h.Ops.
func witnessOrder(h *history.History, rt history.RealTime, order []int, ord Order) error {
	for a := 0; a < len(order); a++ {
		x := &h.Ops[order[a]]
		for b := a + 1; b < len(order); b++ {
			y := &h.Ops[order[b]]
			switch {
			case x.Process == y.Process && order[b] < order[a]:
				return fmt.Errorf("witness puts %s before %s, against their process's order", x.Label(), y.Label())
			case ord == RealTime && x.Client == y.Client && y.Status != history.Info && order[b] < order[a]:
				// A client runs one operation after another: one it
				// completed comes before what it did next.
				return fmt.Errorf("witness puts %s before %s, against their client's order", x.Label(), y.Label())
			case ord == RealTime && rt.Spans[order[b]].Return < rt.Spans[order[a]].Call:
				return fmt.Errorf("witness puts %s before %s, but %s returned (at %d) before %s was called (at %d)",
					x.Label(), y.Label(), y.Label(), y.Return, x.Label(), x.Call)
			}
		}
	}
	return nil
}

// witnessReplay replays the witness in the model, one state per key for
// keyed models. Every operation is compiled first, so that the table is
// complete before Init and a model.Finisher sees them all.
func witnessReplay[S comparable](m model.Model[S], h *history.History, rt history.RealTime, order []int) error {
	t := model.NewTable()
	var all []model.Op
	var pos []int
	at := make([]int, len(h.Ops))
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Status == history.Fail {
			continue
		}
		mo, err := m.Compile(op, t)
		if err != nil {
			return OpError(op, i, err)
		}
		mo.Unknown = op.Status == history.Info
		mo.Call, mo.Return = rt.Spans[i].Call, rt.Spans[i].Return
		mo.Start, mo.End = Clock(h, op)
		mo.Proc = int32(op.Process)
		at[i] = len(all)
		all = append(all, mo)
		pos = append(pos, i)
	}
	if err := finish(m, h, all, pos, t); err != nil {
		return err
	}
	keyed := m.Info().Keyed
	states := make(map[history.Value]S)
	for n, i := range order {
		var k history.Value
		if keyed {
			k = h.Ops[i].Key
		}
		s, ok := states[k]
		if !ok {
			s = m.Init(t)
		}
		next, legal := m.Step(s, &all[at[i]])
		if !legal {
			return fmt.Errorf("witness step %d, %s, is illegal in state %s", n+1, h.Ops[i].Label(), m.Describe(s, t))
		}
		states[k] = next
	}
	return nil
}
