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
