package isolation_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/isolation"
	"github.com/histcheck/histcheck/format"
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

// growsEDN is a random history whose parallel snapshot isolation
// violation is a cycle of two transactions that, cut out alone, pass:
// the write orders pruning forced before rest on others.
const growsEDN = `{:index 0, :process 2, :type :invoke, :f :txn, :value [[:r :y nil]]}
{:index 1, :process 2, :type :ok, :f :txn, :value [[:r :y nil]]}
{:index 2, :process 1, :type :invoke, :f :txn, :value [[:r :z nil] [:r :x nil] [:w :z 1] [:w :z 2]]}
{:index 3, :process 1, :type :ok, :f :txn, :value [[:r :z nil] [:r :x nil] [:w :z 1] [:w :z 2]]}
{:index 4, :process 0, :type :invoke, :f :txn, :value [[:w :z 3] [:w :y 4] [:w :x 5]]}
{:index 5, :process 0, :type :ok, :f :txn, :value [[:w :z 3] [:w :y 4] [:w :x 5]]}
{:index 6, :process 1, :type :invoke, :f :txn, :value [[:r :y 4] [:w :y 6]]}
{:index 7, :process 1, :type :ok, :f :txn, :value [[:r :y 4] [:w :y 6]]}
{:index 8, :process 1, :type :invoke, :f :txn, :value [[:r :z 2]]}
{:index 9, :process 1, :type :ok, :f :txn, :value [[:r :z 2]]}
{:index 10, :process 2, :type :invoke, :f :txn, :value [[:r :x nil] [:r :x nil] [:r :x nil] [:r :x nil] [:r :y nil] [:r :y nil]]}
{:index 11, :process 2, :type :ok, :f :txn, :value [[:r :x nil] [:r :x nil] [:r :x nil] [:r :x nil] [:r :y nil] [:r :y nil]]}
{:index 12, :process 2, :type :invoke, :f :txn, :value [[:r :y 6] [:w :z 7] [:w :y 8]]}
{:index 13, :process 2, :type :ok, :f :txn, :value [[:r :y 6] [:w :z 7] [:w :y 8]]}
`

// TestViolationShownAlone checks that a violation whose cycle passes on
// its own names the transactions that make it fail, with the budget to
// shrink them and without (then every transaction connected to the
// cycle's).
func TestViolationShownAlone(t *testing.T) {
	h, err := format.Read("grows.edn", strings.NewReader(growsEDN), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		steps int64
		ops   int
	}{
		{"shrunk", 0, 4},
		{"past the budget", 1, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := isolation.Check(context.Background(), h, isolation.ParallelSnapshot, isolation.Options{Steps: tc.steps})
			if err != nil || res.Valid != checker.False {
				t.Fatalf("%s, %v, want false", res.Valid, err)
			}
			if got := len(res.Violations[0].Ops); got != tc.ops {
				t.Errorf("the violation names %d transactions (%v), want %d", got, res.Violations[0].Ops, tc.ops)
			}
			if err := violatesAlone(h, isolation.ParallelSnapshot, res); err != nil {
				t.Error(err)
			}
		})
	}
}
