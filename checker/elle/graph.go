package elle

import (
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

type arc struct {
	to    int32
	types EdgeType
}

// Graph is the dependency graph over a history's transactions (numbered as
// in the slice of txn.Txn it was built from).
type Graph struct {
	out [][]arc
	// index finds an arc by its two ends.
	index map[uint64]int32
	// why keeps the first evidence for each edge and kind.
	why map[whyKey]Why
}

type whyKey struct {
	a, b int32
	t    EdgeType
}

func newGraph(n int) *Graph {
	return &Graph{out: make([][]arc, n), index: map[uint64]int32{}, why: map[whyKey]Why{}}
}

func pairKey(a, b int) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// add records a dependency a -> b; self-dependencies are dropped (they are
// the internal anomalies' business).
func (g *Graph) add(a, b int, w Why) {
	if a == b || a < 0 || b < 0 {
		return
	}
	k := pairKey(a, b)
	i, ok := g.index[k]
	if !ok {
		i = int32(len(g.out[a]))
		g.index[k] = i
		g.out[a] = append(g.out[a], arc{to: int32(b)})
	}
	arcp := &g.out[a][i]
	if arcp.types&w.Type == 0 {
		arcp.types |= w.Type
		g.why[whyKey{int32(a), int32(b), w.Type}] = w
	}
}

// Types returns the kinds of dependency a -> b (0: none).
func (g *Graph) Types(a, b int) EdgeType {
	i, ok := g.index[pairKey(a, b)]
	if !ok {
		return 0
	}
	return g.out[a][i].types
}

// Why returns the evidence for dependency a -> b of kind t.
func (g *Graph) Why(a, b int, t EdgeType) (Why, bool) {
	w, ok := g.why[whyKey{int32(a), int32(b), t}]
	return w, ok
}

// Len is the number of transactions.
func (g *Graph) Len() int { return len(g.out) }
