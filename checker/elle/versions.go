package elle

import (
	"slices"
	"sort"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// This file infers rw-register version orders as Elle's rw_register.clj
// does: from the initial state, then from each assumption asked for
// (Options), one source of evidence after another.

// versionOrder is one key's inferred version order: pairs v < v', each
// once, in the order found.
type versionOrder struct {
	pairs []vpair
	// seen holds the pairs, built when a second source is merged (the
	// initial state's pairs are distinct by construction).
	seen map[vpair]bool
}

func (o *versionOrder) add(p vpair, dedupe bool) {
	if dedupe {
		if o.seen == nil {
			o.seen = make(map[vpair]bool, len(o.pairs))
			for _, q := range o.pairs {
				o.seen[q] = true
			}
		}
		if o.seen[p] {
			return
		}
		o.seen[p] = true
	}
	o.pairs = append(o.pairs, p)
}

// versionSource is what one source of evidence says of the version
// orders, key by key.
type versionSource map[history.Value][]vpair

func (s versionSource) add(k, v, next history.Value) {
	if v != next {
		s[k] = append(s[k], vpair{v, next})
	}
}

// inferVersions builds each key's version order: the initial state, then
// writes-follow-reads, process order and real-time order, as asked, in
// Elle's order. A source that would order some key's versions in a cycle
// contradicts itself or the sources before it: its pairs are all left
// out, as Elle leaves them, and each key's cycle is a cyclic-versions
// case.
func (a *registerAnalysis) inferVersions() {
	a.merge(a.initialVersions(), false)
	if !a.opts.WFRKeys && !a.opts.SequentialKeys && !a.opts.LinearizableKeys {
		return
	}
	touched := make([][]touch, len(a.txns))
	for i := range a.txns {
		touched[i] = touchesOf(&a.txns[i])
	}
	if a.opts.WFRKeys {
		a.merge(wfrVersions(touched), true)
	}
	if a.opts.SequentialKeys {
		a.merge(a.sequentialVersions(touched), true)
	}
	if a.opts.LinearizableKeys {
		a.merge(a.linearizableVersions(touched), true)
	}
}

// initialVersions puts the initial state, nil, before every version
// written by a transaction that did not fail, and before every value a
// committed transaction read (a value nobody wrote gives no dependency,
// but it can close a cycle of versions).
func (a *registerAnalysis) initialVersions() versionSource {
	s := versionSource{}
	for ti := range a.txns {
		t := &a.txns[ti]
		if t.Status == history.Fail {
			continue
		}
		for _, m := range t.Mops {
			if m.Kind == txn.Write && a.writers[keyVal{m.Key, m.Value}].final {
				s.add(m.Key, history.NilValue, m.Value)
			}
		}
	}
	for _, k := range a.keys {
		unwritten := map[history.Value]bool{}
		for _, r := range a.readsOf[k] {
			if _, ok := a.writers[keyVal{k, r.v}]; !ok && !r.v.IsNil() && !unwritten[r.v] {
				unwritten[r.v] = true
				s.add(k, history.NilValue, r.v)
			}
		}
	}
	return s
}

// merge adds a source's pairs to the version orders, unless they close a
// cycle (check: the initial state alone cannot).
func (a *registerAnalysis) merge(src versionSource, check bool) {
	if check {
		var cyclic []Case
		for _, k := range a.keys {
			if len(src[k]) == 0 {
				continue
			}
			var have []vpair
			if vo := a.versions[k]; vo != nil {
				have = vo.pairs
			}
			for _, cyc := range versionCycles(have, src[k]) {
				cyclic = append(cyclic, a.cyclicCase(k, cyc))
			}
		}
		if len(cyclic) > 0 {
			a.cases = append(a.cases, cyclic...)
			return
		}
	}
	for _, k := range a.keys {
		if len(src[k]) == 0 {
			continue
		}
		vo := a.versions[k]
		if vo == nil {
			vo = &versionOrder{}
			a.versions[k] = vo
		}
		for _, p := range src[k] {
			vo.add(p, check)
		}
	}
}

// touch is what one transaction showed others of one key, as Elle's
// external reads and writes tell: first is the version it found (its
// first micro-operation on the key read it), else the one it left; last
// is the version it left (its final write), else the one it found. A
// crashed transaction's reads are unknown, so it shows only its writes; a
// failed one shows nothing.
type touch struct {
	key         history.Value
	first, last history.Value
	read, wrote bool
}

func touchesOf(t *txn.Txn) []touch {
	if t.Status == history.Fail {
		return nil
	}
	var out []touch
	for _, m := range t.Mops {
		i := -1
		for j := range out {
			if out[j].key == m.Key {
				i = j
				break
			}
		}
		if i < 0 {
			i = len(out)
			out = append(out, touch{key: m.Key})
			if m.Kind == txn.Read && t.Committed() {
				out[i].first, out[i].last, out[i].read = m.Value, m.Value, true
			}
		}
		if m.Kind == txn.Write {
			if !out[i].read {
				out[i].first = m.Value
			}
			out[i].last, out[i].wrote = m.Value, true
		}
	}
	kept := out[:0]
	for _, x := range out {
		if x.read || x.wrote {
			kept = append(kept, x)
		}
	}
	return kept
}

// wfrVersions assumes writes follow reads: a committed transaction that
// read v of a key and then wrote v' to it puts v before v' (a read of nil
// says nothing the initial state does not).
func wfrVersions(touched [][]touch) versionSource {
	s := versionSource{}
	for _, ts := range touched {
		for _, x := range ts {
			if x.read && x.wrote && !x.first.IsNil() {
				s.add(x.key, x.first, x.last)
			}
		}
	}
	return s
}

// sequentialVersions assumes each key sequentially consistent: along each
// process, the version a transaction left of a key comes before the one
// the process's next transaction to touch the key found. Failed
// transactions, and crashed ones that wrote nothing to the key, are seen
// through.
func (a *registerAnalysis) sequentialVersions(touched [][]touch) versionSource {
	s := versionSource{}
	last := map[int]map[history.Value]history.Value{}
	for ti, ts := range touched {
		if len(ts) == 0 {
			continue
		}
		p := a.txns[ti].Process
		m := last[p]
		if m == nil {
			m = map[history.Value]history.Value{}
			last[p] = m
		}
		for _, x := range ts {
			if v, ok := m[x.key]; ok {
				s.add(x.key, v, x.first)
			}
		}
		for _, x := range ts {
			m[x.key] = x.last
		}
	}
	return s
}

// span is one transaction's touch of a key with its interval.
type span struct {
	call, ret   int64
	first, last history.Value
}

// linearizableVersions assumes each key linearizable: when T1 completed
// before T2 was invoked, the version T1 left of a key comes before the one
// T2 found. Of the real-time order only its covering pairs among the
// transactions touching the key are used (T2 follows T1 and nothing that
// follows T1 and touches the key completed before T2 was invoked); the
// rest follow by transitivity. Crashed transactions never complete, so
// they only follow.
func (a *registerAnalysis) linearizableVersions(touched [][]touch) versionSource {
	spans := map[history.Value][]span{}
	for ti, ts := range touched {
		op := &a.h.Ops[a.txns[ti].Op]
		ret := op.Return
		if !a.txns[ti].Committed() {
			ret = history.Infinity
		}
		for _, x := range ts {
			spans[x.key] = append(spans[x.key], span{call: op.Call, ret: ret, first: x.first, last: x.last})
		}
	}
	s := versionSource{}
	for _, k := range a.keys {
		ss := spans[k]
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].call < ss[j].call })
		// minRet[i] is the earliest completion among ss[i:].
		minRet := make([]int64, len(ss)+1)
		minRet[len(ss)] = history.Infinity
		for i := len(ss) - 1; i >= 0; i-- {
			minRet[i] = min(ss[i].ret, minRet[i+1])
		}
		for _, x := range ss {
			if x.ret == history.Infinity {
				continue
			}
			i := sort.Search(len(ss), func(j int) bool { return ss[j].call > x.ret })
			for j := i; j < len(ss) && ss[j].call <= minRet[i]; j++ {
				s.add(k, x.last, ss[j].first)
			}
		}
	}
	return s
}

// versionCycles returns a cycle of versions in each strongly connected
// component of have and extra together that holds more than one version,
// the components in the order their first version appears: Elle reports
// a cyclic-versions case per component (cyclic-version-cases), so that
// two contradictions on one key are two cases.
func versionCycles(have, extra []vpair) [][]history.Value {
	g := newVersionGraph(have, extra)
	comp := g.components()
	var out [][]history.Value
	done := map[int]bool{}
	for v := range g.values {
		c := comp[v]
		if done[c] {
			continue
		}
		done[c] = true
		if cyc := g.cycleThrough(v, comp); cyc != nil {
			out = append(out, cyc)
		}
	}
	return out
}

// versionGraph is one key's version order as a graph over the versions,
// numbered in the order they first appear.
type versionGraph struct {
	values []history.Value
	next   [][]int
}

func newVersionGraph(pairs ...[]vpair) *versionGraph {
	g := &versionGraph{}
	id := map[history.Value]int{}
	node := func(v history.Value) int {
		i, ok := id[v]
		if !ok {
			i = len(g.values)
			id[v] = i
			g.values = append(g.values, v)
			g.next = append(g.next, nil)
		}
		return i
	}
	for _, ps := range pairs {
		for _, p := range ps {
			a, b := node(p.v), node(p.next)
			g.next[a] = append(g.next[a], b)
		}
	}
	return g
}

// components numbers each version's strongly connected component.
func (g *versionGraph) components() []int {
	dg := simple.NewDirectedGraph()
	for v := range g.values {
		dg.AddNode(simple.Node(v))
	}
	for v, ws := range g.next {
		for _, w := range ws {
			if w != v { // a self-loop, which the graph refuses, is a component of one: cycleThrough finds it
				dg.SetEdge(simple.Edge{F: simple.Node(v), T: simple.Node(w)})
			}
		}
	}
	comp := make([]int, len(g.values))
	for c, nodes := range topo.TarjanSCC(dg) {
		for _, n := range nodes {
			comp[n.ID()] = c
		}
	}
	return comp
}

// cycleThrough returns a shortest cycle from version v back to itself
// within v's component, or nil when the component is v alone (a version
// is never ordered before itself).
func (g *versionGraph) cycleThrough(v int, comp []int) []history.Value {
	prev := map[int]int{v: -1}
	queue := []int{v}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, w := range g.next[u] {
			if w == v {
				var cyc []history.Value
				for x := u; x >= 0; x = prev[x] {
					cyc = append(cyc, g.values[x])
				}
				slices.Reverse(cyc)
				return cyc
			}
			if _, seen := prev[w]; !seen && comp[w] == comp[v] {
				prev[w] = u
				queue = append(queue, w)
			}
		}
	}
	return nil
}

// cyclicCase is the cyclic-versions case of key k's cycle of versions:
// the transactions are each version's writer, or its first reader when
// nobody wrote it.
func (a *registerAnalysis) cyclicCase(k history.Value, cyc []history.Value) Case {
	var ts []int
	seen := map[int]bool{}
	for _, v := range cyc {
		t := -1
		if w, ok := a.writers[keyVal{k, v}]; ok {
			t = w.txn
		} else if rs := a.readers[keyVal{k, v}]; len(rs) > 0 {
			t = rs[0]
		}
		if t >= 0 && !seen[t] {
			seen[t] = true
			ts = append(ts, t)
		}
	}
	return Case{Name: "cyclic-versions", Txns: ts, Key: k, Mop: -1, Values: cyc}
}
