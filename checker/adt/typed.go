package adt

import (
	"encoding/binary"

	"github.com/histcheck/histcheck/checker"
)

// typedSearch decides read-your-writes and writes-follow-reads in their
// typed forms (see the package doc): it builds ar one event at a time,
// in any order the guarantee allows, and keeps for every observation not
// yet placed the set of states its visible events can reach.
//
//   - read-your-writes, ↦[update→observation] ⊆ vis: an observation is
//     placed only after its process's earlier updates, and its visible
//     events must hold them; nothing else orders ar, so a process's
//     updates that no observation of it separates may be placed in any
//     order (two appends seen in the reverse order by another process).
//   - writes-follow-reads, vis;↦[observation→update] ⊆ ar: an
//     observation sees only updates placed before the first update its
//     process issues after it, so its set stops growing once that update
//     is placed.
//
// An observation's output is legal after some subsequence of the updates
// placed before it, in ar order, with the inclusions its guarantee asks;
// its set holds the states every such subsequence reaches, which is all
// the rest of the search needs of it. An event that is not an
// observation may see any subsequence (one global set). Pure reads change
// nothing and no event needs to see one, so they wait for the end of ar,
// where their sets are checked. The failed configurations (the events
// placed and the sets) are memoised; the search is exact.
type typedSearch[S comparable] struct {
	p      *problem[S]
	ryw    bool
	obs    []bool
	placed []bool // placed in ar, or of unknown outcome and absent
	absent []bool
	frozen []bool     // writes-follow-reads: the observation's set is final
	sets   []stateSet // per observation not yet placed, its states
	all    stateSet   // the states any subsequence of ar reaches
	order  []int32    // ar so far
	failed map[string]struct{}
	key    []byte
	// deepest is the longest ar a failed branch reached, stuck the
	// events that could not follow it.
	deepest, stuck []int32
	// Monotonic reads (see chainOf): mr is set; cpos is each event's
	// place in its process's chain (-1 outside it), clen each chain's
	// length, top the last place of each chain already in ar, thr each
	// placed update's place of entry into each chain.
	mr              bool
	cpos, clen, top []int32
	thr             [][]int32
}

func newTypedSearch[S comparable](p *problem[S], crit string, obs []bool) *typedSearch[S] {
	n := len(p.c.Ops)
	s := &typedSearch[S]{p: p, ryw: crit == checker.ReadYourWrites, mr: crit == checker.MonotonicReads, obs: obs, placed: make([]bool, n),
		absent: make([]bool, n), frozen: make([]bool, n), sets: make([]stateSet, n), all: stateSet{p.init},
		failed: map[string]struct{}{}}
	for e := range p.c.Ops {
		if p.pure[e] && p.unknown[e] {
			s.placed[e], s.absent[e] = true, true // a hidden read is nothing
			continue
		}
		if obs[e] || p.pure[e] {
			s.sets[e] = stateSet{p.init}
		}
	}
	if s.mr {
		s.chainOf()
	}
	return s
}

func (s *typedSearch[S]) run() (bool, error) { return s.dfs() }

func (s *typedSearch[S]) dfs() (bool, error) {
	if err := s.p.budget.tick(); err != nil {
		return false, err
	}
	key := s.memoKey()
	if _, bad := s.failed[key]; bad {
		return false, nil
	}
	done := true
	for _, evs := range s.p.procs {
		for _, e := range evs {
			if s.placed[e] || s.p.pure[e] {
				continue
			}
			done = false
			if !s.ready(e) {
				continue
			}
			if ok, err := s.try(e); ok || err != nil {
				return ok, err
			}
		}
	}
	if done && s.readsLegal() {
		return true, nil
	}
	s.p.remember(s.failed, key)
	s.note()
	return false, nil
}

// ready reports whether e may be placed next: under read-your-writes an
// observation waits for its process's earlier updates.
func (s *typedSearch[S]) ready(e int32) bool {
	if !s.ryw || !s.obs[e] {
		return true
	}
	for _, x := range s.p.procs[s.p.proc[e]][:s.p.idx[e]] {
		if !s.placed[x] && !s.p.pure[x] {
			return false
		}
	}
	return true
}

// try places e next in ar (or, of unknown outcome, nowhere) and goes on.
func (s *typedSearch[S]) try(e int32) (bool, error) {
	if s.p.unknown[e] {
		s.placed[e], s.absent[e] = true, true
		if ok, err := s.dfs(); ok || err != nil {
			return ok, err
		}
		s.absent[e] = false
	}
	set := s.all
	if s.obs[e] {
		set = s.sets[e]
	}
	if !s.p.unknown[e] && !s.legalAfter(set, e) {
		s.placed[e] = false
		return false, nil
	}
	if s.mr {
		return s.placeChained(e)
	}
	saved, savedAll, savedFrozen := s.sets, s.all, append([]bool(nil), s.frozen...)
	s.placed[e] = true
	s.order = append(s.order, e)
	s.sets, s.all = s.after(e), union(s.all, s.stepAll(s.all, e))
	ok, err := s.dfs()
	if ok || err != nil {
		return ok, err
	}
	s.order = s.order[:len(s.order)-1]
	s.placed[e] = false
	s.sets, s.all, s.frozen = saved, savedAll, savedFrozen
	return false, nil
}

// after returns the observations' sets once update e is in ar.
func (s *typedSearch[S]) after(e int32) []stateSet {
	out := make([]stateSet, len(s.sets))
	copy(out, s.sets)
	for o, set := range s.sets {
		if set == nil || s.placed[o] || s.frozen[o] {
			continue
		}
		sameProc := s.p.proc[o] == s.p.proc[e]
		switch {
		case !s.ryw && sameProc && s.p.idx[o] < s.p.idx[e]:
			s.frozen[o] = true // it sees nothing placed from now on
		case s.ryw && sameProc && s.p.idx[e] < s.p.idx[o]:
			out[o] = union(nil, s.stepAll(set, e)) // it must see e
		default:
			out[o] = union(set, s.stepAll(set, e))
		}
	}
	return out
}

// stepAll steps e, hidden, from every state of set, each state counted
// against the budget.
func (s *typedSearch[S]) stepAll(set stateSet, e int32) []string {
	out := make([]string, 0, len(set))
	for _, g := range set {
		if s.p.budget.tick() != nil {
			return out
		}
		next, _ := s.p.w.step(g, e, false)
		out = append(out, next)
	}
	return out
}

func (s *typedSearch[S]) legalAfter(set stateSet, e int32) bool {
	for _, g := range set {
		if _, ok := s.p.w.step(g, e, true); ok {
			return true
		}
	}
	return false
}

// readsLegal checks the pure reads left for the end of ar.
func (s *typedSearch[S]) readsLegal() bool {
	for e, pure := range s.p.pure {
		if pure && !s.absent[e] && !s.legalAfter(s.sets[e], int32(e)) {
			s.stuck = []int32{int32(e)}
			return false
		}
	}
	return true
}

func (s *typedSearch[S]) memoKey() string {
	b := s.key[:0]
	for e, pl := range s.placed {
		switch {
		case s.absent[e]:
			b = append(b, 2)
		case pl:
			b = append(b, 1)
		case s.frozen[e]:
			b = append(b, 3)
		default:
			b = append(b, 0)
		}
	}
	for e, set := range append(s.sets, s.all) {
		if e < len(s.placed) && (set == nil || s.placed[e]) {
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(set)))
		for _, g := range set {
			b = append(b, g...)
		}
	}
	s.key = b
	return string(b)
}

// note keeps the configuration as the refutation's facts when it is the
// deepest so far.
func (s *typedSearch[S]) note() {
	if s.deepest != nil && len(s.order) <= len(s.deepest) {
		return
	}
	s.deepest = append([]int32{}, s.order...)
	if len(s.stuck) > 0 && len(s.order) == len(s.placed) {
		return
	}
	s.stuck = nil
	for e, pl := range s.placed {
		if !pl && !s.p.pure[e] {
			s.stuck = append(s.stuck, int32(e))
		}
	}
}

// Monotonic reads, vis;↦[observation→observation] ⊆ vis, chains the
// visible sets of each process's observations: V(o1) ⊆ V(o2) ⊆ ... in
// process order. So each update u enters the chain of each process r at
// one place j (the first observation of r that sees it; past the last
// when none does) and is then seen by every later observation of r, all
// of which must come after u in ar: j lies past every observation of r
// already placed. The search chooses j when it places u; an observation
// not yet placed then has one state, that of the updates placed so far
// that it sees, in ar order. Every witness gives such choices (j the
// first observation whose set holds u) and every choice gives a witness,
// so the search is exact.

// chainOf numbers each process's chained events (the observations and
// the pure reads) in process order.
func (s *typedSearch[S]) chainOf() {
	s.cpos = make([]int32, len(s.p.c.Ops))
	s.clen = make([]int32, len(s.p.procs))
	s.top = make([]int32, len(s.p.procs))
	s.thr = make([][]int32, len(s.p.c.Ops))
	for r, evs := range s.p.procs {
		s.top[r] = -1
		for _, e := range evs {
			s.cpos[e] = -1
			if s.sets[e] != nil {
				s.cpos[e] = s.clen[r]
				s.clen[r]++
			}
		}
	}
}

// placeChained places update e (already checked) and goes on with every
// choice of where it enters each process's chain.
func (s *typedSearch[S]) placeChained(e int32) (bool, error) {
	savedSets, savedAll, savedTop := s.sets, s.all, append([]int32(nil), s.top...)
	s.placed[e] = true
	s.order = append(s.order, e)
	s.all = union(s.all, s.stepAll(s.all, e))
	if r := s.p.proc[e]; s.cpos[e] >= 0 {
		s.top[r] = max(s.top[r], s.cpos[e])
	}
	thr := make([]int32, len(s.p.procs))
	ok, err := s.enter(e, 0, thr)
	if ok || err != nil {
		return ok, err
	}
	s.order = s.order[:len(s.order)-1]
	s.placed[e] = false
	s.sets, s.all, s.top = savedSets, savedAll, savedTop
	return false, nil
}

// enter chooses where update e enters the chain of process r and of
// every process after it, then searches on.
func (s *typedSearch[S]) enter(e int32, r int, thr []int32) (bool, error) {
	if r == len(s.p.procs) {
		s.thr[e] = append([]int32(nil), thr...)
		return s.dfs()
	}
	base := s.sets
	for j := s.top[r] + 1; j <= s.clen[r]; j++ {
		thr[r] = j
		out := make([]stateSet, len(base))
		copy(out, base)
		for _, o := range s.p.procs[r] {
			if s.cpos[o] >= j && !s.placed[o] && out[o] != nil {
				next, _ := s.p.w.step(out[o][0], e, false)
				out[o] = stateSet{next}
			}
		}
		s.sets = out
		if ok, err := s.enter(e, r+1, thr); ok || err != nil {
			return ok, err
		}
		s.sets = base
	}
	return false, nil
}

// chainedView is the visible set of chained event e under the choices
// the search made: the updates of ar before e that entered e's chain at
// or before e's place.
func (s *typedSearch[S]) chainedView(before []int32, e int32) []int32 {
	var out []int32
	r := s.p.proc[e]
	for _, u := range before {
		if !s.p.pure[u] && s.thr[u] != nil && s.thr[u][r] <= s.cpos[e] {
			out = append(out, u)
		}
	}
	return out
}
