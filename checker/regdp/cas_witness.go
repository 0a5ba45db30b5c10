package regdp

import (
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

func (s *casSearch) witness() ([]int, []bool, error) {
	return s.order(s.path(len(s.p.events)-1, 0), len(s.p.events))
}

func (s *casSearch) gaveUp() string {
	if s.outOfRoom {
		return fmt.Sprintf("the memory limit was reached at event %d of %d", s.at, len(s.p.events))
	}
	if s.tooMany {
		return fmt.Sprintf("more than %d configurations in one gap, or %d in all, at event %d of %d; the history has too many compare-and-set operations pending at once for this engine", s.limit, maxRecorded, s.at, len(s.p.events))
	}
	return ""
}

func (s *casSearch) progress() (int, int64, int64) { return s.at, s.states, s.peak }

// path recovers the effects of each gap up to and including return event
// last, following parents back from configuration idx of the frontier
// after it.
func (s *casSearch) path(last int, idx int32) map[int][]int32 {
	gaps := make(map[int][]int32)
	for e := last; e >= 0; e-- {
		ev := s.p.events[e]
		if !ev.ret || s.p.ops[ev.op].kind == kAny {
			continue
		}
		tr := &s.trail[e]
		gaps[e] = tr.ops[tr.start[idx]:tr.start[idx+1]]
		idx = tr.parent[idx]
	}
	return gaps
}

// order lays the gaps' effects out as an order of the operations before
// event stop that respects real time and the register, each read placed
// just after the first moment its value is held within its interval.
// Crashed operations are taken, within their class, in call order. Reads
// still waiting at stop are left out (a prefix). used tells which
// operations (indices into p.ops) took effect.
func (s *casSearch) order(gaps map[int][]int32, stop int) (order []int, used []bool, err error) {
	p := s.p
	used = make([]bool, len(p.ops))
	cur := p.init
	waiting := make([][]int32, len(p.vals))
	called := make([][]int32, len(s.classTo)) // crashed operations called, per class
	taken := make([]int, len(s.classTo))
	emit := func(o int32) {
		order = append(order, p.ops[o].pos)
		used[o] = true
	}
	// Writes that took effect unseen go just before the last write after
	// their call: lastBlind is its place in order and its gap's event.
	lastBlind, lastBlindAt := -1, -1
	unseen := map[int][]int{}
	for e := 0; e < stop; e++ {
		ev := p.events[e]
		op := &p.ops[ev.op]
		switch {
		case !ev.ret && op.kind == kAny:
			emit(ev.op)
		case !ev.ret && op.kind == kCrash:
			k := s.classOf[ev.op]
			called[k] = append(called[k], ev.op)
		case !ev.ret && op.kind == kRead:
			if op.val == cur {
				emit(ev.op)
			} else {
				waiting[op.val] = append(waiting[op.val], ev.op)
			}
		case ev.ret && op.kind != kAny:
			for _, w := range gaps[e] {
				if p.ops[w].kind == kCrash {
					k := s.classOf[w]
					if taken[k] >= len(called[k]) {
						return nil, nil, fmt.Errorf("replay: no crashed operation of %s left at event %d", p.op(p.ops[w].pos).Label(), e)
					}
					w = called[k][taken[k]]
					taken[k]++
				}
				if from := p.ops[w].from; from != blind && from != cur {
					return nil, nil, fmt.Errorf("replay: %s takes effect when the register does not hold what it expects", p.op(p.ops[w].pos).Label())
				}
				if p.ops[w].from == blind {
					lastBlind, lastBlindAt = len(order), e
				}
				emit(w)
				cur = p.ops[w].val
				for _, rd := range waiting[cur] {
					emit(rd)
				}
				waiting[cur] = waiting[cur][:0]
			}
			if !used[ev.op] && op.from == blind && op.kind == kWrite && lastBlindAt > int(op.call) {
				unseen[lastBlind] = append(unseen[lastBlind], op.pos)
				used[ev.op] = true
			}
			if !used[ev.op] {
				return nil, nil, fmt.Errorf("replay: %s returned without taking effect", p.op(op.pos).Label())
			}
		}
	}
	return withUnseen(order, unseen), used, nil
}

// withUnseen inserts before each place in order the operations unseen
// gives for it.
func withUnseen(order []int, unseen map[int][]int) []int {
	if len(unseen) == 0 {
		return order
	}
	out := make([]int, 0, len(order)+len(unseen))
	for i, x := range order {
		out = append(out, unseen[i]...)
		out = append(out, x)
	}
	return out
}

// violation describes the operation at whose return no configuration
// survived: a read that could not see its value, or a compare-and-set
// that could not find the value it expects.
func (s *casSearch) violation() checker.Violation {
	p := s.p
	e := s.deadAt
	op := &p.ops[p.events[e].op]
	var v checker.Violation
	prev := -1
	for x := e - 1; x >= 0; x-- {
		if ev := p.events[x]; ev.ret && p.ops[ev.op].kind != kAny {
			prev = x
			break
		}
	}
	gaps := map[int][]int32{}
	if prev >= 0 {
		gaps = s.path(prev, 0)
	}
	if order, _, err := s.order(gaps, e); err == nil {
		v.Prefix = order
	}
	want, shown := op.val, p.shownValue(op)
	if op.from != blind {
		want, shown = op.from, p.shownFrom(op)
	}
	v.Ops = []int{op.pos}
	v.Op, v.Value = op.pos, describe(shown)
	v.Initial = want == p.init
	// The operations that could have set the value, latest call first.
	for i := len(p.ops) - 1; i >= 0 && len(v.Writes) < 3; i-- {
		w := &p.ops[i]
		if (w.kind == kWrite || w.kind == kCrash) && w.val == want && w.call < int32(e) && w != op {
			v.Ops = append(v.Ops, w.pos)
			v.Writes = append(v.Writes, w.pos)
		}
	}
	v.Pattern = "stale-read"
	return v
}

// shownFrom is the value a compare-and-set expects, as the operation shown
// in its place gives it (see shownValue).
func (p *problem) shownFrom(op *rop) history.Value {
	if p.shown != nil {
		if v := p.shown(op.pos).Value; v.Kind() == history.List && v.Len() == 2 {
			if f := v.Elems()[0]; !f.IsNone() {
				return f
			}
		}
	}
	return p.vals[op.from]
}
