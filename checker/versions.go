package checker

import (
	"fmt"
	"sort"

	"github.com/histcheck/histcheck/model"
)

// VersionDecision is the outcome of DecideByVersions.
type VersionDecision struct {
	Valid bool
	// Order, when Valid, is an order of the operations that took effect
	// (indices into the ops given), respecting the criterion's order.
	Order []int
	// Dropped, when Valid, lists the operations of unknown outcome left out
	// (reads that observed nothing).
	Dropped []int
	// Nowhere, when not Valid and not negative, is a read legal in no state:
	// what it returned is neither what the write of its version wrote nor,
	// when no write has its version, the initial value.
	Nowhere int
	// Cycle, when not Valid and Nowhere is negative, lists the operations
	// of a cycle of constraints, and Why the reason for each step from
	// Cycle[i] to Cycle[i+1] (and from the last to the first).
	Cycle []int
	Why   []string
	// Versions holds the version of each operation of Cycle that carries
	// one (nil for the others), for explanations.
	Versions []*int64
}

// Reasons of the steps of a version cycle.
const (
	WhyProcess  = "process order"   // the same process issued a first
	WhyRealTime = "real time"       // a returned before b was called
	WhyVersion  = "version order"   // a has an older version of the key
	WhyReadFrom = "reads-from"      // b read the version a wrote
	WhyReplaced = "read before new" // a read a version that b replaces
)

// DecideByVersions decides linearizability (ord RealTime) or sequential
// consistency (ord ProcessOrder) of compiled, finished operations whose
// model compiles versions (model.VersionOrder). Versions fix the order of
// each key's writes and the write each read read, so the operations have a
// legal order exactly when the criterion's order (real time, and each
// process's order), the version order, each write before its reads, and
// each read before the write that replaces what it read have no cycle; a
// topological order is then one. Reads that observe nothing (of unknown
// outcome, or nil under NilIsAny) keep only the criterion's order. The
// writes of unknown outcome among ops took effect: a read observed each
// (the model's Pruner dropped the others; without pruning an unobserved
// one is placed like the rest, which changes no verdict, as the Pruner's
// argument shows). keyOf gives each operation's key index (all zero for an
// object without keys).
//
// It reports false when some operation is neither a versioned read or
// write nor a read that observes nothing, or a read's write is missing.
func DecideByVersions(m any, ops []model.Op, keyOf []int32, ord Order) (VersionDecision, bool) {
	vo, ok := m.(model.VersionOrder)
	rw, ok2 := m.(model.ReadWriteRegister)
	if !ok || !ok2 {
		return VersionDecision{}, false
	}
	// The facts are made here, where they stay on the stack.
	f := versionFacts{kinds: make([]model.VersionKind, len(ops)), ranks: make([]int64, len(ops)), writer: make(map[keyRank]int)}
	nowhere, ok := f.read(vo, rw, ops, keyOf)
	switch {
	case !ok:
		return VersionDecision{}, false
	case nowhere >= 0:
		return VersionDecision{Nowhere: nowhere}, true
	}
	g := newVGraph(len(ops))
	g.process(ops)
	if ord == RealTime {
		g.realTime(ops)
	}
	if !f.constrain(g, keyOf) {
		return VersionDecision{}, false
	}
	order, rest := g.topo()
	if rest != nil {
		return f.cycle(g, rest, ops), true
	}
	d := VersionDecision{Valid: true, Nowhere: -1}
	for _, v := range order {
		if v >= len(ops) {
			continue // a point of time
		}
		if ops[v].Unknown && f.kinds[v] != model.VersionedWrite {
			d.Dropped = append(d.Dropped, v)
			continue
		}
		d.Order = append(d.Order, v)
	}
	return d, true
}

// versionFacts is what the operations' versions say: each operation's
// kind and version, and the write of each key's version.
type versionFacts struct {
	kinds  []model.VersionKind
	ranks  []int64
	writer map[keyRank]int
}

type keyRank struct {
	key  int32
	rank int64
}

// read gathers the versions of ops. It reports false when some operation
// is neither versioned nor a read that observes nothing, or none is
// versioned; nowhere is the first read legal in no state (its version is
// negative), or -1.
func (f *versionFacts) read(vo model.VersionOrder, rw model.ReadWriteRegister, ops []model.Op, keyOf []int32) (nowhere int, ok bool) {
	versioned := false
	for i := range ops {
		k, r := vo.Versioned(&ops[i])
		f.kinds[i], f.ranks[i] = k, r
		switch k {
		case model.NotVersioned:
			if rw.Class(&ops[i]) != model.AnyReadOp {
				return -1, false
			}
		case model.VersionedWrite:
			versioned = true
			f.writer[keyRank{keyOf[i], r}] = i
		case model.VersionedRead:
			versioned = true
			if r < 0 {
				return i, true
			}
		}
	}
	return -1, versioned
}

// constrain adds the versions' edges to g: each key's writes in version
// order, each read after the write it read and before the write that
// replaces it (a read of version 0, the initial value, before the key's
// first write). It reports false when a read's write is missing.
func (f *versionFacts) constrain(g *vgraph, keyOf []int32) bool {
	writes := make(map[int32][]int) // each key's writes
	var keys []int32                // in the order of their first write
	for i, kind := range f.kinds {
		if kind == model.VersionedWrite {
			if _, seen := writes[keyOf[i]]; !seen {
				keys = append(keys, keyOf[i])
			}
			writes[keyOf[i]] = append(writes[keyOf[i]], i)
		}
	}
	next := make(map[int]int)
	first := make(map[int32]int)
	for _, k := range keys {
		ws := writes[k]
		sort.Slice(ws, func(a, b int) bool { return f.ranks[ws[a]] < f.ranks[ws[b]] })
		first[k] = ws[0]
		for j := 1; j < len(ws); j++ {
			g.add(ws[j-1], ws[j], WhyVersion)
			next[ws[j-1]] = ws[j]
		}
	}
	for i, kind := range f.kinds {
		if kind != model.VersionedRead {
			continue
		}
		k := keyOf[i]
		if f.ranks[i] == 0 {
			if w, ok := first[k]; ok {
				g.add(i, w, WhyReplaced)
			}
			continue
		}
		w, ok := f.writer[keyRank{k, f.ranks[i]}]
		if !ok {
			return false
		}
		g.add(w, i, WhyReadFrom)
		if nx, ok := next[w]; ok {
			g.add(i, nx, WhyReplaced)
		}
	}
	return true
}

// cycle is the decision when the constraints left the operations rest
// unordered: one of their cycles, with each versioned operation's version.
func (f *versionFacts) cycle(g *vgraph, rest []int, ops []model.Op) VersionDecision {
	cyc, why := g.cycle(rest)
	d := VersionDecision{Nowhere: -1, Cycle: cyc, Why: why, Versions: make([]*int64, len(cyc))}
	for j, i := range cyc {
		if f.kinds[i] != model.NotVersioned {
			v := ops[i].C
			d.Versions[j] = &v
		}
	}
	return d
}

// ExplainVersionCycle renders a VersionDecision's cycle in one sentence,
// naming operations with label and, when they carry one, their versions.
func ExplainVersionCycle(d VersionDecision, label func(int) string) string {
	name := func(j int) string {
		if d.Versions[j] == nil {
			return label(d.Cycle[j])
		}
		return fmt.Sprintf("%s (version %d)", label(d.Cycle[j]), *d.Versions[j])
	}
	s := ""
	for i := range d.Cycle {
		j := (i + 1) % len(d.Cycle)
		if i > 0 {
			s += "; "
		}
		la, lb := name(i), name(j)
		switch d.Why[i] {
		case WhyProcess:
			s += fmt.Sprintf("%s precedes %s in its process", la, lb)
		case WhyRealTime:
			s += fmt.Sprintf("%s returned before %s was called", la, lb)
		case WhyVersion:
			s += fmt.Sprintf("%s is older than %s", la, lb)
		case WhyReadFrom:
			s += fmt.Sprintf("%s read what %s wrote", lb, la)
		case WhyReplaced:
			s += fmt.Sprintf("%s read a version that %s replaces", la, lb)
		}
	}
	return s + fmt.Sprintf("; so %s would precede itself", name(0))
}

// NowhereText explains a VersionDecision's read that is legal nowhere.
func NowhereText(label string, version int64) string {
	return fmt.Sprintf("%s carries version %d but returned neither the value the write of that version wrote nor, when no write has it, the initial value, so no order can make it legal",
		label, version)
}

// vgraph is a graph over operations (nodes below n) and points of time
// (nodes from n, for real time), with one reason per edge between
// operations.
type vgraph struct {
	n    int
	succ [][]int
	why  map[[2]int]string
}

func newVGraph(n int) *vgraph {
	return &vgraph{n: n, succ: make([][]int, n), why: make(map[[2]int]string)}
}

func (g *vgraph) add(a, b int, why string) {
	if _, ok := g.why[[2]int{a, b}]; ok || a == b {
		return
	}
	g.why[[2]int{a, b}] = why
	g.succ[a] = append(g.succ[a], b)
}

// point adds a node standing for a point of time.
func (g *vgraph) point() int {
	g.succ = append(g.succ, nil)
	return len(g.succ) - 1
}

// process adds each process's order: ops are in the history's order, in
// which each process's operations are in the order the process issued
// them, whatever their times say.
func (g *vgraph) process(ops []model.Op) {
	last := make(map[int32]int)
	for i := range ops {
		if j, ok := last[ops[i].Proc]; ok {
			g.add(j, i, WhyProcess)
		}
		last[ops[i].Proc] = i
	}
}

// realTime adds real-time order in linear size: the calls and returns,
// sorted by time (calls first at equal times, since intervals that touch
// overlap), become a chain of points; an operation leads to the point of
// its return and is led to from the point of its call, so a reaches b
// through the chain exactly when a returned before b was called.
func (g *vgraph) realTime(ops []model.Op) {
	type event struct {
		t   int64
		ret bool
		op  int
	}
	var evs []event
	for i := range ops {
		evs = append(evs, event{ops[i].Call, false, i})
		if !ops[i].Unknown {
			evs = append(evs, event{ops[i].Return, true, i})
		}
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return !evs[a].ret && evs[b].ret
	})
	prev := -1
	for _, e := range evs {
		pt := g.point()
		if prev >= 0 {
			g.succ[prev] = append(g.succ[prev], pt)
		}
		prev = pt
		if e.ret {
			g.succ[e.op] = append(g.succ[e.op], pt)
		} else {
			g.succ[pt] = append(g.succ[pt], e.op)
		}
	}
}

// topo returns a topological order, or the nodes left on or after cycles.
func (g *vgraph) topo() (order, rest []int) {
	total := len(g.succ)
	indeg := make([]int32, total)
	for _, ss := range g.succ {
		for _, b := range ss {
			indeg[b]++
		}
	}
	for i := 0; i < total; i++ {
		if indeg[i] == 0 {
			order = append(order, i)
		}
	}
	for j := 0; j < len(order); j++ {
		for _, b := range g.succ[order[j]] {
			if indeg[b]--; indeg[b] == 0 {
				order = append(order, b)
			}
		}
	}
	if len(order) == total {
		return order, nil
	}
	for i := 0; i < total; i++ {
		if indeg[i] > 0 {
			rest = append(rest, i)
		}
	}
	return nil, rest
}

// cycle returns a cycle among rest as operations with the reason of each
// step, a run through points of time being one real-time step. Every node
// of rest has a predecessor in rest, so walking back must repeat.
func (g *vgraph) cycle(rest []int) ([]int, []string) {
	in := make(map[int]bool, len(rest))
	for _, v := range rest {
		in[v] = true
	}
	pred := make(map[int]int, len(rest))
	for _, a := range rest {
		for _, b := range g.succ[a] {
			if in[b] {
				pred[b] = a
			}
		}
	}
	seen := make(map[int]int)
	v := rest[0]
	var walk []int
	for {
		if at, ok := seen[v]; ok {
			walk = walk[at:]
			break
		}
		seen[v] = len(walk)
		walk = append(walk, v)
		v = pred[v]
	}
	// walk follows predecessors: reverse it into edge order, then start at
	// an operation.
	for i, j := 0, len(walk)-1; i < j; i, j = i+1, j-1 {
		walk[i], walk[j] = walk[j], walk[i]
	}
	start := 0
	for walk[start] >= g.n {
		start++
	}
	walk = append(walk[start:], walk[:start]...)
	var ops []int
	var why []string
	for i := 0; i < len(walk); {
		a := walk[i]
		j := i + 1
		for j < len(walk) && walk[j] >= g.n {
			j++
		}
		b := walk[j%len(walk)]
		ops = append(ops, a)
		if j == i+1 {
			why = append(why, g.why[[2]int{a, b}])
		} else {
			why = append(why, WhyRealTime)
		}
		i = j
	}
	return ops, why
}
