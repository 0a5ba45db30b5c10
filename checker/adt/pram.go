package adt

// pramSearch decides pram: one choice of which operations of unknown
// outcome took effect such that every process has a view, a sequence of
// all events that keeps every process's order, with its own outputs
// visible and the others' hidden, that the model accepts.
type pramSearch[S comparable] struct {
	p      *problem[S]
	clock  [][]int32 // process order alone: each event sees its own prefix
	absent []bool
	views  [][]int32 // per process, its view
	// fail is the first refutation: the process without a view when no
	// operation of unknown outcome took effect, and its search's facts.
	fail     int
	failFact linResult
}

func newPramSearch[S comparable](p *problem[S]) *pramSearch[S] {
	n := len(p.c.Ops)
	s := &pramSearch[S]{p: p, clock: make([][]int32, n), absent: make([]bool, n), fail: -1}
	for e := range p.c.Ops {
		c := make([]int32, len(p.procs))
		c[p.proc[e]] = p.idx[e] + 1
		s.clock[e] = c
	}
	return s
}

// run tries the choices of which unknown updates took effect, fewest
// first; unknown pure reads never matter (hidden, they change nothing).
func (s *pramSearch[S]) run() (bool, error) {
	var optional []int32
	for e, u := range s.p.unknown {
		if u {
			s.absent[e] = true
			if !s.p.pure[e] {
				optional = append(optional, int32(e))
			}
		}
	}
	for k := 0; k <= len(optional); k++ {
		if ok, err := s.choose(optional, k); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// choose tries every way of letting k more of optional take effect.
func (s *pramSearch[S]) choose(optional []int32, k int) (bool, error) {
	if k == 0 {
		return s.findViews()
	}
	for i := len(optional) - 1; i >= k-1; i-- {
		e := optional[i]
		s.absent[e] = false
		if ok, err := s.choose(optional[:i], k-1); ok || err != nil {
			return ok, err
		}
		s.absent[e] = true
	}
	return false, nil
}

// findViews looks for every process's view under the current choice.
func (s *pramSearch[S]) findViews() (bool, error) {
	upto := make([]int32, len(s.p.procs))
	for r, evs := range s.p.procs {
		upto[r] = int32(len(evs))
	}
	views := make([][]int32, len(s.p.procs))
	for r := range s.p.procs {
		own := int32(r)
		res, err := s.p.linearize(lin{upto: upto, clock: s.clock, absent: s.absent,
			visible: func(x int32) bool { return s.p.proc[x] == own }, last: -1, first: own})
		if err != nil {
			return false, err
		}
		if !res.ok {
			if s.fail < 0 {
				s.fail, s.failFact = r, res
			}
			return false, nil
		}
		views[r] = res.order
	}
	s.views = views
	return true, nil
}
