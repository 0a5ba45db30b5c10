package elle

// tarjan finds the strongly connected components of the graph of g's
// edges of a kind in mask, with Tarjan's algorithm made iterative (deep
// histories would overflow a recursive one's stack). It returns each
// transaction's component, -1 for one alone, and whether any component
// has two or more transactions.
func tarjan(g *Graph, mask EdgeType) ([]int32, bool) {
	n := g.Len()
	const unvisited = -1
	comp := make([]int32, n)
	for i := range comp {
		comp[i] = -1
	}
	// A transaction peeled off first is on no cycle: the search passes
	// it as if visited, and it stays alone.
	peeled, left := peel(g, mask)
	if left == 0 {
		return comp, false
	}
	index := make([]int32, n)
	low := make([]int32, n)
	for i := range index {
		index[i] = unvisited
	}
	for _, v := range peeled {
		index[v] = 0
	}
	onStack := make([]bool, n)
	var stack []int32
	// frames are the depth-first path: a node and how far through its
	// arcs the search has gone.
	type frame struct{ v, next int32 }
	var frames []frame
	next, comps := int32(0), int32(0)
	any := false
	for root := 0; root < n; root++ {
		if index[root] != unvisited {
			continue
		}
		frames = append(frames[:0], frame{int32(root), 0})
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(frames) > 0 {
			f := &frames[len(frames)-1]
			v := f.v
			out := g.out(int(v))
			if f.next < int32(len(out.to)) {
				w, types := out.to[f.next], out.types[f.next]
				f.next++
				switch {
				case types&mask == 0:
				case index[w] == unvisited:
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					frames = append(frames, frame{w, 0})
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			frames = frames[:len(frames)-1]
			if len(frames) > 0 {
				u := frames[len(frames)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			// v roots a component: pop it.
			i := len(stack) - 1
			for stack[i] != v {
				i--
			}
			members := stack[i:]
			if len(members) > 1 {
				any = true
				for _, m := range members {
					comp[m] = comps
				}
				comps++
			}
			for _, m := range members {
				onStack[m] = false
			}
			stack = stack[:i]
		}
	}
	return comp, any
}

// peel removes, as Kahn's topological sort does, the transactions that no
// arc of mask reaches from a transaction not yet removed, and returns them
// with the number left: those all lie on a cycle or after one. None that
// is removed lies on a cycle, and no arc leads from one left to one
// removed, so the components of those left are the graph's. An acyclic
// graph is peeled whole, in one pass over its arcs to count them and one
// to remove them, which costs less than the search: a history that keeps
// its level has no cycle.
func peel(g *Graph, mask EdgeType) (peeled []int32, left int) {
	n := g.Len()
	indeg := make([]int32, n)
	for i, b := range g.arcs.to {
		if g.arcs.types[i]&mask != 0 {
			indeg[b]++
		}
	}
	peeled = make([]int32, 0, n)
	for v, d := range indeg {
		if d == 0 {
			peeled = append(peeled, int32(v))
		}
	}
	for i := 0; i < len(peeled); i++ {
		out := g.out(int(peeled[i]))
		for k, b := range out.to {
			if out.types[k]&mask == 0 {
				continue
			}
			if indeg[b]--; indeg[b] == 0 {
				peeled = append(peeled, b)
			}
		}
	}
	return peeled, n - len(peeled)
}
