package shrink

import (
	"context"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestCoreOfViolationKey shrinks kv histories in which two keys fail, the
// one the check reports (the first key of the history) failing later than
// the other: the core must be of the key the check reported, whether
// shrinking starts from the check's result or checks first, for
// linearizability (by appends, which are not grown, and by writes, which
// are) and for sequential consistency (a client that misses its own
// write).
func TestCoreOfViolationKey(t *testing.T) {
	str := history.StringValue
	kvOp := func(client, f, key, v string, call, ret int64) history.Op {
		o := op(client, f, str(v), call, ret)
		o.Key = str(key)
		return o
	}
	stale := func(f, first, second string) []history.Op {
		// first's write begins first, so the check reports first; its
		// stale read comes long after second's.
		return []history.Op{
			kvOp("A", f, first, "x", 0, 10),
			kvOp("B", f, second, "y", 1, 11),
			kvOp("C", "get", second, "", 20, 30),
			kvOp("C", "get", first, "", 100, 110),
		}
	}
	ownWrite := func(first, second string) []history.Op {
		return []history.Op{
			kvOp("A", "append", first, "x", 0, 10),
			kvOp("B", "append", second, "y", 1, 11),
			kvOp("B", "get", second, "", 20, 30),
			kvOp("A", "get", first, "", 100, 110),
		}
	}
	tests := []struct {
		name  string
		ops   []history.Op
		check Checker
		want  string
	}{
		{"appends, a reported", stale("append", "a", "b"), nil, "a"},
		{"appends, b reported", stale("append", "b", "a"), nil, "b"},
		{"writes, a reported", stale("put", "a", "b"), nil, "a"},
		{"writes, b reported", stale("put", "b", "a"), nil, "b"},
		{"sequential, a reported", ownWrite("a", "b"), sequentialChecker(model.NewKV(model.Options{Init: str("")})), "a"},
		{"sequential, b reported", ownWrite("b", "a"), sequentialChecker(model.NewKV(model.Options{Init: str("")})), "b"},
	}
	ctx := context.Background()
	info := model.NewKV(model.Options{}).Info()
	for _, tt := range tests {
		h := mustHistory(t, tt.ops...)
		check := tt.check
		if check == nil {
			check = func(ctx context.Context, h *history.History) (checker.Result, error) {
				return linearChecker(model.NewKV(model.Options{Init: str("")}))(ctx, h)
			}
		}
		known, err := check(ctx, h)
		if err != nil || known.Valid != checker.False {
			t.Fatalf("%s: %v, %v", tt.name, known.Valid, err)
		}
		if v := known.Violations[0]; v.Key != tt.want {
			t.Fatalf("%s: the check reports key %q, want %q (the case no longer tells the keys apart)", tt.name, v.Key, tt.want)
		}
		for _, from := range []bool{false, true} {
			var core Core
			if from {
				core, err = MinimizeFrom(ctx, h, info, check, known)
			} else {
				core, err = MinimizeFor(ctx, h, info, check)
			}
			if err != nil {
				t.Fatalf("%s (from the result: %v): %v", tt.name, from, err)
			}
			for _, p := range append(append([]int(nil), core.Ops...), core.Weakened...) {
				if k, _ := h.Ops[p].Key.Str(); k != tt.want {
					t.Errorf("%s (from the result: %v): the core holds %s, of key %s; the violation is of key %s",
						tt.name, from, h.Ops[p].Label(), k, tt.want)
				}
			}
			if core.Violation.Key != tt.want {
				t.Errorf("%s (from the result: %v): the core's violation is of key %q, want %q", tt.name, from, core.Violation.Key, tt.want)
			}
		}
	}
}
