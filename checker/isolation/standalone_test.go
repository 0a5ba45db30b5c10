package isolation_test

import (
	"context"
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/isolation"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// standalone cuts a violation out of h as a history of its own: the
// transactions it names as recorded and, with their writes alone, the
// writers of values they read that it does not name (the reads of a
// transaction nobody's verdict rests on are left out, as the checker
// leaves out those of a transaction of unknown outcome; it stays in its
// session, so that session order is as recorded). That history must
// violate the level again: a violation claims no more than its
// transactions show.
func standalone(h *history.History, v checker.Violation) (*history.History, error) {
	txns, err := txn.FromHistory(h)
	if err != nil {
		return nil, err
	}
	type kv struct{ k, v string }
	writer := map[kv]int{}
	for _, t := range txns {
		for _, m := range t.Mops {
			if m.Kind == txn.Write {
				writer[kv{m.Key.String(), m.Value.String()}] = t.Op
			}
		}
	}
	keep := map[int]bool{}
	for _, p := range v.Ops {
		keep[p] = true
	}
	weak := map[int]bool{}
	for _, p := range v.Ops {
		if p < 0 || p >= len(txns) || txns[p].Status != history.OK {
			continue
		}
		for _, m := range txns[p].Mops {
			if m.Kind != txn.Read {
				continue
			}
			if w, ok := writer[kv{m.Key.String(), m.Value.String()}]; ok && !keep[w] {
				weak[w] = true
			}
		}
	}
	var ops []history.Op
	for p := range h.Ops {
		switch {
		case keep[p]:
			ops = append(ops, h.Ops[p])
		case weak[p]:
			o := h.Ops[p]
			var writes []history.Value
			for i, e := range o.Value.Elems() {
				if i < len(txns[p].Mops) && txns[p].Mops[i].Kind == txn.Write {
					writes = append(writes, e)
				}
			}
			o.Value = history.ListValue(writes...)
			ops = append(ops, o)
		}
	}
	out, err := h.Derive(ops)
	if err != nil {
		return nil, fmt.Errorf("the violation's transactions are not a history: %w", err)
	}
	out.Meta = h.Meta
	return out, nil
}

// violatesAlone checks the first violation of a verdict false on its own.
func violatesAlone(h *history.History, level string, res checker.Result) error {
	if len(res.Violations) == 0 {
		return fmt.Errorf("false without a violation")
	}
	v := res.Violations[0]
	alone, err := standalone(h, v)
	if err != nil {
		return err
	}
	again, err := isolation.Check(context.Background(), alone, level, isolation.Options{})
	if err != nil {
		return err
	}
	if again.Valid != checker.False {
		return fmt.Errorf("the %s violation's %d transactions (%v) are %s on their own", v.Pattern, len(v.Ops), v.Ops, again.Valid)
	}
	return nil
}
