package causal_test

import (
	"context"
	"errors"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestModelClasses checks that reads and writes are whatever the model
// says they are: the same history of "store" and "load" operations is
// checked under a model that names them so, and refused under the
// register's names.
func TestModelClasses(t *testing.T) {
	custom := model.Info{Name: "cell", Ops: []model.OpInfo{
		{Names: []string{"load"}, Class: model.ReadOp},
		{Names: []string{"store"}, Class: model.WriteOp},
		{Names: []string{"swap"}},
	}}
	// A stale read: B reads y's new value, then x's initial one, though
	// A wrote x before y.
	ops := []history.Op{op(0, "store", "x", 1, 0, ok), op(0, "store", "y", 1, 2, ok),
		op(1, "load", "y", 1, 4, ok), op(1, "load", "x", 0, 6, ok)}
	h := &history.History{Ops: ops, Processes: 2}
	res, err := causal.Check(context.Background(), h, checker.Causal, causal.Options{Init: history.IntValue(0), Model: custom})
	if err != nil || res.Valid != checker.False {
		t.Fatalf("custom names: got %s, %v; want a violation", res.Valid, err)
	}
	if _, err := causal.Check(context.Background(), h, checker.Causal, causal.Options{Init: history.IntValue(0)}); !errors.Is(err, causal.ErrUnsupportedOp) {
		t.Fatalf("register names: got %v, want causal.ErrUnsupportedOp", err)
	}
	// An operation the model classes as neither is refused.
	h = &history.History{Ops: []history.Op{op(0, "swap", "x", 1, 0, ok)}, Processes: 1}
	if _, err := causal.Check(context.Background(), h, checker.Causal, causal.Options{Model: custom}); !errors.Is(err, causal.ErrUnsupportedOp) {
		t.Fatalf("swap: got %v, want causal.ErrUnsupportedOp", err)
	}
	// The kv model's append is neither a read nor a write.
	h = &history.History{Ops: []history.Op{op(0, "append", "x", 1, 0, ok)}, Processes: 1}
	if _, err := causal.Check(context.Background(), h, checker.Causal, causal.Options{Model: model.NewKV(model.Options{}).Info()}); !errors.Is(err, causal.ErrUnsupportedOp) {
		t.Fatalf("append: got %v, want causal.ErrUnsupportedOp", err)
	}
}

// TestCAS checks a cas as a read of the value it expected and a write of
// the one it stored, and a cas of unknown outcome as one that may not have
// taken effect.
func TestCAS(t *testing.T) {
	info := model.NewCASRegister(model.Options{}).Info()
	cas := func(p int, from, to int64, call int64, st history.Type) history.Op {
		o := op(p, "cas", "", 0, call, st)
		o.Value = history.ListValue(history.IntValue(from), history.IntValue(to))
		return o
	}
	tests := []struct {
		name string
		ops  []history.Op
		want checker.Verdict
	}{
		// A: cas(0, 1); B: r(1) r(0): B saw the cas, then the value it replaced.
		{"a read of the value a cas replaced", []history.Op{cas(0, 0, 1, 0, ok), op(1, "read", "", 1, 2, ok), op(1, "read", "", 0, 4, ok)}, checker.False},
		// A: w(1); B: cas(1, 2); C: r(2) r(1)... C read the cas's write, then the write it read.
		{"the write a cas read is in its causal past", []history.Op{op(0, "write", "", 1, 0, ok), cas(1, 1, 2, 2, ok), op(2, "read", "", 2, 4, ok), op(2, "read", "", 1, 6, ok)}, checker.False},
		// Two crashed cas, each reading the other's write: neither need have taken effect.
		{"crashed cas reading each other", []history.Op{cas(0, 1, 2, 0, history.Info), cas(1, 2, 1, 0, history.Info)}, checker.True},
		// A crashed cas whose write was read took effect, so its read did.
		{"a crashed cas seen", []history.Op{cas(0, 5, 1, 0, history.Info), op(1, "read", "", 1, 2, ok)}, checker.False},
		{"a failed cas did nothing", []history.Op{cas(0, 5, 1, 0, history.Fail), op(1, "read", "", 0, 2, ok)}, checker.True},
	}
	for _, tc := range tests {
		h := &history.History{Ops: tc.ops, Processes: 3}
		res, err := causal.Check(context.Background(), h, checker.Causal, causal.Options{Init: history.IntValue(0), Model: info})
		if err != nil || res.Valid != tc.want {
			t.Errorf("%s: got %s (%v, %s), want %s", tc.name, res.Valid, err, res.Reason, tc.want)
		}
	}
}
