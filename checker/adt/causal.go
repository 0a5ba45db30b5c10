package adt

import (
	"encoding/binary"

	"github.com/histcheck/histcheck/checker"
)

// causalSearch looks for a causal order by committing events one at a
// time, each with its causal past. A causal order that contains process
// order is a vector clock per event (how long a prefix of each process it
// has seen), monotone along each process and closed (an event sees the
// past of every event it sees), and has a linear extension: the commit
// order. So committing, in every order, each event with every closed past
// made of committed events decides the criterion exactly. For
// causal-convergence the commit order is the total order ≤ itself.
//
// What the events still to come can do depends only on the clocks of the
// committed events (and, for causal-convergence, on the order of the
// committed updates), whatever order committed them: configurations that
// failed are memoised on that.
type causalSearch[S comparable] struct {
	p      *problem[S]
	crit   string
	next   []int32   // per process, its next event to commit
	clock  [][]int32 // per committed event, its clock
	absent []bool    // events of unknown outcome that took no effect
	order  []int32   // the commit order
	views  [][]int32 // per committed event, its past in an order the model accepts, itself last
	failed map[string]struct{}
	key    []byte
	// deepest is the longest commit order a failed branch reached, stuck
	// its processes' next events, legal which of them some past explained.
	deepest, stuck []int32
	legal          []bool
	// isolated says the refutation is an event no past at all explains.
	isolated bool
	// reachable caches the relaxation's answers (see reach).
	reachable map[string]bool
}

func newCausalSearch[S comparable](p *problem[S], crit string) *causalSearch[S] {
	n := len(p.c.Ops)
	return &causalSearch[S]{p: p, crit: crit, next: make([]int32, len(p.procs)),
		clock: make([][]int32, n), absent: make([]bool, n), views: make([][]int32, n),
		failed: map[string]struct{}{}, reachable: map[string]bool{}}
}

// run searches; it reports whether a causal order exists. It first
// asks of each event whether any past at all could explain it: one that
// none can refutes the history at once, with the smallest facts.
func (s *causalSearch[S]) run() (bool, error) {
	for e := range s.p.c.Ops {
		if s.p.unknown[e] {
			continue
		}
		lo := make([]int32, len(s.p.procs))
		lo[s.p.proc[e]] = s.p.idx[e]
		ok, err := s.explainable(int32(e), lo)
		if err != nil {
			return false, err
		}
		if !ok {
			s.deepest, s.stuck, s.legal = nil, []int32{int32(e)}, []bool{false}
			s.isolated = true
			return false, nil
		}
	}
	if ok, err := s.solo(); ok || err != nil {
		return ok, err
	}
	return s.dfs()
}

// solo tries the smallest causal order, each process's own order: every
// event's past is its process's earlier events, and events of unknown
// outcome are left out. When each process explains its own outputs that
// way (as a lock's clients that each alternate acquire and release do),
// it is a witness at the cost of one pass, where the search, going deep
// with its pruning at every step, can spend its budget first. Otherwise
// everything is undone and the search decides.
func (s *causalSearch[S]) solo() (bool, error) {
	for r, evs := range s.p.procs {
		for _, e := range evs {
			if s.p.unknown[e] {
				s.absent[e] = true
				s.next[r]++
				continue
			}
			c := s.lowerBound(r, e)
			view, ok, err := s.explain(e, c)
			if err != nil || !ok {
				s.undoSolo()
				return false, err
			}
			c = append([]int32(nil), c...)
			c[r] = s.p.idx[e] + 1
			s.clock[e], s.views[e] = c, view
			s.order = append(s.order, e)
			s.next[r]++
		}
	}
	return true, nil
}

// undoSolo forgets what solo committed.
func (s *causalSearch[S]) undoSolo() {
	for _, e := range s.order {
		s.clock[e], s.views[e] = nil, nil
	}
	s.order = s.order[:0]
	clear(s.next)
	clear(s.absent)
}

func (s *causalSearch[S]) dfs() (bool, error) {
	if err := s.p.budget.tick(); err != nil {
		return false, err
	}
	key := s.memoKey()
	if _, bad := s.failed[key]; bad {
		return false, nil
	}
	if dead, err := s.dead(); dead || err != nil {
		s.p.remember(s.failed, key)
		return false, err
	}
	legal := make([]bool, len(s.p.procs))
	all := true
	for r, evs := range s.p.procs {
		if int(s.next[r]) >= len(evs) {
			continue
		}
		all = false
		e := evs[s.next[r]]
		ok, expl, err := s.tryEvent(r, e)
		legal[r] = expl
		if ok || err != nil {
			return ok, err
		}
	}
	if all {
		return true, nil
	}
	s.p.remember(s.failed, key)
	s.noteDeepest(legal)
	return false, nil
}

// dead reports whether some process's next event, which must take
// effect, can never be explained with the past it is already bound to
// contain (its predecessor's).
func (s *causalSearch[S]) dead() (bool, error) {
	for r, evs := range s.p.procs {
		if int(s.next[r]) >= len(evs) {
			continue
		}
		e := evs[s.next[r]]
		if s.p.unknown[e] {
			continue
		}
		ok, err := s.stillExplainable(e, s.lowerBound(r, e))
		if !ok || err != nil {
			if err == nil {
				s.noteDead(r, e)
			}
			return !ok, err
		}
	}
	return false, nil
}

// lowerBound is the past e (of process r) must contain: its process's
// earlier events and its predecessor's past.
func (s *causalSearch[S]) lowerBound(r int, e int32) []int32 {
	lo := make([]int32, len(s.p.procs))
	if i := s.p.idx[e]; i > 0 {
		if prev := s.prevPresent(r, i); prev >= 0 {
			copy(lo, s.clock[prev])
		}
	}
	lo[r] = s.p.idx[e]
	return lo
}

// tryEvent commits e (of process r) in every way, and goes on: as not
// taking effect when its outcome is unknown, then with each closed past.
// expl reports whether some past explained e.
func (s *causalSearch[S]) tryEvent(r int, e int32) (ok, expl bool, err error) {
	if s.p.unknown[e] {
		s.absent[e] = true
		s.next[r]++
		if ok, err = s.dfs(); ok || err != nil {
			return ok, true, err
		}
		s.next[r]--
		s.absent[e] = false
	}
	var good bool
	_, err = s.eachCandidate(r, e, func(v []int32) (bool, error) {
		if err := s.p.budget.tick(); err != nil {
			return true, err
		}
		view, explains, err := s.explain(e, v)
		if err != nil || !explains {
			return err != nil, err
		}
		expl = true
		good, err = s.commit(r, e, v, view)
		return good || err != nil, err
	})
	return good, expl, err
}

// commit records e with past v and its view, searches on, and undoes.
func (s *causalSearch[S]) commit(r int, e int32, v []int32, view []int32) (bool, error) {
	c := append([]int32(nil), v...)
	c[r] = s.p.idx[e] + 1
	s.clock[e], s.views[e] = c, view
	s.order = append(s.order, e)
	s.next[r]++
	ok, err := s.dfs()
	if ok || err != nil {
		return ok, err
	}
	s.next[r]--
	s.order = s.order[:len(s.order)-1]
	s.clock[e], s.views[e] = nil, nil
	return false, nil
}

// explain asks whether past v explains e's output as the criterion
// demands, and returns the view that does.
func (s *causalSearch[S]) explain(e int32, v []int32) ([]int32, bool, error) {
	if s.crit == checker.CausalConvergence {
		return s.replay(e, v)
	}
	vis := func(x int32) bool { return x == e }
	if s.crit == checker.CausalMemory {
		own := s.p.proc[e]
		vis = func(x int32) bool { return s.p.proc[x] == own }
	}
	r, err := s.p.linearize(lin{upto: v, clock: s.clock, absent: s.absent, visible: vis, last: e, first: s.p.proc[e]})
	return r.order, r.ok, err
}

// replay steps the past v in commit order, outputs hidden, then e.
func (s *causalSearch[S]) replay(e int32, v []int32) ([]int32, bool, error) {
	g := s.p.init
	var view []int32
	for _, x := range s.order {
		if s.p.idx[x] >= v[s.p.proc[x]] {
			continue
		}
		if err := s.p.budget.tick(); err != nil {
			return nil, false, err
		}
		view = append(view, x)
		if s.p.pure[x] {
			continue
		}
		next, ok := s.p.w.step(g, x, false)
		if !ok {
			return nil, false, nil
		}
		g = next
	}
	_, ok := s.p.w.step(g, e, true)
	return append(view, e), ok, nil
}

// eachCandidate calls fn with each closed past e (of process r) can have
// among the committed events, until fn says stop: the smallest first
// (what e's process forces), then everything committed, then the others.
// It reports whether fn stopped it.
func (s *causalSearch[S]) eachCandidate(r int, e int32, fn func(v []int32) (bool, error)) (bool, error) {
	lo := s.lowerBound(r, e)
	if s.p.blind[e] {
		// A blind write of a register model needs no more than its
		// process forces: its predecessor's view, hidden (every hidden
		// step of such a model is legal), then itself, explains it, and a
		// smaller past only lets the events that see it see less.
		return fn(lo)
	}
	np := len(s.p.procs)
	vals := make([][]int32, np)
	top := make([]int32, np)
	for q := range vals {
		vals[q] = []int32{lo[q]}
		if q != r {
			vals[q] = s.values(q, lo[q], s.next[q])
		}
		top[q] = vals[q][len(vals[q])-1]
	}
	if stop, err := fn(lo); stop || err != nil {
		return stop, err
	}
	if !equal(top, lo) {
		if stop, err := fn(top); stop || err != nil {
			return stop, err
		}
	}
	cur := make([]int32, np)
	var walk func(q int) (bool, error)
	walk = func(q int) (bool, error) {
		if q == np {
			if equal(cur, lo) || equal(cur, top) || !s.closed(cur) {
				return false, s.p.budget.tick()
			}
			return fn(append([]int32(nil), cur...))
		}
		for _, n := range vals[q] {
			cur[q] = n
			if stop, err := walk(q + 1); stop || err != nil {
				return stop, err
			}
		}
		return false, nil
	}
	return walk(0)
}

func equal(a, b []int32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// prevPresent returns the last event of process r before place i that
// took effect, or -1.
func (s *causalSearch[S]) prevPresent(r int, i int32) int32 {
	for j := i - 1; j >= 0; j-- {
		if x := s.p.procs[r][j]; !s.absent[x] {
			return x
		}
	}
	return -1
}

// values lists the prefix lengths of another process q from lo to hi
// that end at an update that took effect (or at lo), so that each set of
// events has one clock. A past need never end, in another process, at a
// pure read: hidden, a read changes nothing, so cutting the reads at the
// end of every other process's prefix from every past (keeping what they
// had seen) leaves a causal order that explains as much.
func (s *causalSearch[S]) values(q int, lo, hi int32) []int32 {
	out := []int32{lo}
	for j := lo; j < hi; j++ {
		if x := s.p.procs[q][j]; !s.absent[x] && !s.p.pure[x] {
			out = append(out, j+1)
		}
	}
	return out
}

// closed reports whether the past v contains the past of every event
// it holds (the last of each process suffices: clocks grow along it).
func (s *causalSearch[S]) closed(v []int32) bool {
	for q, n := range v {
		if n == 0 {
			continue
		}
		x := s.prevPresent(q, n)
		if x < 0 {
			continue
		}
		for r, m := range s.clock[x] {
			if m > v[r] {
				return false
			}
		}
	}
	return true
}

// memoKey encodes what the rest of the search depends on: each
// committed event's clock (or its absence) and, for causal-convergence,
// the order of the committed updates.
func (s *causalSearch[S]) memoKey() string {
	b := s.key[:0]
	for r, evs := range s.p.procs {
		b = binary.AppendUvarint(b, uint64(s.next[r]))
		for _, x := range evs[:s.next[r]] {
			if s.absent[x] {
				b = append(b, 0xff)
				continue
			}
			for _, n := range s.clock[x] {
				b = binary.AppendUvarint(b, uint64(n))
			}
		}
	}
	if s.crit == checker.CausalConvergence {
		for _, x := range s.order {
			if !s.p.pure[x] {
				b = binary.AppendUvarint(b, uint64(x))
			}
		}
	}
	s.key = b
	return string(b)
}

// noteDead keeps, as the refutation's facts, the configuration where
// e (of process r) can no longer be explained, when it is the deepest.
func (s *causalSearch[S]) noteDead(r int, e int32) {
	if s.stuck != nil && len(s.order) <= len(s.deepest) {
		return
	}
	s.deepest = append([]int32(nil), s.order...)
	s.stuck, s.legal = []int32{e}, []bool{false}
}

// noteDeepest keeps the configuration as the refutation's facts when it
// is the deepest so far.
func (s *causalSearch[S]) noteDeepest(legal []bool) {
	if s.stuck != nil && len(s.order) <= len(s.deepest) {
		return
	}
	s.deepest = append([]int32(nil), s.order...)
	s.stuck, s.legal = s.stuck[:0:0], s.legal[:0:0]
	for r, evs := range s.p.procs {
		if int(s.next[r]) < len(evs) {
			s.stuck = append(s.stuck, evs[s.next[r]])
			s.legal = append(s.legal, legal[r])
		}
	}
}
