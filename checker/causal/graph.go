package causal

import (
	"sort"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// Edge kinds of the causal graphs, used to explain each step of a witness.
const (
	edgePO uint8 = iota // process order
	edgeRF              // reads-from
	edgeCF              // conflict: a read forces an arbitration order
	edgeHB              // a session's view forces an order (causal memory)
	edgeVO              // explicit versions order two writes of a key
)

// why says why an extra edge w1 → w2 exists: read r returned w2 while w1
// preceded it (causally for cf, in r's session's view for hb).
type why struct {
	kind uint8
	read int32
}

// dag is po ∪ rf plus extra edges, over the ops of a Prepared history.
type dag struct {
	p     *Prepared
	extra map[[2]int32]why // extra edges and their reasons
	out   [][]int32        // extra successors
	in    [][]int32        // extra predecessors
}

func newDag(p *Prepared) *dag {
	return &dag{p: p, extra: map[[2]int32]why{}}
}

func (d *dag) add(from, to int32, w why) bool {
	k := [2]int32{from, to}
	if _, ok := d.extra[k]; ok {
		return false
	}
	if d.out == nil {
		d.out = make([][]int32, len(d.p.Ops))
		d.in = make([][]int32, len(d.p.Ops))
	}
	d.extra[k] = w
	d.out[from] = append(d.out[from], to)
	d.in[to] = append(d.in[to], from)
	return true
}

// succ calls f for each successor of o.
func (d *dag) succ(o int32, f func(int32)) {
	p := d.p
	op := &p.Ops[o]
	pr := p.Procs[op.Proc]
	if int(op.Idx)+1 < len(pr) {
		f(pr[op.Idx+1])
	}
	if op.Write {
		for _, r := range p.readers(o) {
			f(r)
		}
	}
	if d.out != nil {
		for _, t := range d.out[o] {
			f(t)
		}
	}
}

// pred calls f for each predecessor of o with the edge kind.
func (d *dag) pred(o int32, f func(int32, uint8)) {
	p := d.p
	op := &p.Ops[o]
	if op.Idx > 0 {
		f(p.Procs[op.Proc][op.Idx-1], edgePO)
	}
	if !op.Write && op.RF >= 0 {
		f(op.RF, edgeRF)
	}
	if d.in != nil {
		for _, s := range d.in[o] {
			f(s, d.extra[[2]int32{s, o}].kind)
		}
	}
}

// kind returns the kind of edge from → to (po, rf or an extra edge).
func (d *dag) kind(from, to int32) (uint8, why) {
	p := d.p
	a, b := &p.Ops[from], &p.Ops[to]
	if a.Proc == b.Proc && a.Idx+1 == b.Idx {
		return edgePO, why{}
	}
	if !b.Write && b.RF == from {
		return edgeRF, why{}
	}
	w, ok := d.extra[[2]int32{from, to}]
	if !ok {
		return 255, why{}
	}
	return w.kind, w
}

// topo returns a topological order of the graph, or the ops left over
// (each on or after a cycle) when there is none.
func (d *dag) topo() (order []int32, rest []int32) {
	n := len(d.p.Ops)
	indeg := make([]int32, n)
	for o := int32(0); o < int32(n); o++ {
		d.succ(o, func(t int32) { indeg[t]++ })
	}
	order = make([]int32, 0, n)
	for o := int32(0); o < int32(n); o++ {
		if indeg[o] == 0 {
			order = append(order, o)
		}
	}
	for i := 0; i < len(order); i++ {
		d.succ(order[i], func(t int32) {
			indeg[t]--
			if indeg[t] == 0 {
				order = append(order, t)
			}
		})
	}
	if len(order) == n {
		return order, nil
	}
	for o := int32(0); o < int32(n); o++ {
		if indeg[o] > 0 {
			rest = append(rest, o)
		}
	}
	return nil, rest
}

// cycles finds, among the ops in rest, every strongly connected component
// with a cycle and returns a shortest cycle of each (as a closed walk
// without repeating its first node), smallest components first.
func (d *dag) cycles(rest []int32) [][]int32 {
	in := make(map[int32]bool, len(rest))
	for _, o := range rest {
		in[o] = true
	}
	g := simple.NewDirectedGraph()
	for _, o := range rest {
		g.AddNode(simple.Node(o))
	}
	for _, o := range rest {
		d.succ(o, func(t int32) {
			if in[t] && t != o && !g.HasEdgeFromTo(int64(o), int64(t)) {
				g.SetEdge(g.NewEdge(simple.Node(o), simple.Node(t)))
			}
		})
	}
	comps := topo.TarjanSCC(g)
	for _, c := range comps {
		sort.Slice(c, func(i, j int) bool { return c[i].ID() < c[j].ID() })
	}
	sort.SliceStable(comps, func(i, j int) bool {
		if len(comps[i]) != len(comps[j]) {
			return len(comps[i]) < len(comps[j])
		}
		return comps[i][0].ID() < comps[j][0].ID()
	})
	var out [][]int32
	for _, c := range comps {
		if len(c) < 2 {
			continue
		}
		out = append(out, shortestCycle(g, c))
	}
	return out
}

// shortestCycle returns a shortest cycle inside the component c of g. For
// large components it searches from a few nodes only: the cycle is then
// short, not always shortest.
func shortestCycle(g *simple.DirectedGraph, c []graph.Node) []int32 {
	member := make(map[int64]bool, len(c))
	for _, n := range c {
		member[n.ID()] = true
	}
	starts := c
	if len(starts) > 64 {
		starts = starts[:64]
	}
	var best []int32
	for _, s := range starts {
		// BFS from s back to s.
		prev := map[int64]int64{}
		queue := []int64{s.ID()}
		found := int64(-1)
		for len(queue) > 0 && found < 0 {
			u := queue[0]
			queue = queue[1:]
			var next []int64
			for it := g.From(u); it.Next(); {
				next = append(next, it.Node().ID())
			}
			sort.Slice(next, func(i, j int) bool { return next[i] < next[j] })
			for _, v := range next {
				if !member[v] {
					continue
				}
				if v == s.ID() {
					found = u
					break
				}
				if _, seen := prev[v]; !seen {
					prev[v] = u
					queue = append(queue, v)
				}
			}
		}
		if found < 0 {
			continue
		}
		var cyc []int32
		for v := found; v != s.ID(); v = prev[v] {
			cyc = append(cyc, int32(v))
		}
		cyc = append(cyc, int32(s.ID()))
		for i, j := 0, len(cyc)-1; i < j; i, j = i+1, j-1 {
			cyc[i], cyc[j] = cyc[j], cyc[i]
		}
		if best == nil || len(cyc) < len(best) {
			best = cyc
		}
	}
	return best
}

// clocks are vector clocks over the processes that write: c.at(o, q) is the
// number of q's ops in the past of o (o included).
type clocks struct {
	col  []int32 // process → column, or -1 if it never writes
	k    int
	data []int32
}

func newClocks(p *Prepared) *clocks {
	c := &clocks{col: make([]int32, len(p.Procs))}
	for q := range p.Procs {
		c.col[q] = -1
		for _, o := range p.Procs[q] {
			if p.Ops[o].Write {
				c.col[q] = int32(c.k)
				c.k++
				break
			}
		}
	}
	c.data = make([]int32, len(p.Ops)*c.k)
	return c
}

// compute fills the clocks along a topological order of d.
func (c *clocks) compute(d *dag, order []int32) {
	k := c.k
	for i := range c.data {
		c.data[i] = 0
	}
	for _, o := range order {
		row := c.data[int(o)*k : int(o)*k+k]
		d.pred(o, func(s int32, _ uint8) {
			src := c.data[int(s)*k : int(s)*k+k]
			for j, v := range src {
				if v > row[j] {
					row[j] = v
				}
			}
		})
		op := &d.p.Ops[o]
		if col := c.col[op.Proc]; col >= 0 {
			row[col] = op.Idx + 1
		}
	}
}

// at returns how many of q's ops are in the past of o.
func (c *clocks) at(o int32, q int32) int32 {
	col := c.col[q]
	if col < 0 {
		return 0
	}
	return c.data[int(o)*c.k+int(col)]
}

// before reports whether a is in the past of b (a write's process always
// has a column). a == b counts.
func (c *clocks) before(p *Prepared, a, b int32) bool {
	op := &p.Ops[a]
	return op.Idx < c.at(b, op.Proc)
}
