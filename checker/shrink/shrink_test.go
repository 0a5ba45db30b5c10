package shrink

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// op builds an operation for FromOps; ret < 0 means unknown outcome.
func op(client, f string, v history.Value, call, ret int64) history.Op {
	o := history.Op{Client: client, F: f, Value: v, Call: call, Return: ret, Status: history.OK}
	if ret < 0 {
		o.Status, o.Return = history.Info, history.Infinity
	}
	return o
}

func mustHistory(t testing.TB, ops ...history.Op) *history.History {
	t.Helper()
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

var i0, i1, i2 = history.IntValue(0), history.IntValue(1), history.IntValue(2)

func register0() model.Model[int64] { return model.NewRegister(model.Options{Init: i0}) }

func linearChecker[S comparable](m model.Model[S]) Checker {
	return func(ctx context.Context, h *history.History) (checker.Result, error) {
		return linear.Check(ctx, m, h, linear.Options{Workers: 1})
	}
}

func sequentialChecker[S comparable](m model.Model[S]) Checker {
	return func(ctx context.Context, h *history.History) (checker.Result, error) {
		return sequential.Check(ctx, m, h, sequential.Options{Workers: 1})
	}
}

func referenceChecker[S comparable](m model.Model[S], crit string) Checker {
	return func(ctx context.Context, h *history.History) (checker.Result, error) {
		if crit == checker.Sequential {
			return reference.Sequential(ctx, m, h)
		}
		return reference.Linearizable(ctx, m, h)
	}
}

// h2 is the stale read: B saw the new value and finished before C began,
// yet C read the old one, while A's write was still running.
func h2(t testing.TB) *history.History {
	return mustHistory(t,
		op("A", "write", i1, 0, 10),
		op("B", "read", i1, 2, 4),
		op("C", "read", i0, 6, 8))
}

// h3 is a process that does not read its own write.
func h3(t testing.TB) *history.History {
	return mustHistory(t,
		op("A", "write", i1, 0, 2),
		op("A", "read", i0, 3, 5))
}

// overwritten is a read of a value its own writer had overwritten, by
// processes named in lower case.
func overwritten(t testing.TB) *history.History {
	return mustHistory(t,
		op("min", "write", i1, 0, 1),
		op("min", "write", history.IntValue(2), 2, 3),
		op("maj", "read", i1, 4, 5))
}

// unwritten is a single read of a value nobody wrote.
func unwritten(t testing.TB) *history.History {
	return mustHistory(t, op("maj", "read", history.IntValue(5), 0, 1))
}

// TestScenarios shrinks the textbook histories to their cores (what the
// cores say in words is report's TestCoreStories).
func TestScenarios(t *testing.T) {
	cases := []struct {
		name     string
		h        func(testing.TB) *history.History
		check    Checker
		crit     string
		ops      []int
		weakened []int
	}{
		{"H2/linearizable", h2, linearChecker(register0()), checker.Linearizable, []int{1, 2}, []int{0}},
		{"H2/reference", h2, referenceChecker(register0(), checker.Linearizable), checker.Linearizable, []int{1, 2}, []int{0}},
		{"H3/linearizable", h3, linearChecker(register0()), checker.Linearizable, []int{0, 1}, nil},
		{"H3/sequential", h3, sequentialChecker(register0()), checker.Sequential, []int{0, 1}, nil},
		{"overwritten/linearizable", overwritten, linearChecker(register0()), checker.Linearizable, []int{0, 1, 2}, nil},
		{"unwritten/linearizable", unwritten, linearChecker(register0()), checker.Linearizable, []int{0}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := c.h(t)
			core, err := Minimize(context.Background(), h, c.check, false)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(core.Ops, c.ops) || !reflect.DeepEqual(core.Weakened, c.weakened) {
				t.Fatalf("core ops %v weakened %v, want %v and %v", core.Ops, core.Weakened, c.ops, c.weakened)
			}
			if !core.Minimal || core.Criterion != c.crit {
				t.Fatalf("minimal %v criterion %q", core.Minimal, core.Criterion)
			}
			assertCore(t, context.Background(), c.check, core)
		})
	}
}

// assertCore checks what a core promises: its history still fails, and
// weakening any one of its essential operations makes it pass.
func assertCore(t testing.TB, ctx context.Context, check Checker, core Core) {
	t.Helper()
	if err := coreError(ctx, check, core); err != nil {
		t.Fatal(err)
	}
}

func coreError(ctx context.Context, check Checker, core Core) error {
	res, err := check(ctx, core.History)
	if err != nil {
		return err
	}
	if res.Valid != checker.False {
		return fmt.Errorf("core history verdict %v, want false", res.Valid)
	}
	if len(core.Origin) != len(core.History.Ops) || core.Size() != len(core.History.Ops) {
		return fmt.Errorf("core of %d ops + %d weakened, history of %d, origin of %d",
			len(core.Ops), len(core.Weakened), len(core.History.Ops), len(core.Origin))
	}
	essential := make(map[int]bool)
	for _, p := range core.Ops {
		essential[p] = true
	}
	for j, p := range core.Origin {
		if !essential[p] {
			continue
		}
		res, err := check(ctx, Weaken(core.History, []int{j}))
		if err != nil {
			return err
		}
		if res.Valid != checker.True {
			return fmt.Errorf("weakening %s leaves verdict %v, want true", core.History.Ops[j].Label(), res.Valid)
		}
	}
	return nil
}
