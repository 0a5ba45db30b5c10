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
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/checker/regdp"

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
	// Memory, when set, is the run's budget for the whole process: a memo
	// asks it before it grows.
	Memory *budget.Memory
	// NoZones makes every partition go through the general search, even
	// those the polynomial zones algorithm (reads and writes of unique
	// values), the register sweep (reads and writes of repeated values,
	// checker/regdp) or the versions (checker.DecideByVersions) would
	// decide: for cross-checking them.
	NoZones bool
	// Partials asks, when a partition is refuted by the search, for the
	// longest legal orders it reached that contain each operation
	// (Result.Partials), as Porcupine's partial linearizations are; it
	// costs a pass over the search's stack at each backtrack.
	Partials bool
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

	keys, groups := []history.Value{{}}, [][]int{nil}
	if info.Keyed {
		keys, groups = checker.Partition(h)
	}
	touching := h.Touching()
	parts, err := compileParts(m, h, keys, groups, compiling{prune: !opts.NoPrune, touching: touching}, opts.Workers)
	if err != nil {
		return res, fmt.Errorf("model %s: %w", info.Name, err)
	}
	for _, p := range parts {
		res.Stats.Ops += len(p.comp.Ops)
		res.Dropped = append(res.Dropped, p.comp.Dropped...)
	}
	res.Stats.Partitions = len(parts)
	limit := opts.MaxMemory
	if limit == 0 {
		limit = DefaultMaxMemory()
	}
	var memos *memBudget
	if limit > 0 {
		memos = &memBudget{limit: limit, mem: opts.Memory}
	}
	if !opts.NoZones {
		decideShortcuts(ctx, h, parts, memos, &res)
	}
	run(ctx, parts, runOpts{workers: opts.Workers, partials: opts.Partials}, memos)

	t := tallyParts(parts)
	res.Stats.States, res.Stats.MemoSize = t.states, t.memo
	res.Elapsed = time.Since(start)
	switch {
	case t.failed != nil:
		res.Valid = checker.False
		res.Violations = t.failed.violations(h, info.Keyed)
		res.Partials = t.failed.partials()
	case !t.allFound:
		res.Valid = checker.Unknown
		stopErr := t.stopErr
		if stopErr == nil {
			stopErr = ctx.Err()
		}
		res.Reason = stopReason(stopErr, limit, res.Elapsed, res.Stats.States)
	default:
		if err := holds(&res, m, h, parts, touching, opts.Verify); err != nil {
			return res, err
		}
	}
	sort.Ints(res.Dropped)
	return res, nil
}

// decideShortcuts settles the partitions that the polynomial algorithms
// decide, in turn: zones, the register sweep, versions. When one of them
// decided every partition it names the result's method; when they decided
// some, the reason says how the keys were shared out.
func decideShortcuts[S comparable](ctx context.Context, h *history.History, parts []*part[S], memos *memBudget, res *checker.Result) {
	zoned := decideZones(ctx, parts)
	swept := decideRegDP(ctx, h, parts, memos)
	versioned := decideVersions(ctx, parts)
	switch {
	case zoned > 0 && zoned == len(parts):
		res.Method = zones.Method
	case swept > 0 && swept == len(parts):
		res.Method = regdp.Method
	case versioned > 0 && versioned == len(parts):
		res.Method = MethodVersions
	case zoned > 0 || swept > 0 || versioned > 0:
		res.Reason = fmt.Sprintf("of %d keys, %d decided by zones, %d by the register sweep and %d from versions, the others by the search",
			len(parts), zoned, swept, versioned)
	}
}

// tally sums up the partitions after the searches: the first refuted
// partition, the first error that stopped a search, whether every
// partition was found linearizable, and the searches' work.
type tally[S comparable] struct {
	failed       *part[S]
	stopErr      error
	allFound     bool
	states, memo int64
}

func tallyParts[S comparable](parts []*part[S]) tally[S] {
	t := tally[S]{allFound: true}
	for _, p := range parts {
		t.states += p.res.states
		t.memo += p.res.memo
		if !p.done || p.res.outcome != found {
			t.allFound = false
		}
		switch {
		case !p.done:
		case p.res.outcome == refuted && t.failed == nil:
			t.failed = p
		case p.res.outcome == stopped && p.res.err != nil && t.stopErr == nil:
			t.stopErr = p.res.err
		}
	}
	return t
}

// violations describes a refuted partition, from whichever algorithm
// refuted it.
func (p *part[S]) violations(h *history.History, keyed bool) []checker.Violation {
	var vs []checker.Violation
	switch {
	case p.zones != nil:
		vs = []checker.Violation{zones.Violation(p.zones, h, p.comp, p.m, keyed, p.key)}
	case p.direct != nil:
		vs = directViolations(p, keyed)
	default:
		vs = []checker.Violation{violation(p.m, p, keyed)}
	}
	for i := range vs {
		vs[i].States = checker.PrefixStates(p.m, p.comp, p.init, vs[i].Prefix)
	}
	return vs
}

// partials returns the refuted partition's partial orders as positions in
// the history, when the search kept them.
func (p *part[S]) partials() [][]int {
	var out [][]int
	for _, seq := range p.res.partials {
		order := make([]int, len(seq))
		for i, j := range seq {
			order[i] = p.comp.Pos[j]
		}
		out = append(out, order)
	}
	return out
}

// runOpts are the settings run passes on to the searches.
type runOpts struct {
	workers  int
	partials bool
}

// stopReason says why the searches ended undecided (err is what stopped
// them) and how far they got.
func stopReason(err error, limit int64, elapsed time.Duration, states int64) string {
	what := "cancelled"
	switch {
	case errors.Is(err, errMemory):
		what = "memo exceeded " + budget.Size(limit)
	case errors.Is(err, context.DeadlineExceeded):
		what = "timed out"
	}
	return fmt.Sprintf("%s after %s exploring %d states", what, elapsed.Round(time.Millisecond), states)
}

// holds completes the result when every partition is linearizable: the
// merged witness, and the operations of unknown outcome it leaves out as
// dropped. The error is a witness that fails verification.
func holds[S comparable](res *checker.Result, m model.Model[S], h *history.History, parts []*part[S], touching, verify bool) error {
	w, ok := witness(h, parts, touching)
	if !ok {
		res.Valid = checker.Unknown
		res.Reason = "each key is linearizable on its own, but a process's operations that touch at the instant others' do " +
			"tie real time so that the keys' orders admit no common order; record distinct times, or check in file order"
		return nil
	}
	res.Valid = checker.True
	res.Witness = w
	seen := make([]bool, len(h.Ops))
	for _, i := range w {
		seen[i] = true
	}
	for _, p := range parts {
		for j, pos := range p.comp.Pos {
			if p.comp.Ops[j].Unknown && !seen[pos] {
				res.Dropped = append(res.Dropped, pos)
			}
		}
	}
	if verify {
		if err := checker.VerifyWitness(m, h, w, checker.RealTime); err != nil {
			return fmt.Errorf("linear: witness failed verification: %w", err)
		}
	}
	return nil
}

// compiling is how compileParts compiles: whether to prune, and whether
// the history's clients' operations touch (History.Touching).
type compiling struct{ prune, touching bool }

// compileParts compiles every partition. A model that forks gives each
// partition a copy of its own, so the partitions are then compiled in
// parallel; the error reported is the first partition's, as in order.
func compileParts[S comparable](m model.Model[S], h *history.History, keys []history.Value, groups [][]int, how compiling, workers int) ([]*part[S], error) {
	parts := make([]*part[S], len(groups))
	errs := make([]error, len(groups))
	one := func(i int) {
		pm := m
		if f, ok := m.(model.Forker[S]); ok {
			pm = f.Fork()
		}
		c, err := checker.CompileGroup(pm, h, groups[i], how.prune, how.touching)
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
	var ws checker.Workers
	for w := 0; w < min(workers, len(groups)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer ws.Recover()
			for i := int(next.Add(1) - 1); i < len(groups); i = int(next.Add(1) - 1) {
				one(i)
			}
		}()
	}
	wg.Wait()
	ws.Repanic()
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
		if !ok || !isID || p.comp.Touching {
			continue
		}
		var out zones.Outcome
		var err error
		if zones.Applicable(p.comp.Ops, rw, init) {
			out, err = zones.Decide(ctx, p.comp.Ops, rw, init)
		} else {
			var applies bool
			if out, applies, err = decideRewritten(ctx, p.comp.Ops, rw, init); !applies {
				continue
			}
		}
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
func run[S comparable](ctx context.Context, parts []*part[S], ro runOpts, budget *memBudget) {
	workers := ro.workers
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
	var ws checker.Workers
	defer ws.Repanic()
	work := func() {
		defer ws.Recover()
		for {
			mu.Lock()
			if len(queue) == 0 || stop.Load() || ctx.Err() != nil || ws.Failed() {
				mu.Unlock()
				return
			}
			i := queue[0]
			queue = queue[1:]
			mu.Unlock()

			p := parts[i]
			s := searchers[i]
			if s == nil {
				s = partSearcher(p, budget, ro.partials)
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
	}
	// One worker searches in the caller's goroutine: the shrinker's dozens
	// of small checks would each pay for waking another thread.
	if workers == 1 {
		work()
	} else {
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				work()
			}()
		}
		wg.Wait()
	}
	// Searches interrupted between turns still count their work.
	for i, s := range searchers {
		if s != nil && !parts[i].done {
			parts[i].res = s.res
		}
	}
}

// partSearcher starts the search of a partition, within the memos'
// budget, keeping partial orders when asked.
func partSearcher[S comparable](p *part[S], budget *memBudget, partials bool) *searcher[S] {
	s := newSearcher(p.m, p.comp.Ops, p.init, p.comp.Prev)
	s.budget = budget
	if partials && !s.done {
		s.longest = make([]int32, len(p.comp.Ops))
		for k := range s.longest {
			s.longest[k] = -1
		}
	}
	if budget != nil && s.memo != nil {
		s.memo.grows = budget.fits
	}
	return s
}

// witness merges the per-partition orders into one global order that keeps
// each partition's order, real time and every client's order, or returns
// false when none does. Linearizability is local for interval orders
// (Herlihy and Wing), so one exists unless a process's touching operations
// tangle real time (history.RealTime.Tangled); then the per-key orders the
// searches found may admit no common order.
func witness[S comparable](h *history.History, parts []*part[S], touching bool) ([]int, bool) {
	n := 0
	for _, p := range parts {
		n += len(p.res.order)
	}
	m := newMerge(h, n, touching)
	for _, p := range parts {
		prev := int32(-1)
		for _, j := range p.res.order {
			prev = m.add(p.comp.Pos[j], prev)
		}
	}
	return m.run()
}

// merge is a topological sort of the operations of the partitions' orders
// under three relations: each partition's order, each client's order, and
// real time (an operation may come next only if no operation still to come
// returned before it was called).
type merge struct {
	h *history.History
	// rt places the ends in real time when some client's operations touch;
	// otherwise (Spans nil) the recorded ends are compared as they are:
	// RealTime would then only number the instants, calls at an instant
	// before its returns, which orders every call and return the same.
	rt    history.RealTime
	pos   []int   // node -> position in h.Ops
	after []int32 // node -> its successor in its partition's order, or -1
	wait  []int8  // node -> predecessors not yet emitted (partition, client)
}

// newMerge returns an empty merge of n operations of h; touching is
// h.Touching().
func newMerge(h *history.History, n int, touching bool) *merge {
	m := &merge{h: h, pos: make([]int, 0, n), after: make([]int32, 0, n), wait: make([]int8, 0, n)}
	if touching {
		m.rt = h.RealTime()
	}
	return m
}

// add appends the operation at position pos after node prev of its
// partition's order, and returns its node.
func (m *merge) add(pos int, prev int32) int32 {
	x := int32(len(m.pos))
	m.pos = append(m.pos, pos)
	m.after = append(m.after, -1)
	m.wait = append(m.wait, 0)
	if prev >= 0 {
		m.after[prev] = x
		m.wait[x]++
	}
	return x
}

func (m *merge) run() ([]int, bool) {
	n := len(m.pos)
	// Each client's order among the merged operations: positions are in
	// call order, a client's own in its order, and each operation follows
	// the last one its client completed before it.
	succ := m.clientSuccessors()
	calls, rets := m.ends()
	// The operations still to come, by return: the first not yet emitted
	// returned earliest, and nothing called after that may come next.
	byReturn := byKey(rets)
	ready := &nodeHeap{key: calls}
	for x := int32(0); x < int32(n); x++ {
		if m.wait[x] == 0 {
			ready.push(x)
		}
	}
	done := make([]bool, n)
	out := make([]int, 0, n)
	release := func(y int32) {
		if y >= 0 {
			if m.wait[y]--; m.wait[y] == 0 {
				ready.push(y)
			}
		}
	}
	first := 0 // in byReturn
	for len(out) < n {
		for done[byReturn[first]] {
			first++
		}
		if ready.len() == 0 || calls[ready.top()] > rets[byReturn[first]] {
			return nil, false
		}
		x := ready.pop()
		done[x] = true
		out = append(out, m.pos[x])
		release(m.after[x])
		for y := succ.first[x]; y >= 0; y = succ.next[y] {
			release(y)
		}
	}
	return out, true
}

// ends returns each node's call and return: real time's instants when
// the clients' operations touch, else the recorded ends.
func (m *merge) ends() (calls, rets []int64) {
	calls, rets = make([]int64, len(m.pos)), make([]int64, len(m.pos))
	for x, p := range m.pos {
		if m.rt.Spans != nil {
			calls[x], rets[x] = m.rt.Spans[p].Call, m.rt.Spans[p].Return
		} else {
			calls[x], rets[x] = m.h.Ops[p].Call, m.h.Ops[p].Return
		}
	}
	return calls, rets
}

// successors lists each node's successors in its client's order, in
// order of position: the first, then each one's next. A node follows at
// most one other, so the lists share one array.
type successors struct {
	first, next []int32 // -1: none
}

// clientSuccessors links each operation to the last one its client
// completed before it, and counts that predecessor in wait.
func (m *merge) clientSuccessors() successors {
	n := len(m.pos)
	s := successors{first: make([]int32, n), next: make([]int32, n)}
	lastOf := make([]int32, n) // a node's last successor so far
	for x := range s.first {
		s.first[x], s.next[x] = -1, -1
	}
	var cs clientNumbers
	var last []int32 // client number -> its last completed node, or -1
	for _, x := range m.byPosition() {
		o := &m.h.Ops[m.pos[x]]
		c := cs.of(o)
		for int(c) >= len(last) {
			last = append(last, -1)
		}
		if p := last[c]; p >= 0 {
			if s.first[p] < 0 {
				s.first[p] = x
			} else {
				s.next[lastOf[p]] = x
			}
			lastOf[p] = x
			m.wait[x]++
		}
		if o.Status != history.Info {
			last[c] = x
		}
	}
	return s
}

// clientNumbers numbers clients from 0 in order of appearance. A
// client's name is looked up once per logical process, whose operations
// share it, rather than once per operation: the name remembered for the
// process is only confirmed (interned names compare at once).
type clientNumbers struct {
	ids    map[string]int32
	names  []string
	byProc []int32 // logical process -> client number + 1; 0: not seen
}

func (cs *clientNumbers) of(o *history.Op) int32 {
	p := o.Process
	if p >= 0 && p < len(cs.byProc) {
		if c := cs.byProc[p] - 1; c >= 0 && cs.names[c] == o.Client {
			return c
		}
	}
	if cs.ids == nil {
		cs.ids = map[string]int32{}
	}
	c, ok := cs.ids[o.Client]
	if !ok {
		c = int32(len(cs.names))
		cs.ids[o.Client] = c
		cs.names = append(cs.names, o.Client)
	}
	if p >= 0 {
		for p >= len(cs.byProc) {
			cs.byProc = append(cs.byProc, 0)
		}
		cs.byProc[p] = c + 1
	}
	return c
}

// byKey returns the nodes by key, then node. Real time's instants, and
// recorded times in a run, span a range not much wider than there are
// operations, so they are counted from the least rather than sorted; a key
// past that, such as a return that never came, goes after them, sorted.
func byKey(key []int64) []int32 {
	n := len(key)
	if n == 0 {
		return nil
	}
	least := slices.Min(key)
	limit := uint64(4*n + 16)
	// The distance from the least key, exact even across int64's range.
	dist := func(k int64) uint64 { return uint64(k) - uint64(least) }
	counts := make([]int32, limit+1)
	var far []int32
	for x, k := range key {
		if d := dist(k); d < limit {
			counts[d+1]++
		} else {
			far = append(far, int32(x))
		}
	}
	for k := 1; k < len(counts); k++ {
		counts[k] += counts[k-1]
	}
	out := make([]int32, n)
	for x, k := range key {
		if d := dist(k); d < limit {
			out[counts[d]] = int32(x)
			counts[d]++
		}
	}
	slices.SortFunc(far, func(x, y int32) int { return cmp.Or(cmp.Compare(key[x], key[y]), cmp.Compare(x, y)) })
	copy(out[n-len(far):], far)
	return out
}

// byPosition returns the nodes in the order of their positions in the
// history, which are distinct: placed by position, without sorting.
func (m *merge) byPosition() []int32 {
	at := make([]int32, len(m.h.Ops))
	for i := range at {
		at[i] = -1
	}
	for x, p := range m.pos {
		at[p] = int32(x)
	}
	out := make([]int32, 0, len(m.pos))
	for _, x := range at {
		if x >= 0 {
			out = append(out, x)
		}
	}
	return out
}

// nodeHeap is a min-heap of nodes by key, then node.
type nodeHeap struct {
	xs  []int32
	key []int64 // node -> key
}

func (q *nodeHeap) len() int   { return len(q.xs) }
func (q *nodeHeap) top() int32 { return q.xs[0] }

func (q *nodeHeap) less(i, j int) bool {
	a, b := q.key[q.xs[i]], q.key[q.xs[j]]
	return a < b || a == b && q.xs[i] < q.xs[j]
}

func (q *nodeHeap) push(x int32) {
	q.xs = append(q.xs, x)
	for i := len(q.xs) - 1; i > 0; {
		parent := (i - 1) / 2
		if !q.less(i, parent) {
			break
		}
		q.xs[i], q.xs[parent] = q.xs[parent], q.xs[i]
		i = parent
	}
}

func (q *nodeHeap) pop() int32 {
	top := q.xs[0]
	last := len(q.xs) - 1
	q.xs[0] = q.xs[last]
	q.xs = q.xs[:last]
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < last && q.less(l, least) {
			least = l
		}
		if r < last && q.less(r, least) {
			least = r
		}
		if least == i {
			break
		}
		q.xs[i], q.xs[least] = q.xs[least], q.xs[i]
		i = least
	}
	return top
}

// violation describes a refuted partition: the operation that could not
// take effect at the deepest point the search reached, after the longest
// legal order found.
func violation[S comparable](m model.Model[S], p *part[S], keyed bool) checker.Violation {
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
		return v
	}
	failPos := c.Pos[r.failOp]
	v.Ops = append([]int{failPos}, lastN(v.Prefix, contextLen)...)
	// What the model says about the operation where the search stopped:
	// its explainer's words, or else the state it refused it in.
	stuck := checker.Stuck{Op: failPos}
	if ex, ok := any(m).(model.Explainer[S]); ok {
		stuck.Said = ex.Explain(r.state, &c.Ops[r.failOp], c.Table)
	} else {
		stuck.Said, stuck.State = m.Describe(r.state, c.Table), true
	}
	v.Stuck = []checker.Stuck{stuck}
	return v
}

func lastN(xs []int, n int) []int {
	if len(xs) > n {
		xs = xs[len(xs)-n:]
	}
	return append([]int(nil), xs...)
}
