package elle

import (
	"context"
	"math"
)

// Cycle is a cycle of dependencies: Txns[i] -> Txns[i+1] by Types[i], and
// the last back to the first.
type Cycle struct {
	// Name is the anomaly the cycle shows, as Elle spells it (G0, G1c,
	// G-single-item, G-nonadjacent-item, G2-item, each possibly with
	// -process or -realtime).
	Name  string
	Txns  []int
	Types []EdgeType
}

// class is a shape of cycle searched for: which edges it may use besides
// the required one, and which kind the required edge has.
type class int

const (
	classG0 class = iota
	classG1c
	classGSingle
	classGNonadjacent
	classG2
)

var classNames = [...]string{"G0", "G1c", "G-single-item", "G-nonadjacent-item", "G2-item"}

// variants are the extra orders a search may use, weakest anomaly first:
// none, process order, and process and real-time order.
var variants = []struct {
	extra  EdgeType
	suffix string
}{{0, ""}, {Process, "-process"}, {Process | Realtime, "-realtime"}}

// searcher finds the smallest cycles of each class in a graph.
type searcher struct {
	g *Graph
	// comps caches, per edge mask, each transaction's strongly connected
	// component (-1 when it is alone).
	comps map[EdgeType][]int32
	// acyclic says the whole graph has no cycle.
	acyclic bool
	// budget bounds the nodes all searches may visit together; when it
	// runs out, or ctx is done, the cycles found so far are kept, and a
	// class whose existence only a search can show is reported as
	// unsearched. Both are checked inside each search, node by node, so
	// that one search in a huge component cannot outlast them.
	budget  int64
	ctx     context.Context
	stopped bool
	// BFS scratch, reused between searches.
	seen   []uint32
	stamp  uint32
	parent []int32
	via    []EdgeType
	// maxLen bounds the steps of the path a search looks for: once a
	// cycle is known, only a strictly shorter one can replace it, so
	// searches stop where they could find none. Unbounded searches could
	// be quadratic in a large component.
	maxLen int
	queue  []int32
}

func newSearcher(ctx context.Context, g *Graph, budget int64) *searcher {
	g.freeze()
	return &searcher{g: g, comps: map[EdgeType][]int32{}, budget: budget, ctx: ctx}
}

// scratch makes the searches' arrays on the first search: a valid
// history, settled by its components, needs none.
func (s *searcher) scratch() {
	if s.seen == nil {
		n := 4 * s.g.Len()
		s.seen, s.parent, s.via = make([]uint32, n), make([]int32, n), make([]EdgeType, n)
	}
}

// components returns each transaction's strongly connected component in
// the graph of the edges of a kind in mask (-1 for one that is alone).
// The components of the whole graph come first: when it has none, no
// subgraph has any either, which settles a valid history at once.
func (s *searcher) components(mask EdgeType) []int32 {
	if c, ok := s.comps[mask]; ok {
		return c
	}
	all := Data | Process | Realtime
	if mask != all {
		if whole := s.components(all); s.acyclic {
			s.comps[mask] = whole
			return whole
		}
	}
	comp, any := tarjan(s.g, mask)
	if mask == all && !any {
		s.acyclic = true
	}
	s.comps[mask] = comp
	return comp
}

// compCycle is the smallest cycle of one class found in one strongly
// connected component of its variant's graph (top is its number there).
type compCycle struct {
	top int32
	cyc Cycle
}

// find searches each strongly connected component of the graph of the
// dependencies and the extra orders in extra (the graph Elle builds when
// the levels asked rule out that variant) for the smallest cycle of class
// c, as Elle searches each component for each class: two cycles that
// only the process or real-time order would join are two components'
// cycles for a class that does not use that order. skip says which components
// need no search (an anomaly found there already implies the class). It
// returns the cycles found, in the order of their components' first
// transactions, and complete = false when the budget ran out before the
// question was settled (a cycle found settles the class).
func (s *searcher) find(c class, extra EdgeType, skip func(top int32) bool) (out []compCycle, complete bool) {
	required, allowed, scc := s.shape(c, extra)
	comp := s.components(scc)
	top := s.components(Data | extra)
	at := map[int32]int{} // component -> its place in out
	settled := map[int32]bool{}
	for a := 0; a < s.g.Len(); a++ {
		t := top[a]
		if comp[a] < 0 || settled[t] {
			continue
		}
		if skip(t) {
			settled[t] = true
			continue
		}
		edges := s.g.out(a)
		for j, to := range edges.to {
			b := int(to)
			if edges.types[j]&required == 0 || comp[b] != comp[a] {
				continue
			}
			if s.spent() {
				return out, len(out) > 0
			}
			i, have := at[t]
			s.maxLen = math.MaxInt
			if have {
				s.maxLen = len(out[i].cyc.Txns) - 2
			}
			var path []int
			var types []EdgeType
			if c == classGNonadjacent {
				path, types = s.nonadjacentPath(b, a, allowed, comp)
			} else {
				path, types = s.path(b, a, allowed, comp)
			}
			if path == nil {
				if s.stopped {
					return out, len(out) > 0
				}
				continue
			}
			cyc := Cycle{Txns: append([]int{a, b}, path[:len(path)-1]...), Types: append([]EdgeType{required}, types...)}
			switch {
			case !have:
				at[t] = len(out)
				out = append(out, compCycle{top: t, cyc: cyc})
			case len(cyc.Txns) < len(out[i].cyc.Txns):
				out[i].cyc = cyc
			}
			if len(cyc.Txns) == 2 {
				settled[t] = true
				break
			}
		}
	}
	return out, true
}

// ctxEvery is how many nodes a search visits between looks at its
// context: often enough to stop within microseconds, rarely enough to
// cost nothing.
const ctxEvery = 1 << 10

// spend takes one node from the budget; it reports false, and marks the
// searcher stopped, when none is left or the context is done, which ends
// every search from then on.
func (s *searcher) spend() bool {
	if s.stopped {
		return false
	}
	if s.budget <= 0 || s.budget%ctxEvery == 0 && s.ctx != nil && s.ctx.Err() != nil {
		s.stopped = true
		return false
	}
	s.budget--
	return true
}

// spent reports whether the searches had to stop.
func (s *searcher) spent() bool { return s.stopped || s.budget <= 0 }

// shape gives a class's required edge kind, the kinds the rest of the
// cycle may use, and the mask whose components must hold the cycle.
func (s *searcher) shape(c class, extra EdgeType) (required, allowed, scc EdgeType) {
	switch c {
	case classG0:
		return WW, WW | extra, WW | extra
	case classG1c:
		return WR, WW | WR | extra, WW | WR | extra
	case classGSingle:
		// The rest avoids rw, so b and a share a component of ww, wr.
		return RW, WW | WR | extra, Data | extra
	case classGNonadjacent:
		return RW, Data | extra, Data | extra
	}
	return RW, Data | extra, Data | extra
}

// path is a shortest path from -> to along edges of the kinds in allowed
// inside one component: the nodes after from (ending with to) and the kind
// of each step (the first kind of each edge in the order ww, wr,
// process, realtime, rw, so that cycles use rw only when they must).
func (s *searcher) path(from, to int, allowed EdgeType, comp []int32) ([]int, []EdgeType) {
	s.scratch()
	s.stamp++
	s.queue = append(s.queue[:0], int32(from))
	s.seen[from] = s.stamp
	s.parent[from] = -1
	depth, levelEnd := 0, 1
	for qi := 0; qi < len(s.queue); qi++ {
		if qi == levelEnd {
			depth, levelEnd = depth+1, len(s.queue)
		}
		if depth >= s.maxLen {
			break
		}
		u := s.queue[qi]
		if !s.spend() {
			return nil, nil
		}
		out := s.g.out(int(u))
		for j, v := range out.to {
			t := pick(out.types[j] & allowed)
			if t == 0 || s.seen[v] == s.stamp || comp[v] != comp[from] {
				continue
			}
			s.seen[v], s.parent[v], s.via[v] = s.stamp, u, t
			if int(v) == to {
				return s.trace(from, to)
			}
			s.queue = append(s.queue, v)
		}
	}
	return nil, nil
}

func (s *searcher) trace(from, to int) ([]int, []EdgeType) {
	var nodes []int
	var types []EdgeType
	for v := int32(to); v != int32(from); v = s.parent[v] {
		nodes = append(nodes, int(v))
		types = append(types, s.via[v])
	}
	for i, j := 0, len(nodes)-1; i < j; i, j = i+1, j-1 {
		nodes[i], nodes[j] = nodes[j], nodes[i]
		types[i], types[j] = types[j], types[i]
	}
	return nodes, types
}

// pick chooses one kind of a set, data dependencies first and rw last.
func pick(t EdgeType) EdgeType {
	for _, k := range [...]EdgeType{WW, WR, Process, Realtime, RW} {
		if t&k != 0 {
			return k
		}
	}
	return 0
}

// nonadjacentPath is a shortest path from -> to that, following an rw edge
// into from, keeps rw edges apart and uses at least one more of them: a
// search over (node, last step was rw, seen a second rw). The path must
// reach to by an edge other than rw, since the cycle leaves to by rw.
func (s *searcher) nonadjacentPath(from, to int, allowed EdgeType, comp []int32) ([]int, []EdgeType) {
	s.scratch()
	state := func(v int32, lastRW, two bool) int32 {
		x := v * 4
		if lastRW {
			x++
		}
		if two {
			x += 2
		}
		return x
	}
	s.stamp++
	start := state(int32(from), true, false)
	goal := state(int32(to), false, true)
	s.queue = append(s.queue[:0], start)
	s.seen[start], s.parent[start] = s.stamp, -1
	depth, levelEnd := 0, 1
	for qi := 0; qi < len(s.queue); qi++ {
		if qi == levelEnd {
			depth, levelEnd = depth+1, len(s.queue)
		}
		if depth >= s.maxLen {
			break
		}
		x := s.queue[qi]
		u, lastRW, two := x/4, x%2 == 1, x&2 != 0
		if !s.spend() {
			return nil, nil
		}
		out := s.g.out(int(u))
		for j, v := range out.to {
			if comp[v] != comp[from] {
				continue
			}
			types := out.types[j]
			if other := pick(types & allowed &^ RW); other != 0 {
				if s.visit(state(v, false, two), x, other) == goal {
					return s.traceStates(start, goal)
				}
			}
			if types&allowed&RW != 0 && !lastRW {
				if s.visit(state(v, true, true), x, RW) == goal {
					return s.traceStates(start, goal)
				}
			}
		}
	}
	return nil, nil
}

// visit enqueues state y reached from x by kind t, unless seen; it returns
// y when newly reached, else -1.
func (s *searcher) visit(y, x int32, t EdgeType) int32 {
	if s.seen[y] == s.stamp {
		return -1
	}
	s.seen[y], s.parent[y], s.via[y] = s.stamp, x, t
	s.queue = append(s.queue, y)
	return y
}

func (s *searcher) traceStates(start, goal int32) ([]int, []EdgeType) {
	var nodes []int
	var types []EdgeType
	for y := goal; y != start; y = s.parent[y] {
		nodes = append(nodes, int(y/4))
		types = append(types, s.via[y])
	}
	for i, j := 0, len(nodes)-1; i < j; i, j = i+1, j-1 {
		nodes[i], nodes[j] = nodes[j], nodes[i]
		types[i], types[j] = types[j], types[i]
	}
	return nodes, types
}

// classify names the anomaly a cycle shows from the kinds of its edges.
func classify(types []EdgeType) string {
	var rw, wr int
	var any EdgeType
	adjacent := false
	for i, t := range types {
		any |= t
		switch t {
		case RW:
			rw++
			if types[(i+1)%len(types)] == RW {
				adjacent = true
			}
		case WR:
			wr++
		}
	}
	name := "G0"
	switch {
	case rw == 1:
		name = "G-single-item"
	case rw >= 2 && !adjacent:
		name = "G-nonadjacent-item"
	case rw >= 2:
		name = "G2-item"
	case wr > 0:
		name = "G1c"
	}
	switch {
	case any&Realtime != 0:
		name += "-realtime"
	case any&Process != 0:
		name += "-process"
	}
	return name
}
