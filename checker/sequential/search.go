package sequential

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/model"
)

// ctxCheckEvery is how many search nodes pass between looks at the context.
// A node costs at most a few microseconds, so a deadline is noticed within
// a few milliseconds.
const ctxCheckEvery = 256

// defaultMemoBytes bounds the memory the memo of failed configurations may
// take when no limit is given; past it the search answers Unknown.
const defaultMemoBytes = 1 << 30

// memoEntryBytes is what a memo entry costs beside its key's bytes: a
// Go 1.26 map of a million string keys holds 53 bytes an entry in its
// table (slots and control bytes at its load factor), rounded up here for
// the key's allocation.
const memoEntryBytes = 64

var (
	errMemoFull = errors.New("the memo of explored configurations is full")
	errBudget   = errors.New("the search's budget of configurations is spent")
)

// step is one entry of the search's trail: an operation executed (or, for
// an operation of unknown outcome, skipped) and what it replaced.
type step[S comparable] struct {
	op    int32
	proc  int32
	skip  bool
	old   S
	oldID uint32
}

// searcher runs the exact search: a depth-first search over configurations
// (each process's next operation, the state of every key), memoising the
// configurations from which no complete order exists. Sequential
// consistency is not local, so every key is searched together, with one
// state per key.
type searcher[S comparable] struct {
	p      *problem[S]
	ctx    context.Context
	front  []int32 // per process: index of its next operation in p.procs
	states []S     // per key
	sid    []uint32
	ids    map[S]uint32
	memo   map[string]struct{}
	bytes  int64
	// maxBytes bounds bytes, the memo's estimated size.
	maxBytes int64
	trail    []step[S]
	left     int // operations that completed and are not yet placed
	nodes    int64
	stop     error
	// maxNodes, when positive, bounds nodes.
	maxNodes int64
	buf      []byte
	red      reductions
	scratch  []int32
	// bound, for a counting model, fails configurations whose count
	// cannot stay within bounds (see countBound); count is the share of
	// the operations placed.
	bound *countBound
	count int

	bestLen    int
	bestTrail  []step[S]
	bestFront  []int32
	bestStates []S
}

// candidate is one way to continue from a configuration.
type candidate[S comparable] struct {
	proc  int32
	skip  bool
	next  S
	score int   // blocked reads this operation enables
	call  int64 // call time of the operation, for a stable order
}

// runSearch searches p exactly. A positive maxNodes bounds the
// configurations explored; past it the verdict is Unknown.
func runSearch[S comparable](ctx context.Context, p *problem[S], maxNodes, maxBytes int64) checker.Result {
	s := &searcher[S]{p: p, ctx: ctx, ids: make(map[S]uint32), memo: make(map[string]struct{}), maxNodes: maxNodes, maxBytes: maxBytes}
	s.front = make([]int32, len(p.procs))
	s.states = make([]S, len(p.keys))
	s.sid = make([]uint32, len(p.keys))
	for k := range s.states {
		s.states[k] = p.init
		s.sid[k] = s.intern(p.init)
	}
	for i := range p.c.Ops {
		if !p.c.Ops[i].Unknown {
			s.left++
		}
	}
	s.red = newReductions(p)
	s.bound = newCountBound(p)
	s.bestLen = -1
	ok := s.dfs(guard[S]{})
	res := checker.Result{Method: MethodSearch}
	res.Stats.States = s.nodes
	res.Stats.MemoSize = int64(len(s.memo))
	res.Dropped = append(res.Dropped, p.c.Dropped...)
	switch {
	case ok:
		res.Valid = checker.True
		for _, st := range s.trail {
			if st.skip {
				res.Dropped = append(res.Dropped, p.c.Pos[st.op])
			} else {
				res.Witness = append(res.Witness, p.c.Pos[st.op])
			}
		}
		// Whatever is left has unknown outcome and need not take effect.
		for pi, ops := range p.procs {
			for _, op := range ops[s.front[pi]:] {
				res.Dropped = append(res.Dropped, p.c.Pos[op])
			}
		}
	case s.stop != nil:
		res.Valid = checker.Unknown
		what := "cancelled"
		switch {
		case errors.Is(s.stop, context.DeadlineExceeded):
			what = "timed out"
		case errors.Is(s.stop, errMemoFull), errors.Is(s.stop, errBudget):
			what = "stopped: " + s.stop.Error()
		}
		res.Reason = fmt.Sprintf("%s after exploring %d configurations; the longest legal order found places %d of %d operations",
			what, s.nodes, s.bestPlaced(), len(p.c.Ops))
	default:
		res.Valid = checker.False
		res.Violations = []checker.Violation{s.violation()}
	}
	return res
}

func (s *searcher[S]) intern(st S) uint32 {
	id, ok := s.ids[st]
	if !ok {
		id = uint32(len(s.ids))
		s.ids[st] = id
	}
	return id
}

// next returns process pi's next operation, or -1 when it has none left.
func (s *searcher[S]) next(pi int) int32 {
	ops := s.p.procs[pi]
	if int(s.front[pi]) >= len(ops) {
		return -1
	}
	return ops[s.front[pi]]
}

func (s *searcher[S]) exec(pi int32, next S, skip bool) {
	op := s.p.procs[pi][s.front[pi]]
	k := s.p.keyOf[op]
	s.trail = append(s.trail, step[S]{op: op, proc: pi, skip: skip, old: s.states[k], oldID: s.sid[k]})
	if !skip {
		s.states[k] = next
		s.sid[k] = s.intern(next)
		if s.bound != nil {
			s.count += s.bound.delta[op]
		}
	}
	s.front[pi]++
	if !s.p.c.Ops[op].Unknown {
		s.left--
	}
}

// undo takes back the trail down to length mark.
func (s *searcher[S]) undo(mark int) {
	for len(s.trail) > mark {
		st := s.trail[len(s.trail)-1]
		s.trail = s.trail[:len(s.trail)-1]
		k := s.p.keyOf[st.op]
		s.states[k], s.sid[k] = st.old, st.oldID
		if s.bound != nil && !st.skip {
			s.count -= s.bound.delta[st.op]
		}
		s.front[st.proc]--
		if !s.p.c.Ops[st.op].Unknown {
			s.left++
		}
	}
}

// eager executes, one at a time and earliest call first, every next
// operation that the model classes as a read, is legal and leaves its
// key's state as it is (see newProblem for why no branching is needed).
func (s *searcher[S]) eager() {
	p := s.p
	for {
		best := int32(-1)
		var bestCall int64
		for pi := range p.procs {
			op := s.next(pi)
			if op < 0 || !p.readLike[op] {
				continue
			}
			mo := &p.c.Ops[op]
			if best >= 0 && mo.Call >= bestCall {
				continue
			}
			k := p.keyOf[op]
			if ns, ok := p.m.Step(s.states[k], mo); ok && ns == s.states[k] {
				best, bestCall = int32(pi), mo.Call
			}
		}
		if best < 0 {
			return
		}
		s.exec(best, s.states[p.keyOf[s.next(int(best))]], false)
	}
}

// blocked lists the next operations that are reads and are illegal now.
func (s *searcher[S]) blocked() []int32 {
	p := s.p
	var blocked []int32
	for pi := range p.procs {
		op := s.next(pi)
		if op < 0 || !p.readLike[op] {
			continue
		}
		if _, ok := p.m.Step(s.states[p.keyOf[op]], &p.c.Ops[op]); !ok {
			blocked = append(blocked, op)
		}
	}
	return blocked
}

// candidates lists the legal continuations that g allows: operations
// whose result lets a blocked read go on first (most such reads first),
// then by call time; then, last, skipping an operation of unknown outcome
// that is not its process's last. Of processes with the same remaining
// operations, only the first is a candidate.
func (s *searcher[S]) candidates(g *guard[S]) []candidate[S] {
	p := s.p
	blocked := s.blocked()
	var cs, skips []candidate[S]
	seen := s.scratch[:0]
	for pi := range p.procs {
		op := s.next(pi)
		if op < 0 {
			continue
		}
		if sid := s.red.suffix[pi][s.front[pi]]; slices.Contains(seen, sid) {
			continue
		} else {
			seen = append(seen, sid)
		}
		mo := &p.c.Ops[op]
		k := p.keyOf[op]
		ns, legal := p.m.Step(s.states[k], mo)
		noop := legal && ns == s.states[k]
		// An optional last operation that changes nothing is never worth
		// taking (see guard).
		if legal && (!noop || !s.red.lastOpt[op]) && g.allows(p.m, k, mo, ns) {
			cs = append(cs, candidate[S]{proc: int32(pi), next: ns, call: mo.Call, score: s.enables(op, k, ns, blocked)})
		}
		// Skipping an operation that, taken, changes nothing reaches the
		// same configuration; skipping a last one is never needed; under
		// a guard, skips come first (see guard).
		if mo.Unknown && !s.red.lastOpt[op] && !noop && !g.on {
			skips = append(skips, candidate[S]{proc: int32(pi), skip: true, call: mo.Call})
		}
	}
	s.scratch = seen
	sort.SliceStable(cs, func(a, b int) bool {
		if cs[a].score != cs[b].score {
			return cs[a].score > cs[b].score
		}
		return cs[a].call < cs[b].call
	})
	return append(cs, skips...)
}

// enables counts the blocked reads of key k, other than op, that become
// legal when op leads to ns.
func (s *searcher[S]) enables(op, k int32, ns S, blocked []int32) int {
	p := s.p
	if ns == s.states[k] {
		return 0
	}
	n := 0
	for _, r := range blocked {
		if p.keyOf[r] != k || r == op {
			continue
		}
		if _, ok := p.m.Step(ns, &p.c.Ops[r]); ok {
			n++
		}
	}
	return n
}

func (s *searcher[S]) dfs(g guard[S]) bool {
	mark := len(s.trail)
	s.eager()
	if s.left == 0 {
		if s.endsFree() {
			return true
		}
		s.undo(mark)
		return false
	}
	if len(s.trail) > mark {
		// A read ran that was illegal before the optional operation.
		g.on = false
	}
	s.nodes++
	if s.nodes%ctxCheckEvery == 0 {
		if err := s.ctx.Err(); err != nil {
			s.stop = err
		}
	}
	if s.maxNodes > 0 && s.nodes > s.maxNodes {
		s.stop = errBudget
	}
	if s.stop != nil {
		s.undo(mark)
		return false
	}
	if len(s.trail) > s.bestLen {
		s.record()
	}
	if s.failed(&g) || s.bound != nil && s.bound.dead(s.front, s.count) {
		s.undo(mark)
		return false
	}
	key := s.canonKey(&g, false)
	for _, c := range s.candidates(&g) {
		if s.try(c) {
			return true
		}
		if s.stop != nil {
			break
		}
	}
	if s.stop == nil {
		if size := int64(len(key)) + memoEntryBytes; s.bytes+size > s.maxBytes {
			s.stop = errMemoFull
		} else {
			s.memo[key] = struct{}{}
			s.bytes += size
		}
	}
	s.undo(mark)
	return false
}

// failed reports whether the memo holds the configuration or one with
// every continuation it has: the same unguarded (a guard only removes
// continuations), or with its optional last operations not taken.
func (s *searcher[S]) failed(g *guard[S]) bool {
	if _, ok := s.memo[s.canonKey(g, false)]; ok {
		return true
	}
	if g.on {
		if _, ok := s.memo[s.canonKey(&guard[S]{}, false)]; ok {
			return true
		}
	}
	_, ok := s.memo[s.canonKey(&guard[S]{}, true)]
	return ok
}

// try takes candidate c and searches on; an optional last operation
// guards the configuration it leads to.
func (s *searcher[S]) try(c candidate[S]) bool {
	op := s.p.procs[c.proc][s.front[c.proc]]
	var g guard[S]
	if !c.skip && s.red.lastOpt[op] {
		k := s.p.keyOf[op]
		g = guard[S]{on: true, key: k, pre: s.states[k], preID: s.sid[k]}
	}
	s.exec(c.proc, c.next, c.skip)
	if s.dfs(g) {
		return true
	}
	s.undo(len(s.trail) - 1)
	return false
}

// record keeps the deepest configuration reached, for the report.
func (s *searcher[S]) record() {
	s.bestLen = len(s.trail)
	s.bestTrail = append(s.bestTrail[:0], s.trail...)
	s.bestFront = append(s.bestFront[:0], s.front...)
	s.bestStates = append(s.bestStates[:0], s.states...)
}

func (s *searcher[S]) bestPlaced() int {
	n := 0
	for _, st := range s.bestTrail {
		if !st.skip {
			n++
		}
	}
	return n
}

// violation explains the refutation from the deepest configuration: the
// next operation of every process that still has one could not follow the
// longest legal order found, or leads only to dead ends.
func (s *searcher[S]) violation() checker.Violation {
	p := s.p
	v := checker.Violation{Pattern: "no-sequential-order", Op: checker.None}
	for _, st := range s.bestTrail {
		if !st.skip {
			v.Prefix = append(v.Prefix, p.c.Pos[st.op])
		}
	}
	ex, _ := p.m.(model.Explainer[S])
	var keys []int32
	for pi, ops := range p.procs {
		f := int(s.bestFront[pi])
		if f >= len(ops) {
			continue
		}
		op := ops[f]
		k := p.keyOf[op]
		keys = append(keys, k)
		v.Ops = append(v.Ops, p.c.Pos[op])
		st := s.bestStates[k]
		mo := &p.c.Ops[op]
		// A legal op leads only to dead ends; of an illegal one, the
		// model's words, or else the state it refused it in.
		stuck := checker.Stuck{Op: p.c.Pos[op]}
		_, stuck.Legal = p.m.Step(st, mo)
		if !stuck.Legal && ex != nil {
			stuck.Said = ex.Explain(st, mo, p.c.Table)
		}
		if !stuck.Legal && stuck.Said == "" {
			stuck.Said, stuck.State = p.m.Describe(st, p.c.Table), true
		}
		v.Stuck = append(v.Stuck, stuck)
	}
	sort.Ints(v.Ops)
	if p.keyed && len(keys) > 0 {
		same := true
		for _, k := range keys {
			same = same && k == keys[0]
		}
		if same {
			v.Key = p.keys[keys[0]].String()
		}
	}
	v.Searched = len(p.c.Ops)
	return v
}

// endsFree reports whether the order on the trail, every completed
// operation placed, ends as the problem asks: anyhow, or, with endFree,
// with a counting model's count at 0, if need be after one more of the
// operations left (all of unknown outcome, so those before it in its
// process can be skipped), which it then places.
func (s *searcher[S]) endsFree() bool {
	p := s.p
	if !p.endFree {
		return true
	}
	cm := p.m.(model.Counting)
	count := 0
	for _, st := range s.trail {
		if !st.skip {
			count += cm.Delta(&p.c.Ops[st.op])
		}
	}
	if count == 0 {
		return true
	}
	for pi, ops := range p.procs {
		for f := int(s.front[pi]); f < len(ops); f++ {
			mo := &p.c.Ops[ops[f]]
			k := p.keyOf[ops[f]]
			if next, legal := p.m.Step(s.states[k], mo); legal && count+cm.Delta(mo) == 0 {
				for s.front[pi] < int32(f) {
					s.exec(int32(pi), s.states[k], true)
				}
				s.exec(int32(pi), next, false)
				return true
			}
		}
	}
	return false
}
