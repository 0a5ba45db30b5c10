package adt

import (
	"encoding/binary"
	"sort"
)

// Monotonic writes, ↦[update→update] ⊆ ar, from the abstract executions
// of Burckhardt, Viotti and Vukolić: one total order ar of the events and
// a visibility vis ⊆ ar, such that every event's output is legal after
// the events visible to it, in ar order, outputs hidden. Whether a pure
// read is visible never matters (it changes nothing), and monotonic
// writes keeps each process's updates in their order in ar. Nothing then
// holds a pure read early in ar, and moving every pure read to the end
// keeps a witness: the search orders the updates alone, keeping each
// process's order, and every event sees any subsequence of the updates
// before it. The set of states every such choice reaches is all the rest
// of the search needs. (The other guarantees are in typed.go.)

// stateSet is a set of whole-history states, sorted.
type stateSet []string

// union returns a with more added, sorted, without repeats.
func union(a stateSet, more []string) stateSet {
	b := append([]string(nil), more...)
	sort.Strings(b)
	out := make(stateSet, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		var g string
		switch {
		case j >= len(b) || (i < len(a) && a[i] <= b[j]):
			g = a[i]
			i++
		default:
			g = b[j]
			j++
		}
		if n := len(out); n == 0 || out[n-1] != g {
			out = append(out, g)
		}
	}
	return out
}

// sessionSearch searches ar for monotonic-writes.
type sessionSearch[S comparable] struct {
	p      *problem[S]
	failed map[string]struct{}
	order  []int32 // ar so far
	absent []bool
	// stuck is the deepest configuration's events that could not go
	// next, deepest the ar that led there.
	deepest, stuck []int32
}

func newSessionSearch[S comparable](p *problem[S]) *sessionSearch[S] {
	return &sessionSearch[S]{p: p, failed: map[string]struct{}{}, absent: make([]bool, len(p.c.Ops))}
}

// run searches; it reports whether ar exists.
func (s *sessionSearch[S]) run() (bool, error) {
	return s.dfs(make([]int32, len(s.p.procs)), stateSet{s.p.init})
}

// passReads moves u past the pure reads next in each process: they wait
// for the end of ar.
func (s *sessionSearch[S]) passReads(u []int32) {
	for r, evs := range s.p.procs {
		for int(u[r]) < len(evs) && s.p.pure[evs[u[r]]] {
			u[r]++
		}
	}
}

// dfs goes on from u, the events placed (per process) and set, the
// states any subsequence of ar so far reaches.
func (s *sessionSearch[S]) dfs(u []int32, set stateSet) (bool, error) {
	if err := s.p.budget.tick(); err != nil {
		return false, err
	}
	s.passReads(u)
	key := s.memoKey(u, set)
	if _, bad := s.failed[key]; bad {
		return false, nil
	}
	done := true
	for r, evs := range s.p.procs {
		if int(u[r]) >= len(evs) {
			continue
		}
		done = false
		if ok, err := s.try(u, set, r, evs[u[r]]); ok || err != nil {
			return ok, err
		}
	}
	if done && s.readsLegal(set) {
		return true, nil
	}
	s.p.remember(s.failed, key)
	s.note(u)
	return false, nil
}

// try puts e, the next event of process r, next in ar (or, of unknown
// outcome, nowhere), and goes on.
func (s *sessionSearch[S]) try(u []int32, set stateSet, r int, e int32) (bool, error) {
	v := append([]int32(nil), u...)
	v[r]++
	if s.p.unknown[e] {
		s.absent[e] = true
		if ok, err := s.dfs(v, set); ok || err != nil {
			return ok, err
		}
		s.absent[e] = false
	}
	if !s.legalAfter(set, e) {
		return false, nil
	}
	s.order = append(s.order, e)
	// Any event after e may see it or not.
	ok, err := s.dfs(v, union(set, s.stepAll(set, e)))
	if !ok && err == nil {
		s.order = s.order[:len(s.order)-1]
	}
	return ok, err
}

// legalAfter reports whether e's output is legal in some state of set.
func (s *sessionSearch[S]) legalAfter(set stateSet, e int32) bool {
	for _, g := range set {
		if _, ok := s.p.w.step(g, e, true); ok {
			return true
		}
	}
	return false
}

// stepAll steps e, hidden, from every state of set. Each state stepped
// counts against the budget, which therefore bounds the set's growth as
// well as the search's.
func (s *sessionSearch[S]) stepAll(set stateSet, e int32) []string {
	var out []string
	for _, g := range set {
		if s.p.budget.tick() != nil {
			return out
		}
		next, _ := s.p.w.step(g, e, false)
		out = append(out, next)
	}
	return out
}

// readsLegal checks the pure reads left for the end of ar: each sees any
// subsequence of the updates.
func (s *sessionSearch[S]) readsLegal(set stateSet) bool {
	for e, pure := range s.p.pure {
		if pure && !s.p.unknown[e] && !s.legalAfter(set, int32(e)) {
			s.stuck = []int32{int32(e)}
			return false
		}
	}
	return true
}

func (s *sessionSearch[S]) memoKey(u []int32, set stateSet) string {
	var b []byte
	for _, n := range u {
		b = binary.AppendUvarint(b, uint64(n))
	}
	for _, g := range set {
		b = append(b, g...)
	}
	return string(b)
}

// note keeps the configuration as the refutation's facts when it is the
// deepest so far.
func (s *sessionSearch[S]) note(u []int32) {
	if s.deepest != nil && len(s.order) <= len(s.deepest) {
		return
	}
	s.deepest = append([]int32{}, s.order...)
	if len(s.stuck) > 0 && s.done(u) {
		return
	}
	s.stuck = nil
	for r, evs := range s.p.procs {
		if int(u[r]) < len(evs) {
			s.stuck = append(s.stuck, evs[u[r]])
		}
	}
}

func (s *sessionSearch[S]) done(u []int32) bool {
	for r, evs := range s.p.procs {
		if int(u[r]) < len(evs) {
			return false
		}
	}
	return true
}
