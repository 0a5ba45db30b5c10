package isolation_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/isolation"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// standalone cuts a violation out of h as a history of its own: the
// transactions it names as recorded and, with unknown outcome (their
// writes only, as the checker reads such a transaction), the writers of
// values they read that it does not name. That history must violate the
// level again: a violation claims no more than its transactions show.
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
	var weak []int
	for _, p := range v.Ops {
		if p < 0 || p >= len(txns) || txns[p].Status != history.OK {
			continue
		}
		for _, m := range txns[p].Mops {
			if m.Kind != txn.Read {
				continue
			}
			if w, ok := writer[kv{m.Key.String(), m.Value.String()}]; ok && w != p && !slices.Contains(v.Ops, w) && !slices.Contains(weak, w) {
				weak = append(weak, w)
			}
		}
	}
	return shrink.Core{Ops: v.Ops, Weakened: weak}.Standalone(h)
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
