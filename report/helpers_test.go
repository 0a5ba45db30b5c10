package report

import (
	"context"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// checkFunc runs one criterion on a history.
type checkFunc func(ctx context.Context, h *history.History) (checker.Result, error)

// checkers returns linearizability and sequential consistency checkers for
// a model, by criterion.
func checkers[S comparable](m func() model.Model[S]) map[string]checkFunc {
	return map[string]checkFunc{
		checker.Linearizable: func(ctx context.Context, h *history.History) (checker.Result, error) {
			return linear.Check(ctx, m(), h, linear.Options{Workers: 1})
		},
		checker.Sequential: func(ctx context.Context, h *history.History) (checker.Result, error) {
			return sequential.Check(ctx, m(), h, sequential.Options{Workers: 1})
		},
	}
}

// checked builds the report of one history: each criterion checked, and
// for each false verdict the core of its violation, as the command line
// does.
func checked(t testing.TB, file, modelName string, h *history.History, cs map[string]checkFunc, criteria ...string) History {
	t.Helper()
	ctx := context.Background()
	hr := NewHistory(file, modelName, h)
	for _, c := range criteria {
		res, err := cs[c](ctx, h)
		if err != nil {
			t.Fatalf("%s: %s: %v", file, c, err)
		}
		res.Criterion = c
		rr := NewResult(h, res)
		if res.Valid == checker.False && len(rr.Violations) > 0 {
			core, err := shrink.Minimize(ctx, h, shrink.Checker(cs[c]), false)
			if err != nil {
				t.Fatalf("%s: %s: shrinking: %v", file, c, err)
			}
			rr.Violations[0].Core = NewCore(h, core)
		}
		hr.Results = append(hr.Results, rr)
	}
	return hr
}

func register0() model.Model[int64] {
	return model.NewRegister(model.Options{Init: history.IntValue(0)})
}
