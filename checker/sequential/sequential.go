// Package sequential decides sequential consistency: whether one total order
// of all operations exists that keeps each process's own order and is legal
// for the model, with no real-time constraint.
//
// The problem is NP-complete and not local, so Check tries cheap answers
// first: a lock's holders are counted, and a count no order can keep
// refutes the history at once (count.go, countorder.go), while a greedy
// order is often its witness (greedy.go) and a lock that records its
// holder is decided client by client (owners.go); when reads and writes
// carry versions, these fix the order of each
// key's writes and what each read read, and a cycle check decides; a
// linearization is also a sequential witness; and for read/write histories
// with unique values a cycle in program order, reads-from and the write
// orders they force refutes it with a small witness. Otherwise an
// exact search over each process's next operation decides, memoising the
// configurations that failed.
package sequential

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Options tune Check.
type Options struct {
	// Workers is how many partitions the linearizability pre-check searches
	// in parallel; 0 means one per CPU.
	Workers int
	// NoLinearFirst skips the linearizability pre-check, so that the
	// verdict comes from the refutation or the search.
	NoLinearFirst bool
	// MaxMemory bounds, in bytes, what the searches' memos may hold (the
	// linearizability pre-check's and the search's own); 0 means the
	// default of each, negative no bound.
	MaxMemory int64
	// Memory, when set, is the run's budget for the whole process.
	Memory *budget.Memory
	// MaxNodes, when positive, bounds the configurations the search
	// explores; past it the verdict is Unknown. A bound in steps, unlike a
	// deadline, gives the same answer on every machine.
	MaxNodes int64
}

// Methods, as put in checker.Result.Method.
const (
	MethodLinearFirst = "linear-first"
	MethodSaturation  = "saturation"
	MethodSearch      = "search"
)

// perKeyNodes bounds the search of each key alone (see perKey): enough to
// settle the small per-key histories people record, small enough that a
// hard key cannot delay the search of the whole.
const perKeyNodes = 200_000

// Check decides whether h is sequentially consistent under m. Operations
// with unknown outcome are optional: each may take effect at its place in
// its process's order, or never. When ctx is cancelled or its deadline
// passes, the verdict is Unknown and Reason says how far the search got. The
// error is non-nil only for input the model rejects.
func Check[S comparable](ctx context.Context, m model.Model[S], h *history.History, opts Options) (checker.Result, error) {
	start := time.Now()
	res := checker.Result{Criterion: checker.Sequential}
	if h == nil {
		return res, errors.New("sequential: no history")
	}
	info := m.Info()
	c, err := checker.Compile(m, h, nil, nil, true)
	if err != nil {
		return res, fmt.Errorf("model %s: %w", info.Name, err)
	}
	res.Stats.Ops = len(c.Ops)
	res.Stats.Partitions = 1
	finish := func(r checker.Result) (checker.Result, error) {
		r.Criterion = checker.Sequential
		r.Stats.Ops = len(c.Ops)
		r.Stats.Partitions = 1
		r.Elapsed = time.Since(start)
		sort.Ints(r.Dropped)
		return r, nil
	}

	p := newProblem(m, h, c, info.Keyed)
	if v := refuteByCount(p); v != nil {
		res.Valid = checker.False
		res.Method = MethodCount
		res.Violations = []checker.Violation{*v}
		return finish(res)
	}
	if r, ok := greedyOrder(p); ok {
		return finish(r)
	}
	if r, ok := byOwner(ctx, p); ok {
		return finish(r)
	}
	if v := refuteInOrder(p); v != nil {
		res.Valid = checker.False
		res.Method = MethodCount
		res.Violations = []checker.Violation{*v}
		return finish(res)
	}
	if _, ok := any(m).(model.VersionOrder); ok {
		// With versions every fact is known: decide from them at once.
		if r, ok := byVersions(p); ok {
			return finish(r)
		}
	}
	if !opts.NoLinearFirst {
		if r, ok, err := linearFirst(ctx, m, h, opts, info.Keyed); err != nil {
			return res, err
		} else if ok {
			return finish(r)
		}
	}

	if v := saturate(ctx, p); v != nil {
		res.Valid = checker.False
		res.Method = MethodSaturation
		res.Violations = []checker.Violation{*v}
		return finish(res)
	}
	if r, ok := perKey(ctx, p); ok {
		return finish(r)
	}
	return finish(runSearch(ctx, p, opts.MaxNodes, memoLimit(opts.MaxMemory)))
}

// memoLimit is the search memo's share of maxMemory.
func memoLimit(maxMemory int64) int64 {
	switch {
	case maxMemory == 0:
		return defaultMemoBytes
	case maxMemory < 0:
		return math.MaxInt64
	}
	return maxMemory
}

// perKey searches each key of a keyed history alone. Sequential
// consistency is not local, so a key that has a sequential order proves
// nothing, but one that has none refutes the whole history, usually far
// faster and with a smaller witness than the search of all keys together.
// It reports true with a refutation.
func perKey[S comparable](ctx context.Context, p *problem[S]) (checker.Result, bool) {
	if len(p.keys) < 2 {
		return checker.Result{}, false
	}
	// Small keys first: they are settled fastest, and a refutation is as
	// good from any key.
	subs := make([]*problem[S], len(p.keys))
	for k := range p.keys {
		subs[k] = p.restrict(int32(k))
	}
	sort.SliceStable(subs, func(a, b int) bool { return len(subs[a].c.Ops) < len(subs[b].c.Ops) })
	var nodes int64
	for _, sub := range subs {
		if ctx.Err() != nil {
			break
		}
		r := runSearch(ctx, sub, perKeyNodes, defaultMemoBytes)
		nodes += r.Stats.States
		if r.Valid == checker.False {
			r.Stats.States = nodes
			r.Reason = fmt.Sprintf("key %s alone has no sequential order, so neither has the whole history", sub.keys[0])
			return r, true
		}
	}
	return checker.Result{}, false
}

// linearFirst runs the linearizability check with at most half of the time
// left, and turns a linearization into a sequential witness. It reports
// false when that did not decide.
func linearFirst[S comparable](ctx context.Context, m model.Model[S], h *history.History, opts Options, keyed bool) (checker.Result, bool, error) {
	lctx := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		lctx, cancel = context.WithDeadline(ctx, time.Now().Add(time.Until(dl)/2))
		defer cancel()
	}
	lr, err := linear.Check(lctx, m, h, linear.Options{Workers: opts.Workers, MaxMemory: opts.MaxMemory, Memory: opts.Memory})
	if err != nil {
		return checker.Result{}, false, fmt.Errorf("sequential: linearizability pre-check: %w", err)
	}
	if lr.Valid != checker.True {
		return checker.Result{}, false, nil
	}
	w := processOrdered(h, lr.Witness, keyed)
	if w == nil {
		return checker.Result{}, false, nil
	}
	return checker.Result{
		Valid:   checker.True,
		Method:  MethodLinearFirst,
		Witness: w,
		Dropped: lr.Dropped,
		Reason:  "the history is linearizable, and a linearization keeps every process's order",
		Stats:   checker.Stats{States: lr.Stats.States, MemoSize: lr.Stats.MemoSize},
	}, true, nil
}
