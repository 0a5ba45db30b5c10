package adt

import (
	"context"
	"fmt"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// step is one operation of a hand-written history: its process, name,
// value and status (OK when zero). Operations run one after another in
// the order written.
type step struct {
	proc   int
	f      string
	v      history.Value
	status history.Type
}

// onKey builds a history of kv operations: steps each with its key.
func onKey(keys []history.Value, steps []step) *history.History {
	h := build(steps)
	for i := range h.Ops {
		h.Ops[i].Key = keys[i]
	}
	return h
}

func build(steps []step) *history.History {
	h := &history.History{Timed: true}
	procs := map[int]bool{}
	for i, s := range steps {
		st := s.status
		if st == 0 {
			st = history.OK
		}
		op := history.Op{Index: int64(i), Process: s.proc, Client: fmt.Sprintf("P%d", s.proc), F: s.f, Value: s.v,
			Call: int64(2 * i), Return: int64(2*i + 1), Status: st}
		if st == history.Info {
			op.Return = history.Infinity
		}
		op.Times = history.Span{Call: op.Call, Return: op.Return}
		h.Ops = append(h.Ops, op)
		procs[s.proc] = true
	}
	h.Processes, h.Clients = len(procs), len(procs)
	return h
}

func ints(ns ...int64) history.Value {
	vs := make([]history.Value, len(ns))
	for i, n := range ns {
		vs[i] = history.IntValue(n)
	}
	return history.ListValue(vs...)
}

var i64 = history.IntValue

// verdicts are the expected verdicts of one history, by criterion.
type verdicts map[string]checker.Verdict

const (
	T = checker.True
	F = checker.False
)

// checkAll runs every criterion of want on h, with and without the
// sequential witness first, verifies every witness and compares.
func checkAll[S comparable](t *testing.T, name string, m model.Model[S], h *history.History, want verdicts) {
	t.Helper()
	for crit, v := range want {
		if crit == checker.Sequential {
			res, err := sequential.Check(context.Background(), m, h, sequential.Options{})
			if err != nil || res.Valid != v {
				t.Errorf("%s sequential: got %s, %v; want %s", name, res.Valid, err, v)
			}
			continue
		}
		for _, noSeq := range []bool{false, true} {
			res, err := Check(context.Background(), m, h, crit, Options{NoSequentialFirst: noSeq})
			if err != nil {
				t.Fatalf("%s %s: %v", name, crit, err)
			}
			if res.Valid != v {
				t.Errorf("%s %s (search only %v): got %s (%s), want %s", name, crit, noSeq, res.Valid, res.Reason, v)
				continue
			}
			if res.Valid == checker.True {
				if err := VerifyWitness(m, h, crit, res); err != nil {
					t.Errorf("%s %s: witness does not verify: %v", name, crit, err)
				}
			} else if len(res.Violations) == 0 {
				t.Errorf("%s %s: false without facts", name, crit)
			}
		}
	}
}

func TestTextbook(t *testing.T) {
	// Two processes each add an element and read only their own: each
	// sees its own add alone, so every weak criterion holds, but no
	// single order explains both reads.
	setOwn := build([]step{
		{0, "add", i64(1), 0}, {1, "add", i64(2), 0},
		{0, "read", ints(1), 0}, {1, "read", ints(2), 0},
	})
	checkAll(t, "set-own", model.NewSet(model.Options{}), setOwn, verdicts{
		checker.Sequential: F, checker.Causal: T, checker.CausalMemory: T, checker.CausalConvergence: T,
		checker.PRAM: T, checker.ReadYourWrites: T, checker.MonotonicWrites: T,
	})
	// A set read that returns an element nobody added: nothing explains it.
	setThinAir := build([]step{{0, "add", i64(1), 0}, {1, "read", ints(1, 3), 0}})
	checkAll(t, "set-thin-air", model.NewSet(model.Options{}), setThinAir, verdicts{
		checker.Causal: F, checker.PRAM: F, checker.ReadYourWrites: F, checker.MonotonicWrites: F,
	})
	// P0 enqueues 1 then 2; P1 dequeues 2. Every view of P1 keeps P0's
	// order, so 1 is the head whenever 2 is in the queue: pram fails, and
	// no causal past explains the dequeue. An arbitration in which the
	// dequeue sees the enqueue of 2 alone keeps both session guarantees.
	queueSkip := build([]step{{0, "enqueue", i64(1), 0}, {0, "enqueue", i64(2), 0}, {1, "dequeue", i64(2), 0}})
	checkAll(t, "queue-skip", model.NewFIFOQueue(model.Options{}), queueSkip, verdicts{
		checker.Sequential: F, checker.Causal: F, checker.CausalMemory: F, checker.CausalConvergence: F,
		checker.PRAM: F, checker.ReadYourWrites: T, checker.MonotonicWrites: T,
	})
	// Both processes dequeue the one element: each causal past may hold
	// the enqueue and its own dequeue alone, and in a process's view the
	// other's dequeue, hidden, may come last and find the queue empty.
	queueTwice := build([]step{{0, "enqueue", i64(1), 0}, {0, "dequeue", i64(1), 0}, {1, "dequeue", i64(1), 0}})
	checkAll(t, "queue-twice", model.NewFIFOQueue(model.Options{}), queueTwice, verdicts{
		checker.Sequential: F, checker.Causal: T, checker.CausalMemory: T, checker.CausalConvergence: T, checker.PRAM: T,
	})
	// Counters: each process reads its own increment alone (causal, not
	// sequential); a read of 5 that no set of increments sums to.
	counterOwn := build([]step{{0, "add", i64(1), 0}, {1, "add", i64(2), 0}, {0, "read", i64(1), 0}, {1, "read", i64(2), 0}})
	checkAll(t, "counter-own", model.NewCounter(model.Options{}), counterOwn, verdicts{
		checker.Sequential: F, checker.Causal: T, checker.CausalMemory: T, checker.CausalConvergence: T, checker.PRAM: T,
	})
	counterBad := build([]step{{0, "add", i64(1), 0}, {1, "add", i64(2), 0}, {1, "read", i64(5), 0}})
	checkAll(t, "counter-bad", model.NewCounter(model.Options{}), counterBad, verdicts{
		checker.Causal: F, checker.PRAM: F, checker.MonotonicWrites: F, checker.ReadYourWrites: F,
	})
	// Two processes acquire the lock and never release it: each causal
	// past may leave the other's acquire out, and a process's view, which
	// holds both, puts the other's first, hidden: refused, it returned
	// the refusal and changed nothing (hidden steps are total). So
	// causal-memory implies pram on locks too.
	lockTwice := build([]step{{0, "acquire", history.Value{}, 0}, {1, "acquire", history.Value{}, 0}})
	checkAll(t, "lock-twice", model.NewLock(model.Options{}), lockTwice, verdicts{
		checker.Sequential: F, checker.Causal: T, checker.CausalMemory: T, checker.CausalConvergence: T, checker.PRAM: T,
	})
	// kv's appends on two keys: each process appends to x and reads its
	// own suffix alone, then reads y, which the other wrote, as nil.
	x, y, str := history.StringValue("x"), history.StringValue("y"), history.StringValue
	kvOwn := onKey([]history.Value{x, x, x, x, y, y}, []step{
		{0, "append", str("a"), 0}, {1, "append", str("b"), 0},
		{0, "read", str("a"), 0}, {1, "read", str("b"), 0},
		{0, "write", str("p"), 0}, {1, "read", history.NilValue, 0},
	})
	checkAll(t, "kv-own", model.NewKV(model.Options{}), kvOwn, verdicts{
		checker.Sequential: F, checker.Causal: T, checker.CausalMemory: T, checker.CausalConvergence: T, checker.PRAM: T,
	})
	// A read of "ba" although its process saw "a" first: "a" then "b"
	// appended is "ab" in every order that keeps the first read legal.
	kvOrder := onKey([]history.Value{x, x, x, x, x}, []step{
		{0, "append", str("a"), 0}, {1, "append", str("b"), 0},
		{1, "read", str("ba"), 0}, {0, "read", str("a"), 0}, {0, "read", str("ab"), 0},
	})
	checkAll(t, "kv-order", model.NewKV(model.Options{}), kvOrder, verdicts{
		checker.Sequential: F, checker.Causal: T, checker.CausalConvergence: F, checker.PRAM: T,
	})
	lockOK := build([]step{{0, "acquire", history.Value{}, 0}, {0, "release", history.Value{}, 0},
		{1, "acquire", history.Value{}, 0}, {1, "release", history.Value{}, history.Info}})
	checkAll(t, "lock-ok", model.NewLock(model.Options{}), lockOK, verdicts{
		checker.Sequential: T, checker.Causal: T, checker.CausalMemory: T, checker.CausalConvergence: T, checker.PRAM: T,
		checker.ReadYourWrites: T, checker.MonotonicWrites: T,
	})
}

// TestBudget checks that a spent budget or an ended context gives an
// unknown verdict that says why, never a guess.
func TestBudget(t *testing.T) {
	h := build([]step{
		{0, "enqueue", i64(1), 0}, {1, "enqueue", i64(2), 0}, {2, "enqueue", i64(3), 0},
		{0, "dequeue", i64(3), 0}, {1, "dequeue", i64(1), 0}, {2, "dequeue", i64(2), 0},
	})
	m := model.NewFIFOQueue(model.Options{})
	for _, crit := range Criteria {
		res, err := Check(context.Background(), m, h, crit, Options{MaxNodes: 3, NoSequentialFirst: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid != checker.Unknown || res.Reason == "" {
			t.Errorf("%s with 3 nodes: %s (%q), want unknown with a reason", crit, res.Valid, res.Reason)
		}
		full, err := Check(context.Background(), m, h, crit, Options{})
		if err != nil || full.Valid == checker.Unknown {
			t.Errorf("%s with the default budget: %s, %v", crit, full.Valid, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Check(ctx, m, h, checker.Causal, Options{NoSequentialFirst: true})
	if err != nil || res.Valid != checker.Unknown || res.Reason == "" {
		t.Errorf("cancelled: %s (%q), %v; want unknown with a reason", res.Valid, res.Reason, err)
	}
}

// TestOwnOrderFirst: five clients each acquire and release the lock 30
// times, round after round, so that every acquire but the first finds
// the lock held by another client, and one acquire of unknown outcome
// ends the history. Each client explains its own outputs, so each
// process's own order is a causal order that explains every operation,
// and the causal searches must find it within a small budget (the search
// alone, going deep with its pruning at every step, spent a million nodes
// on such a history).
func TestOwnOrderFirst(t *testing.T) {
	var steps []step
	for round := 0; round < 30; round++ {
		for p := 0; p < 5; p++ {
			steps = append(steps, step{p, "acquire", history.Value{}, 0})
		}
		for p := 0; p < 5; p++ {
			steps = append(steps, step{p, "release", history.Value{}, 0})
		}
	}
	steps = append(steps, step{0, "acquire", history.Value{}, history.Info})
	h := build(steps)
	m := model.NewLock(model.Options{})
	for _, crit := range []string{checker.Causal, checker.CausalMemory, checker.CausalConvergence} {
		res, err := Check(context.Background(), m, h, crit, Options{MaxNodes: 20_000, NoSequentialFirst: true})
		if err != nil || res.Valid != checker.True {
			t.Fatalf("%s: %s (%s), %v", crit, res.Valid, res.Reason, err)
		}
		if err := VerifyWitness(m, h, crit, res); err != nil {
			t.Errorf("%s: the witness: %v", crit, err)
		}
	}
}
