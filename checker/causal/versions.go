package causal

import (
	"sort"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// MatchVersionValues makes a versioned read that returned another value
// than the write of its version wrote a read of a value nobody wrote
// (RFThinAir), as the models read it (see model.UsesVersions): the version
// names the write, and the value must be that write's. Prepare maps reads
// by version alone, so every checker that reads a Prepared history calls
// this after Prepare.
func MatchVersionValues(p *Prepared) {
	if !p.Versioned {
		return
	}
	changed := false
	for i := range p.Ops {
		o := &p.Ops[i]
		if o.Write || o.RF < 0 {
			continue
		}
		if valueOf(p, o.Pos) != valueOf(p, p.Ops[o.RF].Pos) {
			o.RF, changed = RFThinAir, true
		}
	}
	if changed {
		p.index()
	}
}

func valueOf(p *Prepared, pos int) history.Value {
	v := p.H.Ops[pos].Value
	if v.IsNone() {
		return history.NilValue
	}
	return v
}

// addVersionOrder adds to d, for each key, an edge from each write to the
// next one in version order, among the writes for which in is true (all of
// them when in is nil): the order of a key's writes that every
// serialisation keeps when the operations carry versions.
func (r *run) addVersionOrder(d *dag, in func(int32) bool) {
	p := r.p
	if !p.Versioned {
		return
	}
	for k := range p.Keys {
		var ws []int32
		for _, pw := range p.byKey[k] {
			for _, w := range pw.Ops {
				if in == nil || in(w) {
					ws = append(ws, w)
				}
			}
		}
		sort.Slice(ws, func(a, b int) bool { return p.Ops[ws[a]].Version < p.Ops[ws[b]].Version })
		for i := 1; i < len(ws); i++ {
			d.add(ws[i-1], ws[i], why{kind: edgeVO, read: -1})
		}
	}
}

// versionPatterns finds what versions add to causal consistency: a read of
// w1 whose causal past holds a write of the key with a newer version (it
// would have to follow w1 in the serialisation and precede the read), and a
// cycle in co ∪ vo within the causal past of some operation. The causal
// pasts of a process's operations grow along its order, so checking the
// past of each process's last operation covers them all (and a past that
// lies inside another need not be checked); a cycle through a past never
// leaves it, since nothing outside a past precedes anything in it causally.
func (r *run) versionPatterns(base *dag, clk *clocks) error {
	p := r.p
	newest := newestWrites(p)
	for i := range p.Ops {
		if i%4096 == 0 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
		}
		rd := int32(i)
		o := &p.Ops[i]
		if o.Write || o.RF < 0 {
			continue
		}
		w1 := o.RF
		for j := range p.byKey[o.Key] {
			pw := &p.byKey[o.Key][j]
			n := clk.at(rd, pw.Proc)
			k := sort.Search(len(pw.Idx), func(k int) bool { return pw.Idx[k] >= n })
			if k == 0 {
				continue
			}
			w2 := newest[o.Key][j][k-1]
			if p.Ops[w2].Version <= p.Ops[w1].Version {
				continue
			}
			r.report(WriteCORead, []int32{w1, w2, rd}, func(v *checker.Violation) {
				// The first step is the versions' order of the write read
				// and the newer one, then the newer one's path to the read.
				v.Op, v.Source, v.Newer = p.Ops[rd].Pos, p.Ops[w1].Pos, p.Ops[w2].Pos
				r.cite(v, w1)
				r.cite(v, w2)
				v.Steps = append([]checker.Step{{From: v.Source, To: v.Newer, Rel: checker.RelVersion,
					Via: checker.None, Source: checker.None, Seen: checker.None}},
					r.steps(v, base, r.path(base, clk, w2, rd), false)...)
			})
		}
	}
	var lasts []int32
	for q := range p.Procs {
		lasts = append(lasts, p.Procs[q][len(p.Procs[q])-1])
	}
	for _, last := range lasts {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		inside := false
		for _, other := range lasts {
			if other != last && clk.before(p, last, other) {
				inside = true
				break
			}
		}
		if inside {
			continue
		}
		d := newDag(p)
		r.addVersionOrder(d, func(w int32) bool { return clk.before(p, w, last) })
		if _, rest := d.topo(); rest != nil {
			for _, cyc := range d.cycles(rest) {
				r.report(CyclicCO, cyc, func(v *checker.Violation) {
					v.Op = p.Ops[last].Pos
					v.Steps = r.steps(v, d, cyc, true)
				})
			}
		}
	}
	return nil
}

// newestWrites returns, per key and per writing process of it (in the
// order of Prepared.Writers), for each prefix of that process's writes of
// the key, the one with the highest version.
func newestWrites(p *Prepared) [][][]int32 {
	out := make([][][]int32, len(p.Keys))
	for k := range p.Keys {
		out[k] = make([][]int32, len(p.byKey[k]))
		for j, pw := range p.byKey[k] {
			best := make([]int32, len(pw.Ops))
			for i, w := range pw.Ops {
				best[i] = w
				if i > 0 && p.Ops[best[i-1]].Version > p.Ops[w].Version {
					best[i] = best[i-1]
				}
			}
			out[k][j] = best
		}
	}
	return out
}
