package suite

import (
	"context"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestVerifyReadsFrom checks that a reads-from witness is checked again
// without a search: A: w1 w2; B: w1; C: r2 r1 is causal only if C's read
// of 1 read B's write.
func TestVerifyReadsFrom(t *testing.T) {
	w := func(p int, v, call int64) history.Op {
		return history.Op{Process: p, F: "write", Value: history.IntValue(v), Call: call, Return: call + 1, Status: history.OK}
	}
	r := w
	h := &history.History{Processes: 3, Ops: []history.Op{w(0, 1, 0), w(0, 2, 2), w(1, 1, 4), r(2, 2, 6), r(2, 1, 8)}}
	h.Ops[3].F, h.Ops[4].F = "read", "read"
	info := model.NewRegister(model.Options{}).Info()
	ctx, init := context.Background(), history.IntValue(0)
	res, err := weakCheck(ctx, info, h, checker.Causal, init, Options{})
	if err != nil || res.Valid != checker.True || len(res.ReadsFrom) != 1 || res.ReadsFrom[0] != (checker.ReadFrom{Read: 4, Write: 2}) {
		t.Fatalf("got %s %+v (%v)", res.Valid, res.ReadsFrom, err)
	}
	if err := verifyReadsFrom(ctx, info, h, checker.Causal, init, res, Options{}); err != nil {
		t.Errorf("the witness: %v", err)
	}
	res.ReadsFrom = []checker.ReadFrom{{Read: 4, Write: 0}}
	if err := verifyReadsFrom(ctx, info, h, checker.Causal, init, res, Options{}); err == nil {
		t.Error("C's read of 1 from A's overwritten write verified")
	}
}
