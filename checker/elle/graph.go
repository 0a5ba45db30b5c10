package elle

import (
	"sort"

	"github.com/histcheck/histcheck/history"
)

// EdgeType is a set of dependency kinds between two transactions, one bit
// each.
type EdgeType uint8

// The dependency kinds, after Adya: ww (T2 overwrote a version T1
// wrote), wr (T2 read a version T1 wrote), rw (T1 read a version that T2
// overwrote); and the orders a history adds: process (one process ran T1,
// then T2) and realtime (T1 completed before T2 began).
const (
	WW EdgeType = 1 << iota
	WR
	RW
	Process
	Realtime

	// Data are the dependencies read from the values.
	Data = WW | WR | RW
)

// Name is the kind as Elle writes it: ww, wr, rw, process, realtime.
func (t EdgeType) Name() string {
	switch t {
	case WW:
		return "ww"
	case WR:
		return "wr"
	case RW:
		return "rw"
	case Process:
		return "process"
	case Realtime:
		return "realtime"
	}
	return "mixed"
}

// Why is the evidence for one dependency of one kind.
type Why struct {
	Type EdgeType
	Key  history.Value
	// Value is what the first transaction wrote (ww, wr) or what the
	// second read (rw; None for the initial state); Next is what
	// overwrote it (ww, rw).
	Value, Next history.Value
	// Appends says the values are list elements appended, not register
	// values written.
	Appends bool
}

// arcs are some of a graph's arcs, in two arrays rather than one of
// pairs, which padding would make 8 bytes each rather than 5: arc i goes
// to to[i] and has the kinds types[i].
type arcs struct {
	to    []int32
	types []EdgeType
}

// pending is one dependency as added, before the graph is frozen: 12
// bytes, for the millions of a long history. Its evidence is found by
// its place (see Graph.whys).
type pending struct {
	a, b int32
	t    EdgeType
}

// Graph is the dependency graph over a history's transactions (numbered as
// in the slice of txn.Txn it was built from). Dependencies are collected
// as they are found and frozen, on first use, into one adjacency array:
// each transaction's arcs in the order their first dependency was added,
// so that searches meet them in that order. A map from pairs of
// transactions would cost more than everything else together on large
// histories.
type Graph struct {
	n        int
	pend     []pending
	evidence []Why
	// whys[i] indexes evidence for pend[i] (-1: a process or realtime
	// edge, which carries no evidence beyond its kind).
	whys []int32
	// refs is evidence kept by reference (list-append's), which resolve
	// turns into a Why: refs[i] is pend[i]'s, and whys is unused.
	refs    []whyRef
	resolve func(EdgeType, whyRef) Why
	// tail are dependencies merged from another graph, after pend.
	tail []pending
	// The real-time order, after tail, is kept by source: the
	// transactions a precedes are rtTo[rtOffs[a]:rtOffs[a+1]], in the
	// order they were added (nil rtOffs: none). It is most of a long
	// history's dependencies, and carries no evidence: 4 bytes an edge
	// rather than a pending's 16, and grouped by source already.
	rtOffs, rtTo []int32
	// After freezing: the arcs of transaction a are those of arcs from
	// offs[a] to offs[a+1].
	frozen bool
	offs   []int32
	arcs   arcs
	// why keeps the first evidence for each data dependency and kind,
	// built on the first call of Why: only explanations need it.
	why map[whyKey]int32
}

type whyKey struct {
	a, b int32
	t    EdgeType
}

func newGraph(n int) *Graph {
	// A few dependencies per transaction are the rule; room for them
	// up front spares copying them as they grow.
	return &Graph{n: n, pend: make([]pending, 0, 4*n), whys: make([]int32, 0, 4*n), evidence: make([]Why, 0, 2*n)}
}

// add records a dependency a -> b; self-dependencies are dropped (they are
// the internal anomalies' business).
func (g *Graph) add(a, b int, w Why) {
	if a == b || a < 0 || b < 0 {
		return
	}
	why := int32(-1)
	if w.Type&Data != 0 {
		why = int32(len(g.evidence))
		g.evidence = append(g.evidence, w)
	}
	g.pend = append(g.pend, pending{a: int32(a), b: int32(b), t: w.Type})
	g.whys = append(g.whys, why)
	g.frozen = false
}

// whyRef is the evidence of a dependency by reference, for a resolver
// that knows the values: a key by its id and two values by numbers that
// only the resolver reads (-1: none). Without pointers, millions of them
// cost the garbage collector nothing.
type whyRef struct {
	key, value, next int32
}

// addRef records a dependency a -> b of kind t whose evidence is kept by
// reference.
func (g *Graph) addRef(a, b int, t EdgeType, w whyRef) {
	if a == b || a < 0 || b < 0 {
		return
	}
	g.pend = append(g.pend, pending{a: int32(a), b: int32(b), t: t})
	g.refs = append(g.refs, w)
	g.frozen = false
}

// merge adds o's dependencies after g's; o carries no evidence (process
// and real-time order).
func (g *Graph) merge(o *Graph) {
	if g.tail == nil {
		g.tail = o.pend // o is not used again: no copy
	} else {
		g.tail = append(g.tail, o.pend...)
	}
	g.mergeRealtime(o)
	g.frozen = false
}

// mergeRealtime adds o's real-time order after g's: each source's
// targets after those it has.
func (g *Graph) mergeRealtime(o *Graph) {
	switch {
	case o.rtOffs == nil:
		return
	case g.rtOffs == nil:
		g.rtOffs, g.rtTo = o.rtOffs, o.rtTo // o is not used again: no copy
		return
	}
	offs := make([]int32, g.n+1)
	to := make([]int32, 0, len(g.rtTo)+len(o.rtTo))
	for a := 0; a < g.n; a++ {
		to = append(to, g.rtTo[g.rtOffs[a]:g.rtOffs[a+1]]...)
		to = append(to, o.rtTo[o.rtOffs[a]:o.rtOffs[a+1]]...)
		offs[a+1] = int32(len(to))
	}
	g.rtOffs, g.rtTo = offs, to
}

// absorb adds o's dependencies and their evidence after g's, in o's
// order. Both keep their evidence the same way: as Why, or by reference.
func (g *Graph) absorb(o *Graph) {
	if len(o.refs) == 0 {
		off := int32(len(g.evidence))
		for _, w := range o.whys {
			if w >= 0 {
				w += off
			}
			g.whys = append(g.whys, w)
		}
	}
	g.evidence = append(g.evidence, o.evidence...)
	g.refs = append(g.refs, o.refs...)
	g.pend = append(g.pend, o.pend...)
	g.frozen = false
}

// whyAt is the index of pend[i]'s evidence, in refs or evidence (-1:
// none).
func (g *Graph) whyAt(i int) int32 {
	switch {
	case i < len(g.whys):
		return g.whys[i]
	case i < len(g.refs):
		return int32(i)
	}
	return -1
}

// pendingAt returns the i-th dependency added: pend, then tail.
func (g *Graph) pendingAt(i int32) pending {
	if int(i) < len(g.pend) {
		return g.pend[i]
	}
	return g.tail[int(i)-len(g.pend)]
}

// freeze builds the adjacency from the pending dependencies: it groups
// them by source, stably, and merges those between one pair into one arc,
// keeping the first evidence of each kind. A source's real-time order
// comes after its other dependencies, as it was added after them.
func (g *Graph) freeze() { g.freezeIn(0) }

// freezeIn is freeze, merging the sources' arcs in the given number of
// parts (0: one per worker for a graph of a million arcs or more, else
// one).
func (g *Graph) freezeIn(parts int) {
	if g.frozen {
		return
	}
	g.frozen = true
	g.offs = make([]int32, g.n+1)
	total := len(g.pend) + len(g.tail)
	for _, p := range g.pend {
		g.offs[p.a+1]++
	}
	for _, p := range g.tail {
		g.offs[p.a+1]++
	}
	for i := 0; i < g.n; i++ {
		g.offs[i+1] += g.offs[i]
	}
	byFrom := make([]int32, total)
	fill := append([]int32(nil), g.offs[:g.n]...)
	for i := int32(0); i < int32(total); i++ {
		a := g.pendingAt(i).a
		byFrom[fill[a]] = i
		fill[a]++
	}
	g.why = nil
	if parts <= 0 {
		parts = 1
		if len(byFrom)+len(g.rtTo) >= 1<<20 {
			parts = workers
		}
	}
	g.merged(byFrom, parts)
}

// merged merges the arcs of each source (its pending dependencies, by
// byFrom, then its real-time order) into g.arcs and sets g.offs to where
// each source's begin; g.offs holds, until then, where each source's
// pending dependencies begin in byFrom. The sources are merged in parts
// (a large graph's one per worker), each into the place its arcs would
// take unmerged, and the parts are then moved together.
func (g *Graph) merged(byFrom []int32, parts int) {
	size := len(byFrom) + len(g.rtTo)
	// before(a) is how many arcs precede source a's, unmerged.
	before := func(a int) int {
		n := int(g.offs[a])
		if g.rtOffs != nil {
			n += int(g.rtOffs[a])
		}
		return n
	}
	bounds := make([]int, parts+1)
	for p := 1; p < parts; p++ {
		bounds[p] = sort.Search(g.n, func(a int) bool { return before(a) >= p*size/parts })
	}
	bounds[parts] = g.n
	to, types := make([]int32, size), make([]EdgeType, size)
	offs := make([]int32, g.n+1)
	ends := make([]int, parts)
	parallel(parts, func(p int) {
		// at[b] is the position of arc a -> b while a's arcs are
		// merged, valid when mark[b] == a+1.
		at := make([]int32, g.n)
		mark := make([]int32, g.n)
		w := before(bounds[p])
		add := func(a, b int32, t EdgeType) {
			if mark[b] != a+1 {
				mark[b], at[b] = a+1, int32(w)
				to[w] = b
				w++
			}
			types[at[b]] |= t
		}
		for a := int32(bounds[p]); a < int32(bounds[p+1]); a++ {
			offs[a] = int32(w)
			for _, pi := range byFrom[g.offs[a]:g.offs[a+1]] {
				d := g.pendingAt(pi)
				add(a, d.b, d.t)
			}
			if g.rtOffs != nil {
				for _, b := range g.rtTo[g.rtOffs[a]:g.rtOffs[a+1]] {
					add(a, b, Realtime)
				}
			}
		}
		ends[p] = w
	})
	// Each part moves down to follow the one before it.
	n := 0
	for p := range parts {
		from := before(bounds[p])
		copy(to[n:], to[from:ends[p]])
		copy(types[n:], types[from:ends[p]])
		for a := bounds[p]; a < bounds[p+1]; a++ {
			offs[a] -= int32(from - n)
		}
		n += ends[p] - from
	}
	offs[g.n] = int32(n)
	g.offs = offs
	g.arcs = arcs{to: to[:n:n], types: types[:n:n]}
}

// out returns the arcs from transaction a.
func (g *Graph) out(a int) arcs {
	lo, hi := g.offs[a], g.offs[a+1]
	return arcs{to: g.arcs.to[lo:hi:hi], types: g.arcs.types[lo:hi:hi]}
}

// Types returns the kinds of dependency a -> b (0: none).
func (g *Graph) Types(a, b int) EdgeType {
	g.freeze()
	out := g.out(a)
	for i, to := range out.to {
		if int(to) == b {
			return out.types[i]
		}
	}
	return 0
}

// Why returns the evidence for dependency a -> b of kind t.
func (g *Graph) Why(a, b int, t EdgeType) (Why, bool) {
	g.freeze()
	if t&Data == 0 {
		return Why{Type: t}, g.Types(a, b)&t != 0
	}
	if g.why == nil {
		g.why = map[whyKey]int32{}
		for i, p := range g.pend {
			k := whyKey(p)
			if _, seen := g.why[k]; !seen {
				if w := g.whyAt(i); w >= 0 {
					g.why[k] = w
				}
			}
		}
	}
	i, ok := g.why[whyKey{int32(a), int32(b), t}]
	if !ok {
		return Why{}, false
	}
	if g.resolve != nil {
		return g.resolve(t, g.refs[i]), true
	}
	return g.evidence[i], true
}

// Len is the number of transactions.
func (g *Graph) Len() int { return g.n }
