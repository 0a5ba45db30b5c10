package elle

// tarjan finds the strongly connected components of the graph of g's
// edges of a kind in mask, with Tarjan's algorithm made iterative (deep
// histories would overflow a recursive one's stack). It returns each
// transaction's component, -1 for one alone, and whether any component
// has two or more transactions.
func tarjan(g *Graph, mask EdgeType) ([]int32, bool) {
	n := g.Len()
	const unvisited = -1
	index := make([]int32, n)
	low := make([]int32, n)
	comp := make([]int32, n)
	for i := range index {
		index[i], comp[i] = unvisited, -1
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
