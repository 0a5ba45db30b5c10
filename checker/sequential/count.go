package sequential

import (
	"slices"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// MethodCount, as put in checker.Result.Method, says that counting alone
// refuted the history.
const MethodCount = "count"

// A counting model (model.Counting: a lock, whose holders are counted)
// gives two refutations that need no order at all, in time linear in the
// history. Both are exact: they report only histories that no order can
// make legal, whatever the operations of unknown outcome do.
//
// At the end. Every operation that completed takes effect in any order,
// and each of unknown outcome may or may not; so a legal order ends with
// the count somewhere between (raises − lowers − unknown lowers) and
// (raises − lowers + unknown raises). If that range misses 0..Capacity,
// no order is legal. This is what Jepsen's mutex histories show when
// several clients acquired and none released: each such client leaves a
// holder behind.
//
// Along one process. At any moment of an order, each process q has
// placed a prefix of its own operations, so its share of the count lies
// between the least and the greatest share any prefix of q can have, lo(q)
// ≤ 0 ≤ hi(q) (taking or leaving its operations of unknown outcome as
// suits each bound). So, right after process p's operation i, the count
// is p's share after i plus at least Σ_{q≠p} lo(q) and at most Σ_{q≠p}
// hi(q); if even the widest of these ranges misses 0..Capacity, no order
// is legal. This refutes a process that releases more times in a row than
// the others can ever hold the lock together.
//
// Neither needs a model's state, so a history they do not refute goes on
// to the search, which decides exactly.

// prefixShare is a process's share of the count after one of its
// operations: the raises and lowers that completed, and those of unknown
// outcome, among its operations up to there.
type prefixShare struct {
	up, down, mayUp, mayDown int
}

func (s prefixShare) least() int { return s.up - s.down - s.mayDown }
func (s prefixShare) most() int  { return s.up - s.down + s.mayUp }

// add counts one operation.
func (s prefixShare) add(delta int, unknown bool) prefixShare {
	switch {
	case delta > 0 && unknown:
		s.mayUp += delta
	case delta > 0:
		s.up += delta
	case unknown:
		s.mayDown -= delta
	default:
		s.down -= delta
	}
	return s
}

// shares returns each process's share after each of its operations, and
// the least and greatest share any of its prefixes (the empty one
// included) can have.
func shares[S comparable](p *problem[S], cm model.Counting) (per [][]prefixShare, lo, hi []int) {
	per = make([][]prefixShare, len(p.procs))
	lo, hi = make([]int, len(p.procs)), make([]int, len(p.procs))
	for pi, ops := range p.procs {
		var s prefixShare
		per[pi] = make([]prefixShare, len(ops))
		for i, op := range ops {
			mo := &p.c.Ops[op]
			s = s.add(cm.Delta(mo), mo.Unknown)
			per[pi][i] = s
			lo[pi], hi[pi] = min(lo[pi], s.least()), max(hi[pi], s.most())
		}
	}
	return per, lo, hi
}

// refuteByCount returns a refutation by counting, or nil when the model
// counts nothing, is keyed (each key would have a count of its own) or
// the counts leave room for an order.
func refuteByCount[S comparable](p *problem[S]) *checker.Violation {
	cm, ok := p.m.(model.Counting)
	if !ok || p.keyed {
		return nil
	}
	capacity := cm.Capacity()
	per, lo, hi := shares(p, cm)
	var total prefixShare
	for _, s := range per {
		if len(s) > 0 {
			t := s[len(s)-1]
			total = prefixShare{total.up + t.up, total.down + t.down, total.mayUp + t.mayUp, total.mayDown + t.mayDown}
		}
	}
	if c := countFact(total, 0, 0, capacity); c != nil {
		c.Upto = checker.None
		return countViolation(p, cm, c, nil)
	}
	sumLo, sumHi := 0, 0
	for pi := range p.procs {
		sumLo, sumHi = sumLo+lo[pi], sumHi+hi[pi]
	}
	for pi, ops := range p.procs {
		for i, s := range per[pi] {
			if c := countFact(s, sumLo-lo[pi], sumHi-hi[pi], capacity); c != nil {
				c.Upto = p.c.Pos[ops[i]]
				return countViolation(p, cm, c, ops[:i+1])
			}
		}
	}
	return nil
}

// countFact returns the facts of share s, with the others' least and
// most, when every choice lands outside 0..capacity; else nil.
func countFact(s prefixShare, othersLeast, othersMost, capacity int) *checker.Count {
	c := &checker.Count{Up: s.up, Down: s.down, MayUp: s.mayUp, MayDown: s.mayDown,
		OthersLeast: othersLeast, OthersMost: othersMost, Capacity: capacity}
	if c.Least() > capacity || c.Most() < 0 {
		return c
	}
	return nil
}

// countViolation names the operations the count turns on: those that
// pushed it past the bound it crosses and that a later operation of their
// own process did not undo (the acquires no release of theirs followed,
// or the releases no acquire of theirs preceded). Only ops are counted
// (nil: every process's operations).
func countViolation[S comparable](p *problem[S], cm model.Counting, c *checker.Count, ops []int32) *checker.Violation {
	over := c.Least() > c.Capacity
	v := &checker.Violation{Pattern: "count", Op: checker.None, Count: c, Model: p.m.Info().Name}
	lists := p.procs
	if ops != nil {
		lists = [][]int32{ops}
	}
	for _, list := range lists {
		for _, op := range unmatched(p, cm, list, over) {
			v.Ops = append(v.Ops, p.c.Pos[op])
		}
	}
	if c.Upto != checker.None && !slices.Contains(v.Ops, c.Upto) {
		v.Ops = append(v.Ops, c.Upto)
	}
	slices.Sort(v.Ops)
	return v
}

// unmatched returns the completed operations of one process's list that
// move the count up (over) or down and that no operation of the list
// moving it the other way cancels: a raise cancelled by a later lower,
// a lower by an earlier raise.
func unmatched[S comparable](p *problem[S], cm model.Counting, list []int32, over bool) []int32 {
	var stack, lows []int32
	for _, op := range list {
		mo := &p.c.Ops[op]
		if mo.Unknown {
			continue
		}
		switch d := cm.Delta(mo); {
		case d > 0:
			stack = append(stack, op)
		case d < 0 && len(stack) > 0:
			stack = stack[:len(stack)-1]
		case d < 0:
			lows = append(lows, op)
		}
	}
	if over {
		return stack
	}
	return lows
}

// RefuteByCount returns the refutation by counting of h under m (pattern
// "count", with its checker.Count), or nil when the counts leave room for
// an order or m counts nothing. Counting ignores every order, so its
// refutation holds for any criterion that asks for one legal order of the
// operations (linearizability as well as sequential consistency): a
// linearizability search that failed on a lock can give this reason
// instead of the point where its search stopped. The error is non-nil
// only for input the model rejects.
func RefuteByCount[S comparable](m model.Model[S], h *history.History) (*checker.Violation, error) {
	if _, ok := m.(model.Counting); !ok {
		return nil, nil
	}
	c, err := checker.Compile(m, h, nil, nil, true)
	if err != nil {
		return nil, err
	}
	return refuteByCount(newProblem(m, h, c, m.Info().Keyed)), nil
}
