package sequential

import (
	"context"
	"errors"
	"sort"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/model"
)

// Limits beyond which the saturation is not tried (the search still is):
// its reachability sets take nodes² bits, and each round compares every
// read with every write of its key.
const (
	maxSatNodes = 6000
	maxSatPairs = 20_000_000
)

// edge kinds of the saturation graph, for the explanation.
const (
	edgePO   uint8 = iota // program order
	edgeRF                // a write (or the initial value) before a read of its value
	edgeInit              // the initial value before every write of its key
	edgeWW                // forced: a write before the source of a later read
	edgeRW                // forced: a read before a write that follows its source
)

type satEdge struct {
	kind uint8
	via  int32 // the read that forces an edgeWW or edgeRW
}

// satGraph is the graph of the saturation: one node per operation taking
// part, then one node per key for its initial value.
type satGraph struct {
	n     int       // nodes
	op    []int32   // node -> compiled op, -1 for an initial value
	key   []int32   // node -> key index
	succ  [][]int32 // adjacency
	why   map[[2]int32]satEdge
	reads []satRead         // reads with a known source
	src   map[int32]int32   // read node -> source node
	wrs   map[int32][]int32 // key -> write nodes
}

type satRead struct {
	node, src int32
	key       int32
}

func (g *satGraph) addEdge(a, b int32, e satEdge) bool {
	if _, ok := g.why[[2]int32{a, b}]; ok || a == b {
		return false
	}
	g.why[[2]int32{a, b}] = e
	g.succ[a] = append(g.succ[a], b)
	return true
}

// saturate looks for a cycle in program order plus reads-from plus the
// write orders they force (the saturation of the design note). A cycle
// means no sequential order exists; no cycle proves nothing. It applies to
// histories of reads and blind writes where every written value is unique
// per key and differs from the initial value, which it establishes with
// the model itself: a write's value is the state it leads to from the
// initial state, and a read's source is the one state in which it is
// legal. It returns nil when it does not apply or finds no cycle.
func saturate[S comparable](ctx context.Context, p *problem[S]) *checker.Violation {
	g, thin := buildSatGraph(p)
	if thin >= 0 {
		return thinAir(p, thin)
	}
	if g == nil {
		return nil
	}
	for round := 0; ; round++ {
		if ctx.Err() != nil {
			return nil
		}
		order, cyc := g.topo()
		if cyc != nil {
			return explainCycle(p, g, cyc)
		}
		reach := g.reach(order)
		added := false
		for _, r := range g.reads {
			for _, w := range g.wrs[r.key] {
				if w == r.src {
					continue
				}
				// (a) w comes before r, and r reads src: w must come before src.
				if reach.has(w, r.node) && !reach.has(w, r.src) {
					added = g.addEdge(w, r.src, satEdge{kind: edgeWW, via: r.node}) || added
				}
				// (b) src comes before w: r must come before w.
				if reach.has(r.src, w) && !reach.has(r.node, w) {
					added = g.addEdge(r.node, w, satEdge{kind: edgeRW, via: r.node}) || added
				}
			}
		}
		if !added {
			return nil
		}
	}
}

// buildSatGraph returns the graph of program order, reads-from and initial
// values, or nil when the saturation does not apply. When a read can be
// legal in no state the history can reach, it returns that read's index.
func buildSatGraph[S comparable](p *problem[S]) (*satGraph, int32) {
	isWrite, ok := satWrites(p)
	if !ok {
		return nil, -1
	}
	after, byKey, ok := writeStates(p, isWrite)
	if !ok || satPairs(p, byKey) > maxSatPairs {
		return nil, -1
	}
	src, observed, thin := readSources(p, after, byKey)
	if thin >= 0 {
		return nil, thin
	}
	g, node, initNode := satNodes(p, isWrite, src, observed)
	if g.n > maxSatNodes {
		return nil, -1
	}
	g.succ = make([][]int32, g.n)
	g.addProgramOrder(p.procs, node)
	g.addSources(p.keyOf, isWrite, src, node, initNode)
	return g, -1
}

// satWrites marks the writes among the operations, and reports whether
// every operation is a read or a write (else the saturation does not
// apply).
func satWrites[S comparable](p *problem[S]) ([]bool, bool) {
	isWrite := make([]bool, len(p.c.Ops))
	info := p.m.Info()
	for i := range p.c.Ops {
		switch {
		case p.readLike[i]:
		case info.ClassOf(p.h.Ops[p.c.Pos[i]].F) == model.WriteOp:
			isWrite[i] = true
		default:
			return nil, false
		}
	}
	return isWrite, true
}

// writeStates returns the state each write leads to and, per key, its
// writes. It reports false unless every write is blind and leads to a new
// state, unique per key, so that a state names its write.
func writeStates[S comparable](p *problem[S], isWrite []bool) (after []S, byKey map[int32][]int32, ok bool) {
	ops := p.c.Ops
	type kv struct {
		key int32
		st  S
	}
	after = make([]S, len(ops))
	writer := make(map[kv]int32)
	byKey = make(map[int32][]int32)
	for i := range ops {
		if !isWrite[i] {
			continue
		}
		st, ok := p.m.Step(p.init, &ops[i])
		if !ok || st == p.init {
			return nil, nil, false
		}
		k := kv{p.keyOf[i], st}
		if _, dup := writer[k]; dup {
			return nil, nil, false
		}
		writer[k] = int32(i)
		after[i] = st
		byKey[p.keyOf[i]] = append(byKey[p.keyOf[i]], int32(i))
	}
	// A write must be blind: what it leads to cannot depend on the state.
	for _, ws := range byKey {
		for j := 1; j < len(ws); j++ {
			if st, ok := p.m.Step(after[ws[0]], &ops[ws[j]]); !ok || st != after[ws[j]] {
				return nil, nil, false
			}
		}
	}
	return after, byKey, true
}

// satPairs counts the (read, write of its key) pairs each round compares.
func satPairs[S comparable](p *problem[S], byKey map[int32][]int32) int {
	pairs := 0
	for i := range p.c.Ops {
		if p.readLike[i] {
			pairs += len(byKey[p.keyOf[i]])
		}
	}
	return pairs
}

// A read's source, besides the index of a write.
const (
	srcNone = int32(-2) // no source: not a read, or one of unknown outcome
	srcInit = int32(-1) // the initial value
	srcMany = int32(-3) // legal in several states
)

// readSources returns each read's source: the initial value or the one
// write whose state the read accepts. A read legal in several states
// constrains little and is left out (srcMany); one legal in none can never
// take effect, and its index is returned as thin (else -1). observed
// marks the writes some read has as its source.
func readSources[S comparable](p *problem[S], after []S, byKey map[int32][]int32) (src []int32, observed []bool, thin int32) {
	ops := p.c.Ops
	src = make([]int32, len(ops))
	observed = make([]bool, len(ops))
	for i := range ops {
		src[i] = srcNone
		if !p.readLike[i] || ops[i].Unknown {
			continue
		}
		s := srcNone
		if _, ok := p.m.Step(p.init, &ops[i]); ok {
			s = srcInit
		}
		for _, w := range byKey[p.keyOf[i]] {
			if _, ok := p.m.Step(after[w], &ops[i]); ok {
				if s != srcNone {
					s = srcMany
					break
				}
				s = w
			}
		}
		if s == srcNone {
			return nil, nil, int32(i)
		}
		src[i] = s
		if s >= 0 {
			observed[s] = true
		}
	}
	return src, observed, -1
}

// satNodes returns the graph's nodes, without edges: completed writes,
// unknown writes some read observed, reads with one source; then the
// initial values. node maps each operation to its node (-1 for none), and
// initNode each key to its initial value's.
func satNodes[S comparable](p *problem[S], isWrite []bool, src []int32, observed []bool) (g *satGraph, node, initNode []int32) {
	ops := p.c.Ops
	g = &satGraph{why: make(map[[2]int32]satEdge), wrs: make(map[int32][]int32), src: make(map[int32]int32)}
	node = make([]int32, len(ops))
	for i := range ops {
		node[i] = -1
		keep := (isWrite[i] && (!ops[i].Unknown || observed[i])) || src[i] >= srcInit
		if keep {
			node[i] = int32(g.n)
			g.op = append(g.op, int32(i))
			g.key = append(g.key, p.keyOf[i])
			g.n++
		}
	}
	initNode = make([]int32, len(p.keys))
	for k := range p.keys {
		initNode[k] = int32(g.n)
		g.op = append(g.op, -1)
		g.key = append(g.key, int32(k))
		g.n++
	}
	return g, node, initNode
}

// addProgramOrder links each process's consecutive nodes.
func (g *satGraph) addProgramOrder(procs [][]int32, node []int32) {
	for _, ops := range procs {
		prev := int32(-1)
		for _, i := range ops {
			if node[i] < 0 {
				continue
			}
			if prev >= 0 {
				g.addEdge(prev, node[i], satEdge{kind: edgePO})
			}
			prev = node[i]
		}
	}
}

// addSources puts each key's initial value before its writes, and each
// read's source before the read.
func (g *satGraph) addSources(keyOf []int32, isWrite []bool, src, node, initNode []int32) {
	for i := range node {
		if node[i] < 0 {
			continue
		}
		k := keyOf[i]
		if isWrite[i] {
			g.addEdge(initNode[k], node[i], satEdge{kind: edgeInit})
			g.wrs[k] = append(g.wrs[k], node[i])
			continue
		}
		s := initNode[k]
		if src[i] >= 0 {
			s = node[src[i]]
		}
		g.addEdge(s, node[i], satEdge{kind: edgeRF})
		g.reads = append(g.reads, satRead{node: node[i], src: s, key: k})
		g.src[node[i]] = s
	}
}

// topo returns the nodes in a topological order, or a shortest cycle.
func (g *satGraph) topo() ([]int32, []int32) {
	dg := simple.NewDirectedGraph()
	for v := 0; v < g.n; v++ {
		dg.AddNode(simple.Node(v))
	}
	for a, ss := range g.succ {
		for _, b := range ss {
			dg.SetEdge(dg.NewEdge(simple.Node(a), simple.Node(b)))
		}
	}
	sorted, err := topo.Sort(dg)
	if err == nil {
		order := make([]int32, len(sorted))
		for i, n := range sorted {
			order[i] = int32(n.ID())
		}
		return order, nil
	}
	var un topo.Unorderable
	if !errors.As(err, &un) {
		return nil, nil
	}
	var best []int32
	for _, scc := range un {
		in := make(map[int32]bool, len(scc))
		for _, n := range scc {
			in[int32(n.ID())] = true
		}
		for _, n := range scc {
			if c := g.shortestCycle(int32(n.ID()), in); c != nil && (best == nil || len(c) < len(best)) {
				best = c
			}
		}
	}
	return nil, best
}

// shortestCycle finds by breadth-first search the shortest cycle through v
// inside the component in, as a list of nodes starting at v.
func (g *satGraph) shortestCycle(v int32, in map[int32]bool) []int32 {
	parent := map[int32]int32{v: -1}
	queue := []int32{v}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, w := range g.succ[u] {
			if w == v {
				var c []int32
				for x := u; x != -1; x = parent[x] {
					c = append(c, x)
				}
				for i, j := 0, len(c)-1; i < j; i, j = i+1, j-1 {
					c[i], c[j] = c[j], c[i]
				}
				return c
			}
			if _, seen := parent[w]; seen || !in[w] {
				continue
			}
			parent[w] = u
			queue = append(queue, w)
		}
	}
	return nil
}

// bitsets holds, per node, the set of nodes reachable from it.
type bitsets struct {
	words int
	b     []uint64
}

func (r *bitsets) has(from, to int32) bool {
	return r.b[int(from)*r.words+int(to)/64]&(1<<(uint(to)%64)) != 0
}

// reach computes reachability sets in reverse topological order.
func (g *satGraph) reach(order []int32) *bitsets {
	words := (g.n + 63) / 64
	r := &bitsets{words: words, b: make([]uint64, words*g.n)}
	for i := len(order) - 1; i >= 0; i-- {
		v := order[i]
		row := r.b[int(v)*words : int(v+1)*words]
		for _, w := range g.succ[v] {
			row[int(w)/64] |= 1 << (uint(w) % 64)
			wrow := r.b[int(w)*words : int(w+1)*words]
			for j := range row {
				row[j] |= wrow[j]
			}
		}
	}
	return r
}

// explainCycle turns a cycle into a violation: the operations on it, the
// reads that force its edges, and the relation of each edge.
func explainCycle[S comparable](p *problem[S], g *satGraph, cyc []int32) *checker.Violation {
	// at names node v as a position, or the initial value.
	at := func(v int32) int {
		if g.op[v] < 0 {
			return checker.Initial
		}
		return p.c.Pos[g.op[v]]
	}
	seen := make(map[int]bool)
	var ops []int
	addOp := func(v int32) {
		if pos := at(v); pos >= 0 && !seen[pos] {
			seen[pos] = true
			ops = append(ops, pos)
		}
	}
	steps := make([]checker.Step, 0, len(cyc))
	for i, a := range cyc {
		b := cyc[(i+1)%len(cyc)]
		addOp(a)
		e := g.why[[2]int32{a, b}]
		s := checker.Step{From: at(a), To: at(b), Via: checker.None, Source: checker.None, Seen: checker.None}
		switch e.kind {
		case edgePO:
			s.Rel = checker.RelProcess
		case edgeRF:
			s.Rel = checker.RelReadsFrom
		case edgeInit:
			s.Rel = checker.RelInitial
		case edgeWW:
			// A write before the source of a later read.
			addOp(e.via)
			s.Rel, s.Via = checker.RelBeforeSource, at(e.via)
		case edgeRW:
			// A read before a write that follows its source.
			s.Rel, s.Source = checker.RelReplaced, at(g.src[e.via])
		}
		steps = append(steps, s)
	}
	sort.Ints(ops)
	v := &checker.Violation{Ops: ops, Pattern: "saturation-cycle", Op: checker.None, Steps: steps}
	if k := g.key[cyc[0]]; p.keyed {
		same := true
		for _, x := range cyc {
			same = same && g.key[x] == k
		}
		if same {
			v.Key = p.keys[k].String()
		}
	}
	return v
}

// thinAir reports a read that no reachable state allows.
func thinAir[S comparable](p *problem[S], i int32) *checker.Violation {
	return &checker.Violation{Ops: []int{p.c.Pos[i]}, Pattern: "thin-air-read", Op: p.c.Pos[i]}
}
