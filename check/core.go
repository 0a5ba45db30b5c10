package check

import (
	"context"
	"errors"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// defaultCoreBudget bounds the search for a core per history and
// criterion; within it most cores are found and shown minimal, and a
// search cut short still gives a sound (if larger) core.
const defaultCoreBudget = 10 * time.Second

// coreBudget is the time left for the core after a check that took
// elapsed: what remains of the limit, but no more than the core's own
// budget (--core-time, or the default when zero), so that a generous limit
// meant for the verdict does not go to the core. Zero means no time is
// left.
func coreBudget(timeout, elapsed, own time.Duration) time.Duration {
	if own <= 0 {
		own = defaultCoreBudget
	}
	if timeout <= 0 {
		return own
	}
	return min(max(timeout-elapsed, 0), own)
}

// findCore shrinks the object's history, which violates criterion, to a
// minimal core, and describes it in terms of the whole history h. known is
// the check's result, with the whole history's positions: shrinking starts
// from it rather than checking the history again. It returns nil without
// error when no core could be found in the time given.
func findCore(ctx context.Context, obj *object, criterion string, known checker.Result, mopts model.Options,
	sopts suite.Options, budget time.Duration) (core *shrink.Core, err error) {
	defer func() {
		if r := recover(); r != nil {
			core, err = nil, &suite.InternalError{Criterion: criterion, Panic: checker.AsPanic(r)}
		}
	}()
	if budget <= 0 {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	sopts.Verify = false // the core's verdicts are confirmed by shrinking itself
	check := func(ctx context.Context, hh *history.History) (checker.Result, error) {
		return suite.Run(ctx, obj.model, hh, criterion, mopts, sopts)
	}
	c, err := shrink.MinimizeFrom(ctx, obj.h, obj.model.Info, check, lowerResult(known, obj.pos))
	if errors.Is(err, shrink.ErrNotViolating) {
		// The first check of the search ran out of time.
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if obj.pos != nil {
		c = liftCore(c, obj.pos)
	}
	return &c, nil
}

// countInstead gives a linearizability violation of a lock that counting
// alone refutes (its acquires and releases leave no legal order at all,
// real time or not) the count as its reason, in place of the point where
// the search stopped: that point hides the reason, and a core of such a
// history keeps nearly every acquire (see counted). res is the object's
// result lifted to the whole history.
func countInstead(obj object, criterion string, res checker.Result, mopts model.Options) checker.Result {
	if criterion != checker.Linearizable || res.Valid != checker.False || obj.model.Count == nil {
		return res
	}
	v, err := obj.model.Count(obj.h, mopts)
	if err != nil || v == nil {
		return res
	}
	if obj.pos != nil {
		mapped := v.MapOps(func(p int) int {
			if p < len(obj.pos) {
				return obj.pos[p]
			}
			return checker.None
		})
		v = &mapped
	}
	res.Violations = []checker.Violation{*v}
	return res
}

// counted reports whether counting refuted the history: every violation
// counts a lock's holders (pattern "count"), or names clients that each
// end holding the lock ("owners-held"). Such facts are the whole reason,
// and the history has no small core to find: weakening an operation to
// unknown outcome only widens the count's range, so a core keeps nearly
// every acquire, and each check of a weakened history is a search.
func counted(r checker.Result) bool {
	for _, v := range r.Violations {
		if v.Count == nil && v.Pattern != "owners-held" {
			return false
		}
	}
	return true
}

// lowerResult renames the positions of r, a result lifted from an
// object's history (see object.lift), back to the object's own. A result
// naming a position outside the object comes back empty, which shrinking
// does not use.
func lowerResult(r checker.Result, pos []int) checker.Result {
	if pos == nil {
		return r
	}
	own := make(map[int]int, len(pos))
	for i, p := range pos {
		own[p] = i
	}
	inside := true
	at := func(x int) int {
		i, ok := own[x]
		inside = inside && ok
		return i
	}
	vs := make([]checker.Violation, len(r.Violations))
	for i, v := range r.Violations {
		vs[i] = v.MapOps(at)
	}
	if !inside {
		return checker.Result{}
	}
	r.Violations, r.Witness, r.Dropped = vs, nil, nil
	return r
}

// liftCore renames a core's positions in an object's history by their
// positions in the whole history.
func liftCore(c shrink.Core, pos []int) shrink.Core {
	m := func(xs []int) []int {
		out := make([]int, 0, len(xs))
		for _, x := range xs {
			if x >= 0 && x < len(pos) {
				out = append(out, pos[x])
			}
		}
		return out
	}
	c.Ops, c.Weakened, c.Origin = m(c.Ops), m(c.Weakened), m(c.Origin)
	if c.History == nil || len(c.Origin) != len(c.History.Ops) {
		c.Origin = nil // the report then quotes the reduced history's names
	}
	return c
}
