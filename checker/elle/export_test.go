package elle

import (
	"context"
	"slices"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// VersionOrders runs the rw-register inference on h under o and returns
// each key's inferred version pairs ("1<2"), sorted, leaving out those
// from the initial state (nil before a version), with the cases found.
func VersionOrders(h *history.History, o Options) (map[string][]string, []Case, error) {
	txns, err := txn.FromHistory(h)
	if err != nil {
		return nil, nil, err
	}
	a, err := inferRegisters(txns, h, o)
	if err != nil {
		return nil, nil, err
	}
	out := map[string][]string{}
	for k, vo := range a.versions {
		for _, p := range vo.pairs {
			if !p.v.IsNil() {
				out[k.String()] = append(out[k.String()], p.v.String()+"<"+p.next.String())
			}
		}
		slices.Sort(out[k.String()])
	}
	return out, a.cases, nil
}

// FracturedBoth returns the fractured reads of a list-append history as
// the inference finds them and as the reference search does, or the
// inference's error.
func FracturedBoth(h *history.History) (got, want []Case, err error) {
	txns, err := txn.FromHistory(h)
	if err != nil {
		return nil, nil, err
	}
	_, a, err := inferAppends(txns)
	if err != nil {
		return nil, nil, err
	}
	return a.fracturedReads(), fracturedAppendsReference(txns), nil
}

// ReadIndexes indexes the reads of h's transactions in one part and in
// parts parts, and returns each index's reads by key and cases, for the
// two to be compared.
func ReadIndexes(h *history.History, parts int) (one, split []any, err error) {
	txns, err := txn.FromHistory(h)
	if err != nil {
		return nil, nil, err
	}
	index := func(n int) []any {
		a := &appendAnalysis{txns: txns}
		a.indexKeys()
		a.indexReadsIn(n)
		return []any{a.reads, a.cases}
	}
	return index(1), index(parts), nil
}

// FrozenInParts analyzes h and freezes its graph again in one part and
// in parts parts, and returns each adjacency (offsets, targets, kinds),
// for the two to be compared.
func FrozenInParts(h *history.History, w Workload, parts int) (one, split []any, err error) {
	a, err := Analyze(context.Background(), h, w, 0)
	if err != nil {
		return nil, nil, err
	}
	g := a.Graph
	freeze := func(n int) []any {
		g.frozen = false
		g.freezeIn(n)
		return []any{slices.Clone(g.offs), slices.Clone(g.arcs.to), slices.Clone(g.arcs.types)}
	}
	return freeze(1), freeze(parts), nil
}
