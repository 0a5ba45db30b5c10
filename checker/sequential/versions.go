package sequential

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/model"
)

// MethodVersions is the Method of a verdict decided from versions.
const MethodVersions = "versions"

// Edge kinds of the version graph, for the explanation.
const (
	vePO   uint8 = iota // program order
	veVO                // version order of two writes of a key
	veRF                // a write before the read of its version
	veNext              // a read before the write that replaces what it read
)

// byVersions decides sequential consistency of a history whose reads and
// writes carry versions (the model says so through model.VersionOrder):
// the versions fix the order of each key's writes and the write each read
// read, so a sequential order exists exactly when program order, the
// version order, each write before its reads, and each read before the
// write that replaces what it read, together have no cycle; a topological
// order is then a witness. Reads that observe nothing (of unknown outcome,
// or nil under NilIsAny) only keep their place in their process. The
// writes of unknown outcome still here are read by someone (the model's
// Pruner dropped the others), so they took effect. It reports false when
// the history has operations of other kinds.
func byVersions[S comparable](ctx context.Context, p *problem[S]) (checker.Result, bool) {
	vo, ok := any(p.m).(model.VersionOrder)
	rw, ok2 := any(p.m).(model.ReadWriteRegister)
	if !ok || !ok2 {
		return checker.Result{}, false
	}
	ops := p.c.Ops
	n := len(ops)
	kinds := make([]model.VersionKind, n)
	ranks := make([]int64, n)
	type keyRank struct {
		key  int32
		rank int64
	}
	writer := make(map[keyRank]int32)
	writes := make(map[int32][]int32)
	versioned := false
	for i := range ops {
		k, r := vo.Versioned(&ops[i])
		kinds[i], ranks[i] = k, r
		switch k {
		case model.NotVersioned:
			if rw.Class(&ops[i]) != model.AnyReadOp {
				return checker.Result{}, false
			}
		case model.VersionedWrite:
			versioned = true
			writer[keyRank{p.keyOf[i], r}] = int32(i)
			writes[p.keyOf[i]] = append(writes[p.keyOf[i]], int32(i))
		case model.VersionedRead:
			versioned = true
			if r < 0 {
				v := thinAir(p, int32(i))
				v.Explanation = fmt.Sprintf("%s returned a value that neither the write of its version wrote nor, if no write has that version, is the initial value, so no order can make it legal", p.label(int32(i)))
				return checker.Result{Valid: checker.False, Method: MethodVersions, Violations: []checker.Violation{*v}}, true
			}
		}
	}
	if !versioned {
		return checker.Result{}, false
	}
	g := &vgraph{succ: make([][]int32, n), why: make(map[[2]int32]uint8)}
	for _, proc := range p.procs {
		for j := 1; j < len(proc); j++ {
			g.add(proc[j-1], proc[j], vePO)
		}
	}
	next := make(map[int32]int32) // write -> the next write of its key
	first := make(map[int32]int32)
	for k, ws := range writes {
		sort.Slice(ws, func(a, b int) bool { return ranks[ws[a]] < ranks[ws[b]] })
		first[k] = ws[0]
		for j := 1; j < len(ws); j++ {
			g.add(ws[j-1], ws[j], veVO)
			next[ws[j-1]] = ws[j]
		}
	}
	for i := range ops {
		if kinds[i] != model.VersionedRead {
			continue
		}
		rd, k := int32(i), p.keyOf[i]
		if ranks[i] == 0 {
			if w, ok := first[k]; ok {
				g.add(rd, w, veNext)
			}
			continue
		}
		w, ok := writer[keyRank{k, ranks[i]}]
		if !ok {
			return checker.Result{}, false // its write was left out: let the search decide
		}
		g.add(w, rd, veRF)
		if nx, ok := next[w]; ok {
			g.add(rd, nx, veNext)
		}
	}
	order, rest := g.topo(n)
	if rest == nil {
		res := checker.Result{Valid: checker.True, Method: MethodVersions,
			Reason: "the versions fix the order of the writes and what each read read, and these orders have no cycle"}
		for _, i := range order {
			if ops[i].Unknown && kinds[i] != model.VersionedWrite {
				res.Dropped = append(res.Dropped, p.c.Pos[i])
				continue
			}
			res.Witness = append(res.Witness, p.c.Pos[i])
		}
		return res, true
	}
	if ctx.Err() != nil {
		return checker.Result{}, false
	}
	return checker.Result{Valid: checker.False, Method: MethodVersions,
		Violations: []checker.Violation{versionCycle(p, g, g.cycle(rest))}}, true
}

// vgraph is a graph over compiled operations with one reason per edge.
type vgraph struct {
	succ [][]int32
	why  map[[2]int32]uint8
}

func (g *vgraph) add(a, b int32, kind uint8) {
	if _, ok := g.why[[2]int32{a, b}]; ok || a == b {
		return
	}
	g.why[[2]int32{a, b}] = kind
	g.succ[a] = append(g.succ[a], b)
}

// topo returns a topological order, or the nodes left on or after cycles.
func (g *vgraph) topo(n int) (order, rest []int32) {
	indeg := make([]int32, n)
	for _, ss := range g.succ {
		for _, b := range ss {
			indeg[b]++
		}
	}
	for i := 0; i < n; i++ {
		if indeg[i] == 0 {
			order = append(order, int32(i))
		}
	}
	for j := 0; j < len(order); j++ {
		for _, b := range g.succ[order[j]] {
			if indeg[b]--; indeg[b] == 0 {
				order = append(order, b)
			}
		}
	}
	if len(order) == n {
		return order, nil
	}
	for i := 0; i < n; i++ {
		if indeg[i] > 0 {
			rest = append(rest, int32(i))
		}
	}
	return nil, rest
}

// cycle returns a cycle among rest (every node of rest lies on or after a
// cycle, so walking back along predecessors within rest must repeat).
func (g *vgraph) cycle(rest []int32) []int32 {
	in := make(map[int32]bool, len(rest))
	for _, v := range rest {
		in[v] = true
	}
	pred := make(map[int32]int32, len(rest))
	for _, a := range rest {
		for _, b := range g.succ[a] {
			if in[b] {
				pred[b] = a
			}
		}
	}
	seen := make(map[int32]int)
	v := rest[0]
	var walk []int32
	for {
		if at, ok := seen[v]; ok {
			cyc := walk[at:]
			for i, j := 0, len(cyc)-1; i < j; i, j = i+1, j-1 {
				cyc[i], cyc[j] = cyc[j], cyc[i]
			}
			return cyc
		}
		seen[v] = len(walk)
		walk = append(walk, v)
		v = pred[v]
	}
}

// versionCycle explains a cycle of the version graph, one clause per edge.
func versionCycle[S comparable](p *problem[S], g *vgraph, cyc []int32) checker.Violation {
	var parts []string
	var pos []int
	for i, a := range cyc {
		b := cyc[(i+1)%len(cyc)]
		pos = append(pos, p.c.Pos[a])
		la, lb := p.label(a), p.label(b)
		switch g.why[[2]int32{a, b}] {
		case vePO:
			parts = append(parts, fmt.Sprintf("%s precedes %s in its process", la, lb))
		case veVO:
			parts = append(parts, fmt.Sprintf("%s has an older version than %s", la, lb))
		case veRF:
			parts = append(parts, fmt.Sprintf("%s read the version %s wrote", lb, la))
		case veNext:
			parts = append(parts, fmt.Sprintf("%s read a version that %s replaces", la, lb))
		}
	}
	sort.Ints(pos)
	return checker.Violation{Ops: pos, Pattern: "version-cycle",
		Explanation: "no order of the operations keeps the versions and each process's order: " +
			strings.Join(parts, "; ") + fmt.Sprintf("; so %s would precede itself", p.label(cyc[0]))}
}
