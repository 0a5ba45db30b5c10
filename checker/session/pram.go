package session

import (
	"math"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
)

// Rules that add edges to a session's PRAM view.
const (
	ruleBefore uint8 = 1 // a write reaching the read goes before the write it read
	ruleAfter  uint8 = 2 // the read goes before a write that follows the one it read
)

// pram checks, for each session s, whether all writes and s's operations
// have a legal serialisation that keeps every session's order. The view is
// a graph of process chains plus reads-from; it is saturated with the two
// rules of Wei et al. (a write w' that reaches a read r of w goes before w;
// r goes before every write of its key that w reaches) and a cycle means no
// serialisation. Reachability is tracked per chain: the latest op of each
// chain reaching a node, and the earliest reachable from it.
func (r *run) pram() error {
	p := r.p
	r.thinAir()
	k := len(p.Procs)
	base := r.pramBase()
	vin := make([]int32, len(p.Ops)*k)
	vout := make([]int32, len(p.Ops)*k)
	for s := range p.Procs {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		g := base.clone()
		reads := r.addSession(g, s)
		if len(reads) == 0 && (s > 0 || !p.Versioned) {
			// Without reads a session's view orders only writes: the
			// version order can contradict a process's own order of
			// them, the same for every view, so one check suffices.
			continue
		}
		r.saturateView(g, s, reads, vin, vout)
	}
	return nil
}

// pramBase returns the edges every session's view shares: each key's
// writes in version order (with versions), and each process's writes in
// its order.
func (r *run) pramBase() *graph {
	p := r.p
	base := &graph{n: len(p.Ops)}
	if p.Versioned {
		for key := range p.Keys {
			var ws []int32
			for _, pw := range p.Writers(int32(key)) {
				ws = append(ws, pw.Ops...)
			}
			sortByVersion(p, ws)
			for i := 1; i < len(ws); i++ {
				base.edge(ws[i-1], ws[i], -1)
			}
		}
	}
	for _, ops := range p.Procs {
		last := int32(-1)
		for _, o := range ops {
			if p.Ops[o].Write {
				if last >= 0 {
					base.edge(last, o, -1)
				}
				last = o
			}
		}
	}
	return base
}

// addSession adds session s's reads to its view g: each after the write it
// read, or before every write of its key when it read the initial value,
// and all in s's order. It returns the reads that did not come from thin
// air.
func (r *run) addSession(g *graph, s int) []int32 {
	p := r.p
	var reads []int32
	prev := int32(-1)
	for _, o := range p.Procs[s] {
		op := &p.Ops[o]
		if !op.Write {
			if op.RF == causal.RFThinAir {
				continue
			}
			reads = append(reads, o)
			if op.RF >= 0 {
				g.edge(op.RF, o, -1)
			} else {
				for _, pw := range p.Writers(op.Key) {
					g.edge(o, pw.Ops[0], -1)
				}
			}
		}
		// s's chain links all its ops; writes are linked already.
		if prev >= 0 && (!op.Write || !p.Ops[prev].Write) {
			g.edge(prev, o, -1)
		}
		prev = o
	}
	return reads
}

// saturateView applies the two rules to session s's view until nothing
// changes, or reports the view's cycles. vin and vout are scratch space
// for the reachability, one entry per operation and chain.
func (r *run) saturateView(g *graph, s int, reads, vin, vout []int32) {
	k := len(r.p.Procs)
	for {
		c := g.csr()
		order := c.topo()
		if order == nil {
			r.pramCycles(g, c, r.p.Procs[s][0])
			return
		}
		r.reach(c, order, vin, vout, k)
		changed := false
		for _, rd := range reads {
			changed = r.applyRules(g, rd, vin, vout) || changed
		}
		if !changed {
			return
		}
	}
}

// applyRules adds, for read rd of write w, the edges the rules of Wei et
// al. force chain by chain: the last write of a chain reaching rd goes
// before w (unless w reaches it), and rd goes before the first write of a
// chain w reaches (unless rd reaches it). It reports whether it added one.
func (r *run) applyRules(g *graph, rd int32, vin, vout []int32) bool {
	p := r.p
	k := len(p.Procs)
	op := &p.Ops[rd]
	w := op.RF
	if w < 0 {
		return false
	}
	changed := false
	for _, pw := range p.Writers(op.Key) {
		ch := pw.Proc
		if w1 := pw.LastBefore(vin[int(rd)*k+int(ch)]); w1 >= 0 && w1 != w && p.Ops[w1].Idx >= vin[int(w)*k+int(ch)] {
			g.edgeR(w1, w, edgeWhy{know: reason{kind: ruleBefore}, read: rd})
			changed = true
		}
		from := vout[int(w)*k+int(ch)]
		if ch == p.Ops[w].Proc {
			from = p.Ops[w].Idx + 1
		}
		if from == math.MaxInt32 {
			continue
		}
		if w2 := pw.FirstFrom(from); w2 >= 0 && w2 != w && vout[int(rd)*k+int(ch)] > p.Ops[w2].Idx {
			g.edgeR(rd, w2, edgeWhy{know: reason{kind: ruleAfter}, read: rd})
			changed = true
		}
	}
	return changed
}

// topo returns a topological order of all nodes, or nil if there is a cycle.
func (c *csr) topo() []int32 {
	n := len(c.start) - 1
	indeg := make([]int32, n)
	for _, w := range c.adj {
		indeg[w]++
	}
	order := make([]int32, 0, n)
	for v := 0; v < n; v++ {
		if indeg[v] == 0 {
			order = append(order, int32(v))
		}
	}
	for i := 0; i < len(order); i++ {
		v := order[i]
		for j := c.start[v]; j < c.start[v+1]; j++ {
			w := c.adj[j]
			indeg[w]--
			if indeg[w] == 0 {
				order = append(order, w)
			}
		}
	}
	if len(order) < n {
		return nil
	}
	return order
}

// reach fills vin (per node and chain: one past the index of the latest op
// of the chain that reaches the node) and vout (the index of the earliest op
// of the chain the node reaches, or MaxInt32).
func (r *run) reach(c *csr, order []int32, vin, vout []int32, k int) {
	p := r.p
	for i := range vin {
		vin[i] = 0
		vout[i] = math.MaxInt32
	}
	for _, v := range order {
		op := &p.Ops[v]
		row := vin[int(v)*k : int(v)*k+k]
		if op.Idx+1 > row[op.Proc] {
			row[op.Proc] = op.Idx + 1
		}
		for j := c.start[v]; j < c.start[v+1]; j++ {
			w := c.adj[j]
			dst := vin[int(w)*k : int(w)*k+k]
			for q, x := range row {
				if x > dst[q] {
					dst[q] = x
				}
			}
		}
	}
	for i := len(order) - 1; i >= 0; i-- {
		v := order[i]
		op := &p.Ops[v]
		row := vout[int(v)*k : int(v)*k+k]
		for j := c.start[v]; j < c.start[v+1]; j++ {
			w := c.adj[j]
			src := vout[int(w)*k : int(w)*k+k]
			for q, x := range src {
				if x < row[q] {
					row[q] = x
				}
			}
		}
		if op.Idx < row[op.Proc] {
			row[op.Proc] = op.Idx
		}
	}
}

// pramCycles reports a shortest cycle of each cyclic component of a
// session's view; session is the session's first op.
func (r *run) pramCycles(g *graph, c *csr, session int32) {
	comp := c.scc()
	size := map[int32]int{}
	for _, k := range comp {
		size[k]++
	}
	done := map[int32]bool{}
	for v := int32(0); v < int32(g.n); v++ {
		k := comp[v]
		if size[k] < 2 || done[k] {
			continue
		}
		done[k] = true
		path := c.bfs(comp, v, func(u int32) bool { return c.edgeAt(u, v) >= 0 })
		if path == nil {
			continue
		}
		var ops []int32
		var steps []checker.Step
		for i := range path {
			a, b := path[i], path[(i+1)%len(path)]
			ops = append(ops, a)
			steps = append(steps, r.pramEdge(g, a, b, c.edgeAt(a, b), &ops))
		}
		r.report("pram", ops, func(v *checker.Violation) {
			v.Session, v.Steps = r.pos(session), steps
			r.citeSteps(v)
		})
	}
}

// pramEdge is the relation of one edge of a PRAM view.
func (r *run) pramEdge(g *graph, a, b, e int32, ops *[]int32) checker.Step {
	p := r.p
	oa, ob := &p.Ops[a], &p.Ops[b]
	if e >= 0 && g.why[e] >= 0 {
		w := g.reasons[g.why[e]]
		*ops = append(*ops, w.read)
		rd := w.read
		if w.know.kind == ruleBefore {
			// A write that reaches the read goes before the write it read.
			s := r.step(a, b, checker.RelBeforeSource)
			s.Via = r.pos(rd)
			return s
		}
		// The read goes before a write that follows the one it read.
		s := r.step(rd, b, checker.RelReplaced)
		s.Source = r.pos(p.Ops[rd].RF)
		return s
	}
	switch {
	case !ob.Write && ob.RF == a:
		return r.step(a, b, checker.RelReadsFrom)
	case !oa.Write && oa.RF == causal.RFInit && ob.Write && ob.Key == oa.Key:
		s := r.step(a, b, checker.RelReplaced)
		s.Source = checker.Initial
		return s
	case oa.Proc == ob.Proc && oa.Idx < ob.Idx:
		return r.step(a, b, checker.RelProcess)
	case p.Versioned && oa.Write && ob.Write && oa.Key == ob.Key:
		return r.step(a, b, checker.RelVersion)
	}
	return r.step(a, b, checker.RelNone)
}
