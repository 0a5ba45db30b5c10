package session

import (
	"context"
	"errors"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestModelClasses checks that the session guarantees take reads and
// writes from the model: a process that stores 1 and then loads the
// initial value breaks read-your-writes when the model names "store" and
// "load" so, and the register's names refuse the history.
func TestModelClasses(t *testing.T) {
	custom := model.Info{Name: "cell", Ops: []model.OpInfo{
		{Names: []string{"load"}, Class: model.ReadOp},
		{Names: []string{"store"}, Class: model.WriteOp},
	}}
	h := &history.History{Ops: []history.Op{op(0, "store", "x", 1, 0, history.OK), op(0, "load", "x", 0, 2, history.OK)}, Processes: 1}
	res, err := Check(context.Background(), h, checker.ReadYourWrites, Options{Init: history.IntValue(0), Model: custom})
	if err != nil || res.Valid != checker.False {
		t.Fatalf("custom names: got %s, %v; want a violation", res.Valid, err)
	}
	if _, err := Check(context.Background(), h, checker.ReadYourWrites, Options{Init: history.IntValue(0)}); !errors.Is(err, causal.ErrUnsupportedOp) {
		t.Fatalf("register names: got %v, want ErrUnsupportedOp", err)
	}
}
