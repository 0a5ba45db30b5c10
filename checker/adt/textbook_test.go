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
	ctx := context.Background()
	_ = ctx
	// Two processes each add an element and read only their own: every
	// process sees its own add alone, so causal holds, but no single
	// order explains both reads.
	setOwn := build([]step{
		{0, "add", i64(1), 0}, {1, "add", i64(2), 0},
		{0, "read", ints(1), 0}, {1, "read", ints(2), 0},
	})
	checkAll(t, "set-own", model.NewSet(model.Options{}), setOwn, verdicts{
		checker.Sequential: F, checker.Causal: T, checker.CausalMemory: T, checker.CausalConvergence: T, checker.PRAM: T,
	})
}
