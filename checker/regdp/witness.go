package regdp

import (
	"fmt"

	"github.com/histcheck/histcheck/checker"
)

// path recovers the choice made at each return event up to and including
// event last, following parents back from configuration idx of the
// frontier after last.
func (s *search) path(last int, idx int32) map[int]uint64 {
	choices := make(map[int]uint64)
	for e := last; e >= 0; e-- {
		ev := s.p.events[e]
		if !ev.ret || s.p.ops[ev.op].kind == kAny {
			continue
		}
		tr := &s.trail[e]
		choices[e] = tr.choice[idx]
		idx = tr.parent[idx]
	}
	return choices
}

// replay follows the given choices over the events before stop and returns
// an order of the operations that respects real time and the register: the
// writes each gap makes take effect, the unobserved writes slipped in before
// the first write of the last nonempty gap before their return, and each
// read just after the first moment its value is held within its interval.
// Operations that have not returned by stop and did not take effect are
// left out. used tells which operations (indices into p.ops) took effect.
func (s *search) replay(choices map[int]uint64, stop int) (order []int, used []bool, err error) {
	p := s.p
	r := newSearch(p)
	gaps := make(map[int][]int32)   // return event -> writes that took effect
	silent := make(map[int][]int32) // return event -> writes slipped in unseen
	used = make([]bool, len(p.ops))
	lastGap := -1
	c := make([]uint64, r.stride)
	for e := 0; e < stop; e++ {
		ev := p.events[e]
		op := &p.ops[ev.op]
		if op.kind == kAny {
			continue
		}
		if !ev.ret {
			r.call(ev.op)
			continue
		}
		ch := choices[e]
		cur := r.cfg(0)
		r.cbuf = r.cands(cur, op.val, r.cbuf)
		ok := r.apply(cur, c, ev.op, ch, r.cbuf, func(ws []int32) {
			gaps[e] = append([]int32(nil), ws...)
			for _, w := range ws {
				used[w] = true
			}
		})
		if !ok {
			return nil, nil, fmt.Errorf("replay: choice %d at event %d is not possible", ch, e)
		}
		if ch != emptyChoice {
			lastGap = e
		}
		if op.kind == kWrite && !used[ev.op] {
			if lastGap <= int(op.call) {
				return nil, nil, fmt.Errorf("replay: %s returned without taking effect", p.op(op.pos).Label())
			}
			silent[lastGap] = append(silent[lastGap], ev.op)
			used[ev.op] = true
		}
		copy(r.cfg(0), c)
		r.retire(ev.op)
	}

	cur := p.init
	waiting := make([][]int32, len(p.vals))
	emitted := make([]bool, len(p.ops))
	emit := func(o int32) {
		order = append(order, p.ops[o].pos)
		emitted[o] = true
	}
	write := func(o int32) {
		emit(o)
		cur = p.ops[o].val
		for _, rd := range waiting[cur] {
			if !emitted[rd] {
				emit(rd)
			}
		}
		waiting[cur] = waiting[cur][:0]
	}
	for e := 0; e < stop; e++ {
		ev := p.events[e]
		op := &p.ops[ev.op]
		switch {
		case !ev.ret && op.kind == kAny:
			emit(ev.op)
			used[ev.op] = true
		case !ev.ret && op.kind == kRead:
			if op.val == cur {
				emit(ev.op)
			} else {
				waiting[op.val] = append(waiting[op.val], ev.op)
			}
		case ev.ret && op.kind != kAny:
			for _, w := range silent[e] {
				write(w)
			}
			for _, w := range gaps[e] {
				write(w)
			}
			if op.kind == kRead {
				if !emitted[ev.op] {
					return nil, nil, fmt.Errorf("replay: %s returned before its value was held", p.op(op.pos).Label())
				}
				used[ev.op] = true
			}
		}
	}
	// Reads still waiting at stop are left out of a prefix.
	return order, used, nil
}

// witness returns a linearization of the whole history after a successful
// run, and which operations it uses.
func (s *search) witness() ([]int, []bool, error) {
	last := len(s.p.events) - 1
	return s.replay(s.path(last, 0), len(s.p.events))
}

// violation describes the read at whose return no configuration survived.
func (s *search) violation() checker.Violation {
	p := s.p
	e := s.deadAt
	o := p.events[e].op
	op := &p.ops[o]
	var v checker.Violation
	// The longest legal prefix: any configuration that reached the gap.
	prev := -1
	for x := e - 1; x >= 0; x-- {
		if ev := p.events[x]; ev.ret && p.ops[ev.op].kind != kAny {
			prev = x
			break
		}
	}
	choices := map[int]uint64{}
	if prev >= 0 {
		choices = s.path(prev, 0)
	}
	if order, _, err := s.replay(choices, e); err == nil {
		v.Prefix = order
	}
	v.Ops = []int{op.pos}
	v.Op, v.Value = op.pos, describe(p.shownValue(op))
	v.Initial = op.val == p.init
	// The writes that could have given the value, latest call first.
	for i := len(p.ops) - 1; i >= 0 && len(v.Writes) < 3; i-- {
		w := &p.ops[i]
		if (w.kind == kWrite || w.kind == kCrash) && w.val == op.val && w.call < int32(e) {
			v.Ops = append(v.Ops, w.pos)
			v.Writes = append(v.Writes, w.pos)
		}
	}
	v.Pattern = "stale-read"
	return v
}
