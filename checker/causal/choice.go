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
)

// ambiguity holds the choices of an ambiguous reads-from: for each read,
// the writes (and the initial state) that wrote the value it returned.
type ambiguity struct {
	b   *preparer
	why string // what makes reads-from ambiguous, as PrepareFor found it
	// fixed is, per operation of b.raws, the source of a read with one
	// candidate or none, and srcOpen for a read with a choice.
	fixed []int
	// open lists the reads with a choice, most constrained first.
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
	for i := range b.raws {
		r := &b.raws[i]
		if r.write {
			continue
		}
		c := b.candidates(i, writers[ident{key: b.kid(r.key), val: r.val}])
		a.cands[i] = c
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
	sortByCount(a.open, a.cands)
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
	out := append([]int(nil), ws...)
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
	p := &Prepared{H: b.p.H, Keys: b.p.Keys}
	sub := &preparer{p: p, init: b.init, keyID: b.keyID}
	at := make([]int, len(b.raws)) // index in b.raws → index in sub.raws
	var from []int                 // index in sub.raws → index in b.raws
	for i := range b.raws {
		r := &b.raws[i]
		switch {
		case r.write && r.info && !chosen[i]:
			p.Dropped = append(p.Dropped, r.pos)
			continue
		case !r.write && src[i] == srcOpen:
			continue
		}
		at[i] = len(sub.raws)
		sub.raws = append(sub.raws, *r)
		from = append(from, i)
	}
	newIdx := sub.groupByProcess()
	for j, i := range from {
		if b.raws[i].write {
			continue
		}
		o := &p.Ops[newIdx[j]]
		switch s := src[i]; {
		case s >= 0:
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
