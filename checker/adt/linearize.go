package adt

import "encoding/binary"

// lin is one question to the linearization search: is there a sequence
// of the events in the per-process prefixes upto, respecting the order
// the clocks give, whose outputs are visible where visible says and that
// the model accepts, followed by last (visible) when last >= 0?
type lin struct {
	upto    []int32
	clock   [][]int32 // clock[x][q]: how long a prefix of q event x has seen
	absent  []bool    // events that did not take effect
	visible func(x int32) bool
	last    int32
	// first is the process tried first at every step: the one whose
	// outputs show, whose events are likeliest to need going early.
	first int32
}

// linSearch answers lin questions for one problem, memoising the failed
// configurations of each question.
type linSearch[S comparable] struct {
	p      *problem[S]
	q      lin
	failed map[string]struct{}
	path   []int32
	key    []byte
	// order is the order processes are tried in: the one whose outputs
	// show first (see lin.first).
	order []int
	// best is the longest legal prefix any branch reached, and stuck
	// the events that could go next there: facts for a refutation.
	best  []int32
	stuck []int32
}

// linResult is a lin question's answer: the sequence when there is one,
// else the longest legal prefix found and the events that could not
// follow it.
type linResult struct {
	order       []int32
	ok          bool
	best, stuck []int32
}

// linearize answers q: the sequence (hidden pure reads left out, last
// included) when there is one. The error is the budget's or the context's.
func (p *problem[S]) linearize(q lin) (linResult, error) {
	s := &linSearch[S]{p: p, q: q, failed: map[string]struct{}{}, order: []int{int(q.first)}}
	for r := range p.procs {
		if int32(r) != q.first {
			s.order = append(s.order, r)
		}
	}
	u := make([]int32, len(p.procs))
	s.path = s.advance(u, nil)
	ok, err := s.dfs(u, p.init)
	if !ok || err != nil {
		return linResult{best: s.best, stuck: s.stuck}, err
	}
	out := append([]int32(nil), s.path...)
	if q.last >= 0 {
		out = append(out, q.last)
	}
	return linResult{order: out, ok: true}, nil
}

// note keeps u's configuration as the deepest when it is.
func (s *linSearch[S]) note(u []int32) {
	if s.best != nil && len(s.path) <= len(s.best) {
		return
	}
	s.best = append(s.best[:0:0], s.path...)
	s.stuck = s.stuck[:0:0]
	for r, evs := range s.p.procs {
		if u[r] < s.q.upto[r] {
			s.stuck = append(s.stuck, evs[u[r]])
		}
	}
	if s.done(u) && s.q.last >= 0 {
		s.stuck = append(s.stuck, s.q.last)
	}
}

// ready reports whether every event x has seen, other than its own
// process's, is taken in u.
func (s *linSearch[S]) ready(x int32, u []int32) bool {
	own := s.p.proc[x]
	for r, n := range s.q.clock[x] {
		if int32(r) != own && n > u[r] {
			return false
		}
	}
	return true
}

// skippable reports whether x can be taken at once whenever it is ready:
// it did not take effect, or it is a pure read whose output is hidden.
func (s *linSearch[S]) skippable(x int32) bool {
	return s.q.absent[x] || (s.p.pure[x] && !s.q.visible(x))
}

// advance takes, in u, every skippable event that is ready, and
// appends to path those that took effect (the pure reads).
func (s *linSearch[S]) advance(u []int32, path []int32) []int32 {
	for moved := true; moved; {
		moved = false
		for r, evs := range s.p.procs {
			for u[r] < s.q.upto[r] {
				x := evs[u[r]]
				if !s.skippable(x) || !s.ready(x, u) {
					break
				}
				u[r]++
				moved = true
				if !s.q.absent[x] {
					path = append(path, x)
				}
			}
		}
	}
	return path
}

func (s *linSearch[S]) done(u []int32) bool {
	for r, n := range s.q.upto {
		if u[r] < n {
			return false
		}
	}
	return true
}

func (s *linSearch[S]) memoKey(u []int32, g string) string {
	s.key = s.key[:0]
	for _, n := range u {
		s.key = binary.AppendUvarint(s.key, uint64(n))
	}
	s.key = append(s.key, g...)
	return string(s.key)
}

func (s *linSearch[S]) dfs(u []int32, g string) (bool, error) {
	if err := s.p.budget.tick(); err != nil {
		return false, err
	}
	if s.done(u) {
		if s.q.last < 0 {
			return true, nil
		}
		if _, ok := s.p.w.step(g, s.q.last, true); ok {
			return true, nil
		}
		s.note(u)
		return false, nil
	}
	key := s.memoKey(u, g)
	if _, bad := s.failed[key]; bad {
		return false, nil
	}
	for _, r := range s.order {
		evs := s.p.procs[r]
		if u[r] >= s.q.upto[r] {
			continue
		}
		x := evs[u[r]]
		if !s.ready(x, u) {
			continue
		}
		next, legal := s.p.w.step(g, x, s.q.visible(x))
		if !legal {
			continue
		}
		v := append([]int32(nil), u...)
		v[r]++
		mark := len(s.path)
		s.path = s.advance(v, append(s.path, x))
		ok, err := s.dfs(v, next)
		if ok || err != nil {
			return ok, err
		}
		s.path = s.path[:mark]
	}
	s.p.remember(s.failed, key)
	s.note(u)
	return false, nil
}
