package sequential

import (
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/model"
)

// Counting in order (count.go's refutation along one process, sharpened).
// Along one process p, the other processes' operations cannot help at
// just any moment: they come in their own order. Take an order of the
// whole history and follow, step by step, p's position i, the number n of
// the other processes' operations placed so far (or skipped, for those of
// unknown outcome), their share s of the count, and the count c. Each
// step advances p (c moves by its operation's delta, or stays if it is of
// unknown outcome and skipped) or advances n by one (s and c move by the
// same -1 or +1, or by 0 when some other operation is of unknown
// outcome); c stays within 0..Capacity; and s lies between the least and
// the greatest share that n of the other processes' operations can have,
// each process contributing a prefix of its own (L(n) and H(n), min-plus
// and max-plus convolutions of the processes' prefix shares). If no such
// walk takes p to its end with n at the others' total, no order exists.
// Each such walk is a relaxation of an order, so the refutation is exact;
// it catches what the moment-by-moment bounds miss, as a process that
// needs the one acquire of another process both before its first release
// and, later, between two of its releases.

// orderWork bounds the cells the walks of one history may visit; past it
// the refutation gives up (it can only refute, so giving up is safe).
const orderWork = 20_000_000

// refuteInOrder returns a refutation by counting in order, or nil.
func refuteInOrder[S comparable](p *problem[S]) *checker.Violation {
	cm, ok := p.m.(model.Counting)
	if !ok || p.keyed || len(p.procs) < 2 {
		return nil
	}
	capacity := cm.Capacity()
	least, most := prefixShares(p, cm)
	work := 0
	for pi, ops := range p.procs {
		if !needy(least[pi], most[pi], capacity) {
			continue
		}
		lo, hi, zero := others(p, least, most, pi)
		w := walker[S]{p: p, cm: cm, ops: ops, lo: lo, hi: hi, zero: zero, capacity: capacity}
		dies, ok := w.run(orderWork - work)
		work += w.cells
		if !ok {
			return nil
		}
		if dies >= 0 {
			return orderViolation(p, cm, pi, dies, capacity)
		}
	}
	return nil
}

// prefixShares returns, per process, the least and greatest share of each
// of its prefixes (index j: its first j operations).
func prefixShares[S comparable](p *problem[S], cm model.Counting) (least, most [][]int) {
	least, most = make([][]int, len(p.procs)), make([][]int, len(p.procs))
	for pi, ops := range p.procs {
		l, m := make([]int, len(ops)+1), make([]int, len(ops)+1)
		for j, op := range ops {
			d := cm.Delta(&p.c.Ops[op])
			dl, dm := d, d
			if p.c.Ops[op].Unknown {
				dl, dm = min(d, 0), max(d, 0)
			}
			l[j+1], m[j+1] = l[j]+dl, m[j]+dm
		}
		least[pi], most[pi] = l, m
	}
	return least, most
}

// needy reports whether a process's own operations leave 0..capacity on
// some prefix whatever the choices: only such a process needs the others.
func needy(least, most []int, capacity int) bool {
	for j := range least {
		if least[j] > capacity || most[j] < 0 {
			return true
		}
	}
	return false
}

// others returns L(n) and H(n) for the processes other than pi, and
// whether any of their operations is of unknown outcome.
func others[S comparable](p *problem[S], least, most [][]int, pi int) (lo, hi []int, zero bool) {
	lo, hi = []int{0}, []int{0}
	for q, ops := range p.procs {
		if q == pi {
			continue
		}
		lo = convolve(lo, least[q], func(a, b int) bool { return a < b })
		hi = convolve(hi, most[q], func(a, b int) bool { return a > b })
		for _, op := range ops {
			zero = zero || p.c.Ops[op].Unknown
		}
	}
	return lo, hi, zero
}

// convolve returns c(n) = best over i+j = n of a(i)+b(j), better deciding
// which of two sums is best.
func convolve(a, b []int, better func(x, y int) bool) []int {
	c := make([]int, len(a)+len(b)-1)
	for n := range c {
		first := true
		for i := max(0, n-len(b)+1); i <= min(n, len(a)-1); i++ {
			if v := a[i] + b[n-i]; first || better(v, c[n]) {
				c[n], first = v, false
			}
		}
	}
	return c
}

// walker runs the walks of one process against the others.
type walker[S comparable] struct {
	p        *problem[S]
	cm       model.Counting
	ops      []int32
	lo, hi   []int
	zero     bool
	capacity int
	cells    int
}

// cell indexes a walk's state at a given n: share s and count c.
func (w *walker[S]) cell(n, s, c int) int { return (s-w.lo[n])*(w.capacity+1) + c }

// run returns the index of the first operation of the process that no
// walk gets past (-1 when the walks reach the end), and false when it
// would visit more than budget cells.
func (w *walker[S]) run(budget int) (int, bool) {
	rows := len(w.lo)
	size := func(n int) int { return (w.hi[n] - w.lo[n] + 1) * (w.capacity + 1) }
	total := 0
	for n := range rows {
		total += size(n)
	}
	if total*(len(w.ops)+1) > budget {
		return -1, false
	}
	row, next := make([][]bool, rows), make([][]bool, rows)
	for n := range rows {
		row[n], next[n] = make([]bool, size(n)), make([]bool, size(n))
	}
	row[0][w.cell(0, 0, 0)] = true
	for i := 0; ; i++ {
		w.others(row)
		w.cells += total
		if i == len(w.ops) {
			last := row[rows-1]
			for _, ok := range last {
				if ok {
					return -1, true
				}
			}
			return i - 1, true
		}
		if !w.own(row, next, i) {
			return i, true
		}
		row, next = next, row
	}
}

// others advances the walks of one row along n: the other processes'
// operations, one at a time.
func (w *walker[S]) others(row [][]bool) {
	for n := 0; n+1 < len(row); n++ {
		for s := w.lo[n]; s <= w.hi[n]; s++ {
			for c := 0; c <= w.capacity; c++ {
				if !row[n][w.cell(n, s, c)] {
					continue
				}
				for d := -1; d <= 1; d++ {
					if d == 0 && !w.zero {
						continue
					}
					if s+d >= w.lo[n+1] && s+d <= w.hi[n+1] && c+d >= 0 && c+d <= w.capacity {
						row[n+1][w.cell(n+1, s+d, c+d)] = true
					}
				}
			}
		}
	}
}

// own advances every walk of row by the process's operation i into
// next, and reports whether any survives.
func (w *walker[S]) own(row, next [][]bool, i int) bool {
	mo := &w.p.c.Ops[w.ops[i]]
	d := w.cm.Delta(mo)
	alive := false
	for n := range row {
		clear(next[n])
		for s := w.lo[n]; s <= w.hi[n]; s++ {
			for c := 0; c <= w.capacity; c++ {
				if !row[n][w.cell(n, s, c)] {
					continue
				}
				if c+d >= 0 && c+d <= w.capacity {
					next[n][w.cell(n, s, c+d)], alive = true, true
				}
				if mo.Unknown {
					next[n][w.cell(n, s, c)], alive = true, true
				}
			}
		}
	}
	return alive
}

// orderViolation is the refutation along process pi, whose operation
// dies no walk gets past: a count fact with InOrder set.
func orderViolation[S comparable](p *problem[S], cm model.Counting, pi, dies, capacity int) *checker.Violation {
	ops := p.procs[pi][:dies+1]
	var s prefixShare
	for _, op := range ops {
		s = s.add(cm.Delta(&p.c.Ops[op]), p.c.Ops[op].Unknown)
	}
	c := &checker.Count{Upto: p.c.Pos[ops[len(ops)-1]], Up: s.up, Down: s.down, MayUp: s.mayUp, MayDown: s.mayDown,
		Capacity: capacity, InOrder: true}
	v := &checker.Violation{Pattern: "count", Op: checker.None, Count: c, Model: p.m.Info().Name}
	for _, op := range ops {
		v.Ops = append(v.Ops, p.c.Pos[op])
	}
	return v
}
