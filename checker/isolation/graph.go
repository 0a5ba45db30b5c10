package isolation

// Edge kinds of the graphs the levels are decided on.
const (
	edgeSO   uint8 = iota // session order (the initial transaction before every session's first)
	edgeWR                // reads-from
	edgeCO                // a commit-order edge a read forces (saturation)
	edgeWW                // one key's writers in the order chosen
	edgeRW                // a read before the write that overwrote what it read
	edgeSnap              // a transaction's snapshot before its commit (split graphs)
)

// edge is one labelled edge; ref says why (a read's index, a reason's).
type edge struct {
	from, to node
	kind     uint8
	key      int32
	ref      int32
}

// graph is a static graph in compressed rows, built from edges.
type graph struct {
	n     int
	start []int32
	out   []int32 // edge indices, by source
	edges []edge
}

func newGraph(n int, edges []edge) *graph {
	g := &graph{n: n, edges: edges, start: make([]int32, n+1), out: make([]int32, len(edges))}
	for _, e := range edges {
		g.start[e.from+1]++
	}
	for i := 0; i < n; i++ {
		g.start[i+1] += g.start[i]
	}
	fill := make([]int32, n)
	copy(fill, g.start[:n])
	for i, e := range edges {
		g.out[fill[e.from]] = int32(i)
		fill[e.from]++
	}
	return g
}

func (g *graph) succ(v node) []int32 { return g.out[g.start[v]:g.start[v+1]] }

// topo sorts g's nodes (Kahn); ok is false when g has a cycle, and then
// order holds the nodes it could sort.
func (g *graph) topo() (order []node, ok bool) {
	indeg := make([]int32, g.n)
	for _, e := range g.edges {
		indeg[e.to]++
	}
	order = make([]node, 0, g.n)
	for v := 0; v < g.n; v++ {
		if indeg[v] == 0 {
			order = append(order, node(v))
		}
	}
	for i := 0; i < len(order); i++ {
		for _, ei := range g.succ(order[i]) {
			to := g.edges[ei].to
			indeg[to]--
			if indeg[to] == 0 {
				order = append(order, to)
			}
		}
	}
	return order, len(order) == g.n
}

// topoByIndex is topo taking, among the nodes ready, the least first, so
// that the order follows the nodes' numbering (the history's order)
// wherever the edges allow.
func (g *graph) topoByIndex() (order []node, ok bool) {
	indeg := make([]int32, g.n)
	for _, e := range g.edges {
		indeg[e.to]++
	}
	h := &nodeHeap{}
	for v := 0; v < g.n; v++ {
		if indeg[v] == 0 {
			h.push(node(v))
		}
	}
	order = make([]node, 0, g.n)
	for len(*h) > 0 {
		v := h.pop()
		order = append(order, v)
		for _, ei := range g.succ(v) {
			to := g.edges[ei].to
			indeg[to]--
			if indeg[to] == 0 {
				h.push(to)
			}
		}
	}
	return order, len(order) == g.n
}

// nodeHeap is a binary min-heap of nodes.
type nodeHeap []node

func (h *nodeHeap) push(v node) {
	*h = append(*h, v)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if a[p] <= a[i] {
			break
		}
		a[p], a[i] = a[i], a[p]
		i = p
	}
}

func (h *nodeHeap) pop() node {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(a) && a[l] < a[m] {
			m = l
		}
		if r < len(a) && a[r] < a[m] {
			m = r
		}
		if m == i {
			break
		}
		a[m], a[i] = a[i], a[m]
		i = m
	}
	*h = a
	return top
}

// cycle finds a cycle of g among the nodes topo could not sort, with as
// few edges of kind costly as it can (a 0-1 breadth-first search from a
// node on a cycle), as edge indices in order.
func (g *graph) cycle(sorted []node, costly func(edge) bool) []int32 {
	done := make([]bool, g.n)
	for _, v := range sorted {
		done[v] = true
	}
	// A node on a cycle: walk backwards from any unsorted node until a
	// node repeats; every unsorted node has an unsorted predecessor.
	var start node = -1
	for v := 0; v < g.n; v++ {
		if !done[v] {
			start = node(v)
			break
		}
	}
	if start < 0 {
		return nil
	}
	pred := make([]int32, g.n)
	for i := range pred {
		pred[i] = -1
	}
	for ei, e := range g.edges {
		if !done[e.from] && !done[e.to] && pred[e.to] < 0 {
			pred[e.to] = int32(ei)
		}
	}
	seen := make([]bool, g.n)
	v := start
	for !seen[v] {
		seen[v] = true
		v = g.edges[pred[v]].from
	}
	start = v
	// 0-1 BFS from start back to start.
	const inf = int32(1 << 30)
	dist := make([]int32, g.n)
	via := make([]int32, g.n)
	for i := range dist {
		dist[i] = inf
		via[i] = -1
	}
	dq := make([]node, 0, 64)
	head := make([]node, 0, 64)
	push := func(u node, front bool) {
		if front {
			head = append(head, u)
		} else {
			dq = append(dq, u)
		}
	}
	dist[start] = 0
	push(start, true)
	best, bestEdge := inf, int32(-1)
	qi := 0
	for len(head) > 0 || qi < len(dq) {
		var u node
		if len(head) > 0 {
			u = head[len(head)-1]
			head = head[:len(head)-1]
		} else {
			u = dq[qi]
			qi++
		}
		for _, ei := range g.succ(u) {
			e := g.edges[ei]
			if done[e.to] {
				continue
			}
			w := int32(0)
			if costly(e) {
				w = 1
			}
			if e.to == start {
				if dist[u]+w < best {
					best, bestEdge = dist[u]+w, ei
				}
				continue
			}
			if dist[u]+w < dist[e.to] {
				dist[e.to] = dist[u] + w
				via[e.to] = ei
				push(e.to, w == 0)
			}
		}
	}
	if bestEdge < 0 {
		return nil
	}
	out := []int32{bestEdge}
	for v := g.edges[bestEdge].from; v != start; v = g.edges[via[v]].from {
		out = append(out, via[v])
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}
