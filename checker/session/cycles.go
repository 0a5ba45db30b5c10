package session

import (
	"sort"

	"github.com/histcheck/histcheck/checker"
)

func sortInt32(xs []int32, less func(a, b int32) bool) {
	sort.Slice(xs, func(i, j int) bool { return less(xs[i], xs[j]) })
}

// csr is a compact adjacency list.
type csr struct {
	start []int32
	adj   []int32
	eid   []int32 // edge index in the graph's edge lists
}

func (g *graph) csr() *csr {
	nodes := g.n + len(g.virtuals)
	c := &csr{start: make([]int32, nodes+1), adj: make([]int32, len(g.from)), eid: make([]int32, len(g.from))}
	for _, f := range g.from {
		c.start[f+1]++
	}
	for i := 1; i <= nodes; i++ {
		c.start[i] += c.start[i-1]
	}
	pos := append([]int32(nil), c.start[:nodes]...)
	for e, f := range g.from {
		c.adj[pos[f]] = g.to[e]
		c.eid[pos[f]] = int32(e)
		pos[f]++
	}
	return c
}

// scc labels the strongly connected components of the graph (Tarjan,
// iterative) and returns the component of each node.
func (c *csr) scc() []int32 {
	n := len(c.start) - 1
	index := make([]int32, n)
	low := make([]int32, n)
	comp := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
		comp[i] = -1
	}
	var stack, call []int32
	var iter []int32
	next := int32(0)
	ncomp := int32(0)
	for root := 0; root < n; root++ {
		if index[root] >= 0 {
			continue
		}
		call = append(call[:0], int32(root))
		iter = append(iter[:0], c.start[root])
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(call) > 0 {
			v := call[len(call)-1]
			i := &iter[len(iter)-1]
			if *i < c.start[v+1] {
				w := c.adj[*i]
				*i++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, w)
					iter = append(iter, c.start[w])
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			call = call[:len(call)-1]
			iter = iter[:len(iter)-1]
			if len(call) > 0 {
				u := call[len(call)-1]
				if low[v] < low[u] {
					low[u] = low[v]
				}
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
		}
	}
	return comp
}

// cycles reports every component of g that holds two writes: they would
// have to be older than each other in the write order every session
// shares.
func (r *run) cycles(g *graph) {
	p := r.p
	c := g.csr()
	comp := c.scc()
	first := map[int32]int32{}
	bad := map[int32]int32{} // component → a second write in it
	for o := 0; o < g.n; o++ {
		if !p.Ops[o].Write {
			continue
		}
		k := comp[o]
		if f, ok := first[k]; ok {
			if _, done := bad[k]; !done {
				bad[k] = f
			}
		} else {
			first[k] = int32(o)
		}
	}
	if len(bad) == 0 {
		return
	}
	comps := make([]int32, 0, len(bad))
	for k := range bad {
		comps = append(comps, k)
	}
	sortInt32(comps, func(a, b int32) bool { return first[a] < first[b] })
	for _, k := range comps {
		a := first[k]
		// A shortest path from a to another write b of the component, and
		// back: a cycle with at least two writes.
		toB := c.bfs(comp, a, func(v int32) bool { return v != a && v < int32(g.n) && p.Ops[v].Write })
		if toB == nil {
			continue
		}
		b := toB[len(toB)-1]
		back := c.bfs(comp, b, func(v int32) bool { return v == a })
		cyc := append(toB, back[1:len(back)-1]...)
		ops, steps := r.cycleSteps(g, c, cyc)
		r.report(r.pattern(), ops, func(v *checker.Violation) {
			v.Steps = steps
			r.citeSteps(v)
		})
	}
}

// bfs returns a shortest path inside v's component from src to a node that
// satisfies stop (both included).
func (c *csr) bfs(comp []int32, src int32, stop func(int32) bool) []int32 {
	prev := map[int32]int32{src: -1}
	queue := []int32{src}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for i := c.start[u]; i < c.start[u+1]; i++ {
			w := c.adj[i]
			if comp[w] != comp[src] {
				continue
			}
			if _, ok := prev[w]; ok {
				continue
			}
			prev[w] = u
			if stop(w) {
				var path []int32
				for v := w; v != -1; v = prev[v] {
					path = append(path, v)
				}
				for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return path
			}
			queue = append(queue, w)
		}
	}
	return nil
}

// edgeAt finds the edge from a to b.
func (c *csr) edgeAt(a, b int32) int32 {
	for i := c.start[a]; i < c.start[a+1]; i++ {
		if c.adj[i] == b {
			return c.eid[i]
		}
	}
	return -1
}

// cycleSteps turns a cycle (closed, first node a write) into its
// operations and one step per pair of consecutive writes.
func (r *run) cycleSteps(g *graph, c *csr, cyc []int32) ([]int32, []checker.Step) {
	p := r.p
	var ops []int32
	var steps []checker.Step
	n := len(cyc)
	isOp := func(v int32) bool { return v < int32(g.n) }
	i := 0
	for i < n {
		u := cyc[i]
		j := i + 1
		for !isOp(cyc[j%n]) || !p.Ops[cyc[j%n]].Write {
			j++
		}
		ops = append(ops, u)
		steps = append(steps, r.segment(g, c, cyc, i, j, &ops))
		i = j
	}
	return ops, steps
}

// segment is the step of the path cyc[i..j] (j taken modulo the cycle
// length) between two writes.
func (r *run) segment(g *graph, c *csr, cyc []int32, i, j int, ops *[]int32) checker.Step {
	p := r.p
	n := len(cyc)
	u, w := cyc[i], cyc[j%n]
	e0 := c.edgeAt(u, cyc[(i+1)%n])
	eLast := c.edgeAt(cyc[(j-1+n)%n], w)
	if j == i+1 {
		uo, wo := &p.Ops[u], &p.Ops[w]
		if p.Versioned && uo.Key == wo.Key && uo.Version < wo.Version {
			return r.step(u, w, checker.RelVersion)
		}
		// Monotonic writes keeps each process's order of its writes.
		return r.step(u, w, checker.RelProcess)
	}
	first := g.virtuals[int(cyc[(i+1)%n])-g.n]
	if first.kind == vAfter {
		// u → after(x) → … → w: the read of u is the op just before x.
		x := p.Ops[first.op]
		rd := p.Procs[x.Proc][x.Idx-1]
		*ops = append(*ops, rd)
		s := r.step(u, w, checker.RelIssued)
		s.Via = r.pos(rd)
		return s
	}
	// u → know → … → w: the session knew u, and a later read of it
	// returned w.
	s := r.step(u, w, checker.RelKnown)
	if e0 >= 0 && g.why[e0] >= 0 {
		k := g.reasons[g.why[e0]].know
		s = r.known(u, w, k)
		if k.kind != knowOwn {
			*ops = append(*ops, k.a)
		}
	}
	if eLast >= 0 && g.why[eLast] >= 0 {
		rd := g.reasons[g.why[eLast]].read
		*ops = append(*ops, rd)
		s.Via = r.pos(rd)
	}
	return s
}
