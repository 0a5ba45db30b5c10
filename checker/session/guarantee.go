package session

import (
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
)

// Kinds of knowledge: why a session knows a write.
const (
	knowOwn  uint8 = iota // s wrote it
	knowRead              // s read it
)

// reason says why session s knows write u: for knowRead, a is the read.
type reason struct {
	kind uint8
	a    int32
}

// graph is a constraint graph over writes (nodes 0..n-1 are ops) and
// virtual nodes; every edge means "not newer than" in the arbitration order.
type graph struct {
	n        int // ops
	from, to []int32
	why      []int32 // index into reasons, or -1
	reasons  []edgeWhy
	virtuals []virtual
}

type edgeWhy struct {
	know reason
	read int32 // for an edge into a write from a knowledge node: the read
}

// Virtual node kinds.
const (
	vKnow  uint8 = iota // a session's knowledge of a key at some point
	vAfter              // "every op of a process from this one on"
)

type virtual struct {
	kind uint8
	op   int32 // vAfter: the first op of the suffix
}

func (g *graph) node(v virtual) int32 {
	g.virtuals = append(g.virtuals, v)
	return int32(g.n + len(g.virtuals) - 1)
}

func (g *graph) edge(a, b int32, w int32) {
	g.from = append(g.from, a)
	g.to = append(g.to, b)
	g.why = append(g.why, w)
}

func (g *graph) edgeR(a, b int32, e edgeWhy) {
	g.reasons = append(g.reasons, e)
	g.edge(a, b, int32(len(g.reasons)-1))
}

// clone copies the global part of a graph so that a session can add to it.
func (g *graph) clone() *graph {
	return &graph{n: g.n, from: append([]int32(nil), g.from...), to: append([]int32(nil), g.to...),
		why: append([]int32(nil), g.why...), reasons: append([]edgeWhy(nil), g.reasons...),
		virtuals: append([]virtual(nil), g.virtuals...)}
}

// global builds the edges every session's order must contain: version
// order, session order of writes (monotonic writes), reads before later
// writes (writes follow reads).
func (r *run) global() *graph {
	p := r.p
	g := &graph{n: len(p.Ops)}
	if p.Versioned {
		for k := range p.Keys {
			var ws []int32
			for _, pw := range p.Writers(int32(k)) {
				ws = append(ws, pw.Ops...)
			}
			sortByVersion(p, ws)
			for i := 1; i < len(ws); i++ {
				g.edge(ws[i-1], ws[i], -1)
			}
		}
	}
	switch r.crit {
	case checker.MonotonicWrites:
		for _, ops := range p.Procs {
			last := int32(-1)
			for _, o := range ops {
				if p.Ops[o].Write {
					if last >= 0 {
						g.edge(last, o, -1)
					}
					last = o
				}
			}
		}
	case checker.WritesFollowReads:
		for _, ops := range p.Procs {
			next := int32(-1)
			for i := len(ops) - 1; i >= 0; i-- {
				o := ops[i]
				v := g.node(virtual{kind: vAfter, op: o})
				if next >= 0 {
					g.edge(v, next, -1)
				}
				if p.Ops[o].Write {
					g.edge(v, o, -1)
				} else if p.Ops[o].RF >= 0 && i+1 < len(ops) {
					g.edge(p.Ops[o].RF, next, -1)
				}
				next = v
			}
		}
	}
	return g
}

// guarantee checks one of the four session guarantees. Every session
// shares one arbitration order of the writes, so the constraints of all
// sessions go into one graph and a cycle in it is a violation.
func (r *run) guarantee() error {
	p := r.p
	r.thinAir()
	if r.crit == checker.WritesFollowReads {
		r.ownFuture()
	}
	g := r.global()
	if r.crit == checker.ReadYourWrites || r.crit == checker.MonotonicReads {
		// Only these two make a read see more than the write it returned.
		var sg *graph
		if !p.Versioned {
			sg = g
		}
		for s := range p.Procs {
			if err := r.ctx.Err(); err != nil {
				return err
			}
			r.walk(int32(s), sg)
		}
	}
	r.cycles(g)
	return nil
}

// ownFuture reports reads of a write their own session issues later: that
// write would have to follow itself.
func (r *run) ownFuture() {
	p := r.p
	for i := range p.Ops {
		o := &p.Ops[i]
		if o.Write || o.RF < 0 {
			continue
		}
		w := &p.Ops[o.RF]
		if w.Proc == o.Proc && w.Idx > o.Idx {
			rd, wr := int32(i), o.RF
			r.report(r.pattern(), []int32{rd, wr}, func(v *checker.Violation) {
				v.Op, v.Source = r.pos(rd), r.pos(wr)
			})
		}
	}
}

// knowledge of one key by one session.
type keyKnow struct {
	z     int32 // current knowledge node (inferred mode), -1 if none yet
	used  bool  // a read has drawn from z since it was created
	max   int64 // versioned mode: newest version known
	u     int32 // the write known last (inferred) or newest (versioned), -1 if none
	why   reason
	known bool
}

// walk follows session s's operations, growing its knowledge as the
// guarantee says and checking each read against it. With sg nil it compares
// versions; otherwise it adds the session's constraints to sg.
func (r *run) walk(s int32, sg *graph) {
	p := r.p
	kk := make(map[int32]*keyKnow)
	get := func(k int32) *keyKnow {
		if x, ok := kk[k]; ok {
			return x
		}
		x := &keyKnow{z: -1, u: -1}
		kk[k] = x
		return x
	}
	know := func(u int32, why reason) {
		x := get(p.Ops[u].Key)
		if sg == nil {
			if !x.known || p.Ops[u].Version > x.max {
				x.max, x.u, x.why, x.known = p.Ops[u].Version, u, why, true
			}
			return
		}
		if x.z < 0 || x.used {
			z := sg.node(virtual{kind: vKnow})
			if x.z >= 0 {
				sg.edge(x.z, z, -1)
			}
			x.z, x.used = z, false
		}
		sg.edgeR(u, x.z, edgeWhy{know: why, read: -1})
		x.u, x.why, x.known = u, why, true
	}
	check := func(rd int32) {
		o := &p.Ops[rd]
		if o.RF == causal.RFThinAir {
			return
		}
		x := get(o.Key)
		if !x.known {
			return
		}
		if sg == nil && o.RF != causal.RFInit {
			// A read of the initial value is older than every write,
			// whatever version number the store gave it: it falls to the
			// rule below.
			if o.Version < x.max {
				u, why := x.u, x.why
				r.report(r.pattern(), r.witness(rd, u, why), func(v *checker.Violation) {
					v.Op, v.Steps = r.pos(rd), []checker.Step{r.known(u, rd, why)}
					r.cite(v, rd)
					r.cite(v, u)
				})
			}
			return
		}
		if o.RF == causal.RFInit {
			u, why := x.u, x.why
			r.report(r.pattern(), r.witness(rd, u, why), func(v *checker.Violation) {
				v.Op, v.Steps = r.pos(rd), []checker.Step{r.known(u, rd, why)}
			})
			return
		}
		sg.edgeR(x.z, o.RF, edgeWhy{read: rd})
		x.used = true
	}
	for _, o := range p.Procs[s] {
		op := &p.Ops[o]
		switch {
		case op.Write:
			if r.crit == checker.ReadYourWrites {
				know(o, reason{kind: knowOwn})
			}
		case r.crit == checker.ReadYourWrites:
			check(o)
		default:
			check(o)
			if op.RF >= 0 {
				know(op.RF, reason{kind: knowRead, a: o})
			}
		}
	}
}

func (r *run) pattern() string {
	switch r.crit {
	case checker.ReadYourWrites:
		return "read-your-writes"
	case checker.MonotonicReads:
		return "monotonic-reads"
	case checker.MonotonicWrites:
		return "monotonic-writes"
	}
	return "writes-follow-reads"
}

// witness lists the read, the write it missed and the ops that made the
// session know that write.
func (r *run) witness(rd, u int32, why reason) []int32 {
	ops := []int32{u, rd}
	if why.kind != knowOwn {
		ops = append(ops, why.a)
	}
	if f := r.p.Ops[rd].RF; f >= 0 {
		ops = append(ops, f)
	}
	return ops
}

// known is the step from write u to op b of a session that knew u, why
// says how: it wrote u, or read it.
func (r *run) known(u, b int32, why reason) checker.Step {
	s := r.step(u, b, checker.RelKnown)
	if why.kind != knowOwn {
		s.Seen = r.pos(why.a)
	}
	return s
}

func sortByVersion(p *causal.Prepared, ws []int32) {
	// insertion sort is too slow for large keys; use the standard sort.
	sortInt32(ws, func(a, b int32) bool { return p.Ops[a].Version < p.Ops[b].Version })
}
