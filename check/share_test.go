package check_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestCriterionMemoryShare checks that under -c all a criterion whose
// check runs out of memory ends unknown for its own share of the budget,
// and the criteria after it still get their own verdicts; and that a
// process past the whole budget still ends every verdict not yet known.
// The budget is measured by the test (budget.NewMetered), and the
// sequential check "holds" memory by setting what it measures, then waits
// for its context to be cancelled: no allocation and no clock decide the
// outcome.
func TestCriterionMemoryShare(t *testing.T) {
	const (
		limit = 1 << 30
		base  = 100 << 20
		// the share is 7/8 of what the run does not hold: 808.5 MiB
		// beyond the 100 MiB, so 908.5 MiB in all.
		inShare = 900 << 20
		past    = 950 << 20
		beyond  = 2 << 30
	)
	// A stale read: not linearizable, but sequentially consistent and
	// every weaker criterion holds, so no verdict of a weaker criterion
	// follows from another's.
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "write", Value: history.IntValue(1), Call: 0, Return: 1, Status: history.OK},
		{Client: "B", F: "read", Value: history.IntValue(0), Call: 2, Return: 3, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	weak := checker.AllCriteria[2:]
	for _, tc := range []struct {
		name string
		// peak is what the sequential check holds until it is cancelled,
		// after what it keeps.
		peak, after int64
		// seq and weak are the verdicts of sequential and of every weaker
		// criterion; their reasons start seqReason and weakReason.
		seq, weak             checker.Verdict
		seqReason, weakReason string
	}{
		{name: "within its share", peak: inShare, after: base, seq: checker.True, weak: checker.True},
		{name: "past its share", peak: past, after: base, seq: checker.Unknown, weak: checker.True,
			seqReason: "the memory limit of 808.5 MiB for sequential (its share of 1 GiB, beyond the 100 MiB held when it began) " +
				"was reached (950 MiB in use); cancelled after exploring 7 configurations"},
		{name: "past the whole budget", peak: beyond, after: beyond, seq: checker.Unknown, weak: checker.Unknown,
			seqReason: "the memory limit of ", weakReason: "the memory limit of 1 GiB was reached (2 GiB in use); "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var inUse atomic.Int64
			inUse.Store(base)
			reg := hungrySequential(t, &inUse, tc.peak, tc.after, tc.peak <= inShare)
			out, err := check.Run(context.Background(), h, check.Request{Model: "register", Models: []suite.Model{reg},
				Criteria: []string{check.All}, NoCore: true, Init: history.IntValue(0),
				Limits: check.Limits{Budget: budget.NewMetered(limit, inUse.Load), Timeout: time.Hour}})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]check.Result{}
			var names []string
			for _, r := range out.Results {
				got[r.Criterion] = r
				names = append(names, r.Criterion)
			}
			if !slices.Equal(names, checker.AllCriteria) {
				t.Errorf("criteria %v, want %v", names, checker.AllCriteria)
			}
			expectOwn(t, got[checker.Linearizable], checker.False, "")
			expectOwn(t, got[checker.Sequential], tc.seq, tc.seqReason)
			if r := got[checker.Sequential]; strings.Contains(r.Reason, "time limit") {
				t.Errorf("sequential: reason %q blames the time limit", r.Reason)
			}
			for _, c := range weak {
				expectOwn(t, got[c], tc.weak, tc.weakReason)
			}
		})
	}
}

// hungrySequential is the register model whose sequential check holds
// peak bytes (as inUse measures) while it runs, and after once it ends.
// Unless real is set, it does not check but waits for its context to be
// cancelled.
func hungrySequential(t *testing.T, inUse *atomic.Int64, peak, after int64, real bool) suite.Model {
	t.Helper()
	reg, err := suite.Lookup(suite.Builtin(), "register")
	if err != nil {
		t.Fatal(err)
	}
	inner := reg.Check
	reg.Check = func(ctx context.Context, h *history.History, c string, mopts model.Options, opts suite.Options) (checker.Result, error) {
		if c != checker.Sequential {
			return inner(ctx, h, c, mopts, opts)
		}
		inUse.Store(peak)
		defer inUse.Store(after)
		if real {
			return inner(ctx, h, c, mopts, opts)
		}
		select {
		case <-ctx.Done():
			return checker.Result{Valid: checker.Unknown, Reason: "cancelled after exploring 7 configurations"}, nil
		case <-time.After(time.Minute):
			// Only when the share's watch is broken: fail rather than
			// hang.
			return checker.Result{Valid: checker.Unknown, Reason: "never cancelled"}, nil
		}
	}
	return reg
}

// expectOwn checks that r is verdict v, reached by its own check (not
// implied by another's), with a reason that starts with reason.
func expectOwn(t *testing.T, r check.Result, v checker.Verdict, reason string) {
	t.Helper()
	if r.Criterion == "" {
		t.Errorf("a criterion has no verdict")
		return
	}
	if r.Valid != v || r.ImpliedBy != "" || !strings.HasPrefix(r.Reason, reason) {
		t.Errorf("%s: %v implied by %q, reason %q; want %v by its own check, reason starting %q",
			r.Criterion, r.Valid, r.ImpliedBy, r.Reason, v, reason)
	}
}
