package elle

import "slices"

// When a cycle search gives up, strongly connected components still
// decide most levels, as Elle's cycle-exists cases do: a component of two
// or more transactions in the subgraph of some dependency kinds holds a
// cycle of those kinds, whose class is one that subgraph can hold; a
// subgraph without one holds no cycle of those classes at all. A level
// that rules out every class a component's cycle may have is violated,
// although the search could not say by which class; a component of ww
// and rw dependencies alone proves no G-single, since its cycles may have
// two rw dependencies or more.

// CycleExists is what one subgraph of the dependency graph shows.
type CycleExists struct {
	// Kinds are the dependency kinds of the subgraph; Nonadjacent says
	// that its cycles never take two rw dependencies in a row (the kinds
	// besides rw must come between them).
	Kinds       EdgeType
	Nonadjacent bool
	// Classes are the anomalies a cycle of the subgraph can show, as
	// classify names them.
	Classes []string
	// Size is the number of transactions of the subgraph's smallest
	// strongly connected component of two or more (0: the subgraph has no
	// cycle). Txns are some of them, at most maxComponentTxns, in
	// history order.
	Size int
	Txns []int
}

// maxComponentTxns bounds the transactions of a component a fact names:
// components can hold the whole history.
const maxComponentTxns = 16

// subgraphs are the subgraphs whose components are examined, weakest
// first: ww, ww and wr, those with nonadjacent rw, and every data
// dependency, each alone and with process order and with process and
// real-time order.
func subgraphs() []CycleExists {
	var out []CycleExists
	for _, v := range variants {
		for shape := range 4 {
			f := CycleExists{Kinds: [...]EdgeType{WW, WW | WR, Data, Data}[shape] | v.extra, Nonadjacent: shape == 2}
			for c := classG0; c <= classG2; c++ {
				if shapeHolds(shape, c) {
					for _, w := range variants {
						if w.extra&^v.extra == 0 {
							f.Classes = append(f.Classes, classNames[c]+w.suffix)
						}
					}
				}
			}
			out = append(out, f)
		}
	}
	return out
}

// shapeHolds reports whether cycles of class c can lie in the subgraph of
// the given shape (0: ww; 1: ww, wr; 2: nonadjacent rw; 3: data).
func shapeHolds(shape int, c class) bool {
	switch c {
	case classG0:
		return true
	case classG1c:
		return shape >= 1
	case classGSingle, classGNonadjacent:
		return shape >= 2
	}
	return shape >= 3
}

// cycleExists examines every subgraph.
func (s *searcher) cycleExists() []CycleExists {
	fs := subgraphs()
	for i := range fs {
		if fs[i].Nonadjacent {
			fs[i].Size, fs[i].Txns = smallestComponent(nonadjacentComponents(s.g, fs[i].Kinds), 2)
		} else {
			fs[i].Size, fs[i].Txns = smallestComponent(s.components(fs[i].Kinds), 1)
		}
	}
	return fs
}

// smallestComponent returns the number of transactions of the smallest
// component in comp (0: none) and its first transactions. comp numbers
// per nodes for each transaction, node i standing for transaction i/per.
func smallestComponent(comp []int32, per int) (int, []int) {
	sizes := map[int32]int{}
	last := map[int32]int{}
	for i, c := range comp {
		if c >= 0 && last[c] != i/per+1 {
			sizes[c]++
			last[c] = i/per + 1
		}
	}
	best, size := int32(-1), 0
	for c, n := range sizes {
		if best < 0 || n < size || n == size && c < best {
			best, size = c, n
		}
	}
	var txns []int
	for i, c := range comp {
		t := i / per
		if c == best && best >= 0 && len(txns) < maxComponentTxns && (len(txns) == 0 || txns[len(txns)-1] != t) {
			txns = append(txns, t)
		}
	}
	return size, txns
}

// nonadjacentComponents returns the component (-1: none) of each half of
// each transaction (2t and 2t+1) in the subgraph of kinds whose cycles
// take no two rw dependencies in a row. Each transaction is split in
// two, reached by rw (2t+1) or not (2t), so that an rw dependency may
// only leave the first half: a cycle of the split graph is a closed walk
// without adjacent rw dependencies, which always holds a simple cycle
// without them (where a walk comes back to a transaction, one of the two
// loops it splits into keeps the property).
func nonadjacentComponents(g *Graph, kinds EdgeType) []int32 {
	g.freeze()
	n := g.Len()
	other := kinds &^ RW
	split := &Graph{n: 2 * n, frozen: true, offs: make([]int32, 2*n+1)}
	for u := range n {
		for half := range 2 {
			out := g.out(u)
			for i, to := range out.to {
				if t := out.types[i]; t&other != 0 {
					split.arcs.to = append(split.arcs.to, 2*to)
					split.arcs.types = append(split.arcs.types, t&other)
				}
				if half == 0 && out.types[i]&kinds&RW != 0 {
					split.arcs.to = append(split.arcs.to, 2*to+1)
					split.arcs.types = append(split.arcs.types, RW)
				}
			}
			split.offs[2*u+half+1] = int32(len(split.arcs.to))
		}
	}
	comp, _ := tarjan(split, kinds)
	return comp
}

// decided settles the classes in open (unsearched, and ruled out by a
// level that prohibits prohibited) from the subgraphs' components: a
// class no subgraph with a cycle can hold is absent; a component whose
// every possible class is ruled out proves a violation. It returns the
// classes still open and the fact that proves a violation, if any.
func decided(facts []CycleExists, prohibited, open []string) ([]string, *CycleExists) {
	absent := absentClasses(facts)
	open = slices.DeleteFunc(slices.Clone(open), func(c string) bool { return absent[c] })
	if len(open) == 0 {
		return nil, nil
	}
	for i, f := range facts {
		if f.Size == 0 {
			continue
		}
		ruledOut := true
		for _, c := range f.Classes {
			if !absent[c] && !instanceOf(c, prohibited) {
				ruledOut = false
				break
			}
		}
		if ruledOut {
			return open, &facts[i]
		}
	}
	return open, nil
}

// absentClasses are the classes of cycle that no subgraph with a cycle
// can hold: the history has none of them.
func absentClasses(facts []CycleExists) map[string]bool {
	absent := map[string]bool{}
	for _, f := range facts {
		if f.Size == 0 {
			for _, c := range f.Classes {
				absent[c] = true
			}
		}
	}
	return absent
}
