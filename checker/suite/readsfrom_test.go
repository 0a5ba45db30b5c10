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

// TestFromSequential checks the fallback for a search out of budget: a
// sequential witness's reads-from decides every weak criterion of a
// sequentially consistent history, and verifies; a history that is not
// sequentially consistent gets no answer from it.
func TestFromSequential(t *testing.T) {
	op := func(p int, f string, v, call int64, st history.Type) history.Op {
		return history.Op{Process: p, F: f, Value: history.IntValue(v), Call: call, Return: call + 1, Status: st}
	}
	cas := op(1, "cas", 0, 6, history.Info)
	cas.Value, cas.Return = history.ListValue(history.IntValue(1), history.IntValue(2)), history.Infinity
	// A: w1 r2 w1; B: w2 cas(1,2)?; C: r1 r1 r0? — values repeat, the
	// initial value 0 is written again by nobody, and a crashed cas.
	good := &history.History{Processes: 3, Ops: []history.Op{
		op(0, "write", 1, 0, history.OK), op(1, "write", 2, 2, history.OK), op(0, "read", 2, 4, history.OK),
		op(0, "write", 1, 8, history.OK), cas, op(2, "read", 1, 10, history.OK), op(2, "read", 2, 12, history.OK)}}
	// A: w1 w2; B: r2 r1 is not sequentially consistent (nor causal).
	bad := &history.History{Processes: 2, Ops: []history.Op{
		op(0, "write", 1, 0, history.OK), op(0, "write", 2, 2, history.OK),
		op(1, "read", 2, 4, history.OK), op(1, "read", 1, 6, history.OK)}}
	m := ReadWrite(Bind(model.NewCASRegister), history.NilValue)
	info := m.Info
	ctx, init := context.Background(), history.IntValue(0)
	mopts := model.Options{Init: init}
	for _, c := range []string{checker.Causal, checker.CausalMemory, checker.CausalConvergence, checker.PRAM,
		checker.ReadYourWrites, checker.MonotonicReads, checker.MonotonicWrites, checker.WritesFollowReads} {
		res, ok := fromSequential(ctx, m.Check, info, good, c, init, mopts, Options{})
		if !ok || res.Valid != checker.True || res.Method != MethodSequentialWitness {
			t.Fatalf("%s: got %v %s %s", c, ok, res.Valid, res.Method)
		}
		if err := verifyReadsFrom(ctx, info, good, c, init, res, Options{}); err != nil {
			t.Errorf("%s: the witness: %v", c, err)
		}
		if _, ok := fromSequential(ctx, m.Check, info, bad, c, init, mopts, Options{}); ok {
			t.Errorf("%s: decided a history that is not sequentially consistent", c)
		}
	}
}
