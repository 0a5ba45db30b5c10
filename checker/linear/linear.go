// Package linear decides linearizability exactly: a Wing–Gong backtracking
// search for an order of the operations that respects real time and the
// model, with Lowe's memo of explored configurations, run per object for
// keyed models (P-compositionality) with the objects checked in parallel.
package linear

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/histcheck/histcheck/checker/regdp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/zones"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Options tune Check.
type Options struct {
	// Workers is how many partitions are checked in parallel; 0 means
	// runtime.NumCPU().
	Workers int
	// Verify re-checks every witness with checker.VerifyWitness and returns
	// an error if it does not hold.
	Verify bool
	// NoPrune keeps operations of unknown outcome that the model's Pruner
	// shows nothing observed.
	NoPrune bool
	// MaxMemory bounds, in bytes, the memory the search's memos may hold
	// together; past it the verdict is Unknown rather than the process
	// running out of memory. 0 means DefaultMaxMemory(); a negative value
	// means no limit.
	MaxMemory int64
	// NoZones makes every partition go through the general search, even
	// those the polynomial zones algorithm (reads and writes of unique
	// values) or the register sweep (reads and writes of repeated values,
	// checker/regdp) would decide: for cross-checking them.
	NoZones bool
}

// Method is the name Check puts in Result.Method.
const Method = "wgl"

// contextLen is how many operations of the longest legal prefix a
// violation names besides the operation that could not take effect.
const contextLen = 3

// part is one independently checked object of a history.
type part[S comparable] struct {
	key  history.Value
	m    model.Model[S] // the model, forked for this partition when it can be
	comp *checker.Compiled
	init S
	res  partResult[S]
	done bool
	// zones holds the decision when the zones algorithm made it.
	zones *zones.Outcome
	// direct holds the decision when the register sweep made it (positions
	// in it are indices into comp.Ops).
	direct *checker.Result
}

// Check decides whether h is linearizable under m. Operations of unknown
// outcome may take effect at any time after their call, or never. A
// partition of reads and writes of unique values, under a model that
// classifies them (model.ReadWriteRegister), is decided by the zones
// algorithm in O(n log n); the others by the search. When ctx is cancelled
// or its deadline passes first, or the search's memo outgrows
// Options.MaxMemory, the verdict is Unknown and Reason says how far the
// search got. The error is non-nil only for input the model rejects, or a
// witness that fails Options.Verify.
func Check[S comparable](ctx context.Context, m model.Model[S], h *history.History, opts Options) (checker.Result, error) {
	start := time.Now()
	res := checker.Result{Criterion: checker.Linearizable, Method: Method}
	info := m.Info()

	var keys []history.Value
	var groups [][]int
	if info.Keyed {
		keys, groups = checker.Partition(h)
	} else {
		keys, groups = []history.Value{{}}, [][]int{nil}
	}
	parts, err := compileParts(m, h, keys, groups, !opts.NoPrune, opts.Workers)
	if err != nil {
		return res, fmt.Errorf("model %s: %w", info.Name, err)
	}
	for _, p := range parts {
		res.Stats.Ops += len(p.comp.Ops)
		res.Dropped = append(res.Dropped, p.comp.Dropped...)
	}
	res.Stats.Partitions = len(parts)
	zoned := 0
	if !opts.NoZones {
		zoned = decideZones(ctx, parts)
	}
	swept := 0
	if !opts.NoZones {
		swept = decideRegDP(ctx, h, parts)
	}
	switch {
	case zoned > 0 && zoned == len(parts):
		res.Method = zones.Method
	case swept > 0 && swept == len(parts):
		res.Method = regdp.Method
	case zoned > 0 || swept > 0:
		res.Reason = fmt.Sprintf("of %d keys, %d decided by zones and %d by the register sweep, the others by the search", len(parts), zoned, swept)
	}

	limit := opts.MaxMemory
	if limit == 0 {
		limit = DefaultMaxMemory()
	}
	var budget *memBudget
	if limit > 0 {
		budget = &memBudget{limit: limit}
	}
	run(ctx, parts, opts.Workers, budget)

	var failed *part[S]
	var stopErr error
	allFound := true
	for _, p := range parts {
		res.Stats.States += p.res.states
		res.Stats.MemoSize += p.res.memo
		if !p.done || p.res.outcome != found {
			allFound = false
		}
		switch {
		case !p.done:
		case p.res.outcome == refuted && failed == nil:
			failed = p
		case p.res.outcome == stopped && p.res.err != nil && stopErr == nil:
			stopErr = p.res.err
		}
	}
	res.Elapsed = time.Since(start)
	switch {
	case failed != nil:
		res.Valid = checker.False
		switch {
		case failed.zones != nil:
			res.Violations = []checker.Violation{zones.Violation(failed.zones, h, failed.comp, failed.m, info.Keyed, failed.key)}
		case failed.direct != nil:
			res.Violations = directViolations(failed, info.Keyed)
		default:
			res.Violations = []checker.Violation{violation(failed.m, h, failed, info.Keyed)}
		}
	case !allFound:
		if stopErr == nil {
			stopErr = ctx.Err()
		}
		res.Valid = checker.Unknown
		what := "cancelled"
		switch {
		case errors.Is(stopErr, errMemory):
			what = fmt.Sprintf("memo exceeded %d MB", (limit+(1<<20)-1)>>20)
		case errors.Is(stopErr, context.DeadlineExceeded):
			what = "timed out"
		}
		res.Reason = fmt.Sprintf("%s after %s exploring %d states", what, res.Elapsed.Round(time.Millisecond), res.Stats.States)
	default:
		res.Valid = checker.True
		res.Witness = witness(h, parts)
		seen := make(map[int]bool, len(res.Witness))
		for _, i := range res.Witness {
			seen[i] = true
		}
		for _, p := range parts {
			for j, pos := range p.comp.Pos {
				if p.comp.Ops[j].Unknown && !seen[pos] {
					res.Dropped = append(res.Dropped, pos)
				}
			}
		}
		if opts.Verify {
			if err := checker.VerifyWitness(m, h, res.Witness, checker.RealTime); err != nil {
				return res, fmt.Errorf("linear: witness failed verification: %w", err)
			}
		}
	}
	sort.Ints(res.Dropped)
	return res, nil
}

// compileParts compiles every partition. A model that forks gives each
// partition a copy of its own, so the partitions are then compiled in
// parallel; the error reported is the first partition's, as in order.
func compileParts[S comparable](m model.Model[S], h *history.History, keys []history.Value, groups [][]int, prune bool, workers int) ([]*part[S], error) {
	parts := make([]*part[S], len(groups))
	errs := make([]error, len(groups))
	one := func(i int) {
		pm := m
		if f, ok := m.(model.Forker[S]); ok {
			pm = f.Fork()
		}
		c, err := checker.Compile(pm, h, groups[i], nil, prune)
		if err != nil {
			errs[i] = err
			return
		}
		parts[i] = &part[S]{key: keys[i], m: pm, comp: c, init: pm.Init(c.Table)}
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if _, forks := m.(model.Forker[S]); !forks || workers == 1 || len(groups) < 2 {
		for i := range groups {
			if one(i); errs[i] != nil {
				return nil, errs[i]
			}
		}
		return parts, nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(groups)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(groups); i = int(next.Add(1) - 1) {
				one(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// decideZones decides with the zones algorithm every partition it applies
// to, and returns how many it decided.
func decideZones[S comparable](ctx context.Context, parts []*part[S]) int {
	n := 0
	for _, p := range parts {
		rw, ok := any(p.m).(model.ReadWriteRegister)
		init, isID := any(p.init).(int64)
		if !ok || !isID || p.comp.Touching || !zones.Applicable(p.comp.Ops, rw, init) {
			continue
		}
		out, err := zones.Decide(ctx, p.comp.Ops, rw, init)
		if err != nil {
			continue // the search notices the context too
		}
		p.zones = &out
		p.settle(out.Linearizable, out.Order)
		n++
	}
	return n
}

// settle records a decision made without the search: found with the order
// of the partition's operations (indices into comp.Ops), or refuted.
func (p *part[S]) settle(linearizable bool, order []int) {
	p.done = true
	if !linearizable {
		p.res.outcome = refuted
		return
	}
	p.res.outcome = found
	p.res.order = make([]int32, len(order))
	for i, j := range order {
		p.res.order[i] = int32(j)
	}
}

// A partition's turns start short and double, up to maxSlice search
// steps: most easy partitions finish in their first turn, so one failing
// object among many hard ones is found after little work on the others,
// while a long search pays for few switches. The longest turn lasts about
// a millisecond.
const (
	firstSlice = 1 << 8
	maxSlice   = 1 << 14
)

// run searches every partition with Workers goroutines that take turns
// between the unfinished partitions. The first refutation stops every other
// search: partitions are independent, and one failing object makes the
// whole history fail. With one worker the turns, and so the partition
// reported, are deterministic.
func run[S comparable](ctx context.Context, parts []*part[S], workers int, budget *memBudget) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	var stop atomic.Bool
	var mu sync.Mutex
	var queue []int // partitions waiting for a turn, in order
	for i, p := range parts {
		if !p.done {
			queue = append(queue, i)
		} else if p.res.outcome == refuted {
			return
		}
	}
	if workers > len(queue) {
		workers = len(queue)
	}
	searchers := make([]*searcher[S], len(parts))
	slices := make([]int, len(parts)) // each partition's next turn length
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if len(queue) == 0 || stop.Load() || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				i := queue[0]
				queue = queue[1:]
				mu.Unlock()

				p := parts[i]
				s := searchers[i]
				if s == nil {
					s = newSearcher(p.m, p.comp.Ops, p.init, p.comp.Touching)
					s.budget = budget
					searchers[i] = s
					slices[i] = firstSlice
				}
				slice := slices[i]
				slices[i] = min(2*slice, maxSlice)
				if !s.run(ctx, &stop, slice) {
					mu.Lock()
					queue = append(queue, i)
					mu.Unlock()
					continue
				}
				p.res, p.done = s.res, true
				searchers[i] = nil
				if budget != nil {
					budget.charge(&s.charged, 0) // its memo is freed
				}
				if p.res.outcome == refuted || errors.Is(p.res.err, errMemory) {
					stop.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	// Searches interrupted between turns still count their work.
	for i, s := range searchers {
		if s != nil && !parts[i].done {
			parts[i].res = s.res
		}
	}
}

// witness merges the per-partition orders into one global order. Each
// operation gets a linearization point: the latest call among it and the
// operations before it in its partition. A valid partition order keeps each
// point inside its operation's interval (an operation before it cannot have
// been called after it returned), and points respect real time across
// partitions: if a returned before b was called, a's point ≤ a's return <
// b's call ≤ b's point. Sorting by point, stably, gives the global order.
func witness[S comparable](h *history.History, parts []*part[S]) []int {
	type pt struct {
		at   int64
		part int
		seq  int
		pos  int
	}
	var all []pt
	for pi, p := range parts {
		at := int64(-1 << 63)
		for seq, j := range p.res.order {
			op := &p.comp.Ops[j]
			if op.Call > at {
				at = op.Call
			}
			all = append(all, pt{at, pi, seq, p.comp.Pos[j]})
		}
	}
	slices.SortFunc(all, func(x, y pt) int {
		if c := cmp.Compare(x.at, y.at); c != 0 {
			return c
		}
		if c := cmp.Compare(x.part, y.part); c != 0 {
			return c
		}
		return cmp.Compare(x.seq, y.seq)
	})
	w := make([]int, len(all))
	for i, p := range all {
		w[i] = p.pos
	}
	return w
}

// violation describes a refuted partition: the operation that could not
// take effect at the deepest point the search reached, after the longest
// legal order found.
func violation[S comparable](m model.Model[S], h *history.History, p *part[S], keyed bool) checker.Violation {
	c := p.comp
	r := &p.res
	var v checker.Violation
	if keyed {
		v.Key = p.key.String()
	}
	v.Prefix = make([]int, len(r.prefix))
	for i, j := range r.prefix {
		v.Prefix[i] = c.Pos[j]
	}
	if r.failOp < 0 {
		v.Ops = lastN(v.Prefix, contextLen)
		v.Explanation = "no order of the operations is legal"
		return v
	}
	failPos := c.Pos[r.failOp]
	v.Ops = append([]int{failPos}, lastN(v.Prefix, contextLen)...)

	var sb strings.Builder
	sb.WriteString(h.Ops[failPos].Label())
	sb.WriteString(" cannot take effect: ")
	if ex, ok := any(m).(model.Explainer[S]); ok {
		sb.WriteString(ex.Explain(r.state, &c.Ops[r.failOp], c.Table))
	} else {
		sb.WriteString("illegal in state ")
		sb.WriteString(m.Describe(r.state, c.Table))
	}
	if len(v.Prefix) == 0 {
		sb.WriteString(" (in the initial state)")
	} else {
		sb.WriteString(" (after ")
		tail := lastN(v.Prefix, contextLen)
		if len(tail) < len(v.Prefix) {
			sb.WriteString("… -> ")
		}
		for i, pos := range tail {
			if i > 0 {
				sb.WriteString(" -> ")
			}
			sb.WriteString(h.Ops[pos].Label())
		}
		sb.WriteString(")")
	}
	v.Explanation = sb.String()
	return v
}

func lastN(xs []int, n int) []int {
	if len(xs) > n {
		xs = xs[len(xs)-n:]
	}
	return append([]int(nil), xs...)
}
