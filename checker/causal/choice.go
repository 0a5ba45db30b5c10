package causal

import (
	"sort"

	"github.com/histcheck/histcheck/checker"
)

// Sources a read may have read, besides the index of a write among the
// preparer's operations.
const (
	srcInit    = -1 // the initial value
	srcThinAir = -2 // a value nobody wrote
	srcOpen    = -3 // not chosen yet: the read is left out
	srcAbsent  = -4 // the read of a cas of unknown outcome that did not take effect
)

// ambiguity holds the choices of an ambiguous reads-from: for each read,
// the writes (and the initial state) that wrote the value it returned.
type ambiguity struct {
	b   *preparer
	why string // what makes reads-from ambiguous, as PrepareFor found it
	// fixed is, per operation of b.raws, the source of a read with one
	// candidate or none, and srcOpen for a read with a choice.
	fixed []int
	// open lists the reads with a choice, in history order: a partial
	// choice that fails then fails near the read that broke it.
	open []int
	// cands is, per operation of b.raws, a read's candidate sources, the
	// likeliest first.
	cands [][]int
}

// ambiguous returns the Prepared of an ambiguous history: the reads with
// one candidate take it, the others are left out until Search chooses.
func (b *preparer) ambiguous(why string) *Prepared {
	for i := range b.raws {
		b.kid(b.raws[i].key)
	}
	a := &ambiguity{b: b, why: why, fixed: make([]int, len(b.raws)), cands: make([][]int, len(b.raws))}
	writers := map[ident][]int{}
	for i := range b.raws {
		if r := &b.raws[i]; r.write {
			id := ident{key: b.kid(r.key), val: r.val}
			writers[id] = append(writers[id], i)
		}
	}
	seen := make([]bool, len(b.raws)) // writes some read may have read
	for i := range b.raws {
		if r := &b.raws[i]; !r.write {
			a.cands[i] = b.candidates(i, writers[ident{key: b.kid(r.key), val: r.val}])
			for _, w := range a.cands[i] {
				if w >= 0 {
					seen[w] = true
				}
			}
		}
	}
	for i := range b.raws {
		r := &b.raws[i]
		if r.write {
			continue
		}
		if r.casRead && b.raws[i+1].info {
			// The cas may not have taken effect; when nobody may have
			// read its write, leaving it out is exact.
			if seen[i+1] {
				a.cands[i] = append(a.cands[i], srcAbsent)
			} else {
				a.cands[i] = []int{srcAbsent}
			}
		}
		c := a.cands[i]
		switch len(c) {
		case 0:
			a.fixed[i] = srcThinAir
		case 1:
			a.fixed[i] = c[0]
		default:
			a.fixed[i] = srcOpen
			a.open = append(a.open, i)
		}
	}
	p := b.build(a.fixed)
	p.amb = a
	return p
}

// candidates returns the sources read i may have read, ws being the
// writes of its key and value: the writes begun before it returned,
// latest first, then the initial state when it returned the initial
// value, then the writes begun later, and last its own process's later
// writes. The order only steers the search towards a choice that holds.
func (b *preparer) candidates(i int, ws []int) []int {
	ops := b.p.H.Ops
	r := &b.raws[i]
	rank := func(s int) (int, int64) {
		if s == srcInit {
			return 1, 0
		}
		w := &b.raws[s]
		call := ops[w.pos].Call
		switch {
		case w.proc == r.proc && w.pos > r.pos:
			return 3, call
		case call <= ops[r.pos].Return:
			return 0, -call
		}
		return 2, call
	}
	out := make([]int, 0, len(ws)+1)
	for _, w := range ws {
		if !b.ownWrite(i, w) {
			out = append(out, w)
		}
	}
	if r.val == b.init {
		out = append(out, srcInit)
	}
	sort.SliceStable(out, func(x, y int) bool {
		gx, tx := rank(out[x])
		gy, ty := rank(out[y])
		if gx != gy {
			return gx < gy
		}
		return tx < ty
	})
	return out
}

// build returns the differentiated history in which each read of b.raws
// read src's choice for it, reads left open are left out, and writes of
// unknown outcome no read chose are dropped (exact: a write nobody read
// only adds constraints).
func (b *preparer) build(src []int) *Prepared {
	chosen := make([]bool, len(b.raws))
	for i, s := range src {
		if !b.raws[i].write && s >= 0 {
			chosen[s] = true
		}
	}
	for i, s := range src {
		if s == srcAbsent {
			chosen[i+1] = false // the cas's write did not take effect either
		}
	}
	p := &Prepared{H: b.p.H, Keys: b.p.Keys}
	sub := &preparer{p: p, init: b.init, keyID: b.keyID}
	var from []int // index in sub.raws → index in b.raws
	sub.raws, from = b.keepTaken(chosen, func(i int) bool { return src[i] == srcOpen }, &p.Dropped)
	at := make([]int, len(b.raws)) // index in b.raws → index in sub.raws, or -1
	for i := range at {
		at[i] = -1
	}
	for j, i := range from {
		at[i] = j
	}
	newIdx := sub.groupByProcess()
	for j, i := range from {
		if b.raws[i].write {
			continue
		}
		o := &p.Ops[newIdx[j]]
		switch s := src[i]; {
		case s >= 0 && at[s] >= 0:
			o.RF = newIdx[at[s]]
		case s == srcInit:
			o.RF = RFInit
		default:
			o.RF = RFThinAir
		}
	}
	p.index()
	return p
}

// Choice returns, for each read of p that had a choice (none unless p was
// built by Search from an ambiguous history), the source it was given,
// in history order.
func (p *Prepared) Choice() []checker.ReadFrom {
	if p.amb == nil {
		return nil
	}
	var out []checker.ReadFrom
	for i := range p.Ops {
		o := &p.Ops[i]
		if o.Write || len(p.amb.cands[p.amb.rawOf(o.Pos)]) < 2 {
			continue
		}
		w := checker.Initial
		if o.RF >= 0 {
			w = p.Ops[o.RF].Pos
		}
		out = append(out, checker.ReadFrom{Read: o.Pos, Write: w})
	}
	sort.Slice(out, func(x, y int) bool { return out[x].Read < out[y].Read })
	return out
}

// rawOf returns the index in b.raws of the operation at history position
// pos (b.raws is in history order).
func (a *ambiguity) rawOf(pos int) int {
	raws := a.b.raws
	return sort.Search(len(raws), func(i int) bool { return raws[i].pos >= pos })
}
