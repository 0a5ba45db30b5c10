package sequential

import (
	"math"

	"github.com/histcheck/histcheck/model"
)

// countBound prunes the search of a counting model (model.Counting) with
// the refutation along one process of count.go, applied to what is left
// at a configuration: the count so far, plus each process's share of its
// remaining operations. Right after process p's remaining operation i,
// the count is the count now, plus p's share of its operations up to i,
// plus each other process's share of a prefix of what it has left; if no
// choice of those shares (within the least and greatest any prefix can
// have, operations of unknown outcome taken or left as suits each bound)
// lands in 0..Capacity, no completion exists, and the configuration fails
// without being searched. It removes only configurations with no
// completion, so the search stays exact.
type countBound struct {
	delta    []int // per compiled op
	capacity int
	// Per process pi and front f (0..len(ops)), about the operations from
	// f on: lo and hi are the least and greatest share of any of their
	// prefixes, the empty one included; maxLeast and minMost the greatest
	// least share and the least greatest share of a non-empty prefix.
	lo, hi, maxLeast, minMost [][]int
	// With endFree (problem.endFree), the count must end at 0: least and
	// most are, per process and front, the least and greatest share of
	// all the operations from there on.
	endFree     bool
	least, most [][]int
}

// newCountBound returns the bound of p's model, or nil when it counts
// nothing, is keyed, or the bound is turned off.
func newCountBound[S comparable](p *problem[S]) *countBound {
	cm, ok := p.m.(model.Counting)
	if !ok || p.keyed || p.noCountBound {
		return nil
	}
	b := &countBound{delta: make([]int, len(p.c.Ops)), capacity: cm.Capacity(), endFree: p.endFree}
	n := len(p.procs)
	b.lo, b.hi, b.maxLeast, b.minMost = make([][]int, n), make([][]int, n), make([][]int, n), make([][]int, n)
	b.least, b.most = make([][]int, n), make([][]int, n)
	unknown := make([]bool, len(p.c.Ops))
	for i := range p.c.Ops {
		b.delta[i] = cm.Delta(&p.c.Ops[i])
		unknown[i] = p.c.Ops[i].Unknown
	}
	for pi, ops := range p.procs {
		b.suffixes(unknown, pi, ops)
	}
	return b
}

// suffixes fills process pi's tables, from its last operation back.
func (b *countBound) suffixes(unknown []bool, pi int, ops []int32) {
	k := len(ops)
	lo, hi, ml, mm := make([]int, k+1), make([]int, k+1), make([]int, k+1), make([]int, k+1)
	least, most := make([]int, k+1), make([]int, k+1)
	ml[k], mm[k] = math.MinInt32, math.MaxInt32
	for f := k - 1; f >= 0; f-- {
		d := b.delta[ops[f]]
		dl, dm := d, d
		if unknown[ops[f]] {
			dl, dm = min(d, 0), max(d, 0)
		}
		// A prefix from f is op f followed by a prefix from f+1 (maybe empty).
		lo[f] = min(0, dl+lo[f+1])
		hi[f] = max(0, dm+hi[f+1])
		ml[f] = max(dl, dl+ml[f+1])
		mm[f] = min(dm, dm+mm[f+1])
		least[f], most[f] = dl+least[f+1], dm+most[f+1]
	}
	b.lo[pi], b.hi[pi], b.maxLeast[pi], b.minMost[pi] = lo, hi, ml, mm
	b.least[pi], b.most[pi] = least, most
}

// dead reports whether no completion of the configuration (each
// process's front, and count, the share of the operations placed) keeps
// the count within bounds.
func (b *countBound) dead(front []int32, count int) bool {
	sumLo, sumHi, endLeast, endMost := 0, 0, count, count
	for pi, f := range front {
		sumLo += b.lo[pi][f]
		sumHi += b.hi[pi][f]
		endLeast += b.least[pi][f]
		endMost += b.most[pi][f]
	}
	if b.endFree && (endLeast > 0 || endMost < 0) {
		return true
	}
	for pi, f := range front {
		if ml := b.maxLeast[pi][f]; ml != math.MinInt32 && count+ml+sumLo-b.lo[pi][f] > b.capacity {
			return true
		}
		if mm := b.minMost[pi][f]; mm != math.MaxInt32 && count+mm+sumHi-b.hi[pi][f] < 0 {
			return true
		}
	}
	return false
}
