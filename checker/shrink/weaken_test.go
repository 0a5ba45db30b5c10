package shrink

import (
	"context"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestWeakenKeepsTheOperation checks what a weakened operation keeps: its
// client, call and fields, with unknown outcome; it ends its logical
// process, so that the client's next operation is not ordered after it.
func TestWeakenKeepsTheOperation(t *testing.T) {
	tok := history.IntValue(7)
	w := op("A", "write", i1, 0, 1)
	w2 := op("A", "write", i2, 2, 3)
	w2.Token, w2.Extra = tok, []history.Field{{Name: "ttl", Value: i2}}
	h := mustHistory(t, w, w2, op("A", "read", i2, 4, 5))
	got := Weaken(h, []int{1})
	if len(got.Ops) != 3 {
		t.Fatalf("%d ops", len(got.Ops))
	}
	o := got.Ops[1]
	if o.Client != "A" || o.Call != 2 || o.Status != history.Info || o.Return != history.Infinity ||
		o.Token != tok || len(o.Extra) != 1 || o.Value != i2 {
		t.Fatalf("weakened op %+v", o)
	}
	p := []int{got.Ops[0].Process, got.Ops[1].Process, got.Ops[2].Process}
	if p[0] != p[1] || p[2] == p[1] || got.Processes != 2 || got.Clients != 1 {
		t.Fatalf("processes %v (%d), clients %d", p, got.Processes, got.Clients)
	}
}

// TestDroppedOperationKeepsProcessesApart: a read of unknown outcome is
// dropped, but the client's operations before and after it stay in two
// logical processes, or sequential consistency would order them.
func TestDroppedOperationKeepsProcessesApart(t *testing.T) {
	h := mustHistory(t,
		op("A", "write", i1, 0, 1),
		op("A", "read", i1, 2, -1),
		op("A", "read", i0, 3, 4))
	res, err := sequentialChecker(register0())(context.Background(), h)
	if err != nil || res.Valid != checker.True {
		t.Fatalf("original: %v %v", res.Valid, err)
	}
	hh, origin := build(h, []form{kept, dropped, kept})
	if len(hh.Ops) != 2 || origin[1] != 2 || hh.Ops[0].Process == hh.Ops[1].Process || hh.Ops[1].Client != "A" {
		t.Fatalf("reduced %+v, origin %v", hh.Ops, origin)
	}
	if res, err := sequentialChecker(register0())(context.Background(), hh); err != nil || res.Valid != checker.True {
		t.Fatalf("reduced: %v %v", res.Valid, err)
	}
}

// TestRedisUnsafeReleaseCore is the Redis unsafe release under the lease
// model: A's release succeeded while B held the lock. Weakened acquires
// under other names made A's release alone look like a violation that
// passes when checked on its own; the core is the three operations, and it
// fails alone.
func TestRedisUnsafeReleaseCore(t *testing.T) {
	lock := history.StringValue("lock")
	lop := func(c, f, v string, call, ret int64) history.Op {
		o := op(c, f, history.StringValue(v), call, ret)
		o.Key = lock
		if f == "acquire" {
			o.Extra = []history.Field{{Name: "ttl", Value: history.IntValue(5000)}}
		}
		return o
	}
	h := mustHistory(t,
		lop("A", "acquire", "a7f3", 0, 5),
		lop("B", "acquire", "9c2e", 5500, 5505),
		lop("A", "release", "a7f3", 7000, 7005),
		lop("C", "acquire", "41bd", 7500, 7505))
	for _, c := range []struct {
		crit  string
		check Checker
	}{
		{checker.Linearizable, linearChecker(model.NewLease(model.Options{}))},
		{checker.Sequential, sequentialChecker(model.NewLease(model.Options{}))},
		{checker.Linearizable, referenceChecker(model.NewLease(model.Options{}), checker.Linearizable)},
	} {
		ctx := context.Background()
		core, err := Minimize(ctx, h, c.check, false)
		if err != nil {
			t.Fatalf("%s: %v", c.crit, err)
		}
		if c.crit == checker.Linearizable && (len(core.Ops) != 3 || len(core.Weakened) != 0) {
			t.Errorf("core %v weakened %v, want the two acquires and the release", core.Ops, core.Weakened)
		}
		alone, err := core.Standalone(h)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.check(ctx, alone)
		if err != nil || res.Valid != checker.False {
			t.Errorf("%s: the core alone is %v (%v)", c.crit, res.Valid, err)
		}
	}
}
