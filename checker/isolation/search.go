package isolation

import (
	"context"
	"fmt"
	"slices"

	"github.com/histcheck/histcheck/checker"
)

// A search decides prefix consistency, parallel snapshot isolation,
// snapshot isolation and serializability. Reads-from is known (writes
// are unique); what is not is the order of each key's writers. Each pair
// of transactions that write a common key is a choice: either order adds
// its ww edge and an rw edge from every reader of the first's write to
// the second. The graph the choices must keep acyclic is, as in Cerone
// and Gotsman's characterisations ("Analysing snapshot isolation", JACM
// 2018), for serializability so ∪ wr ∪ ww ∪ rw over transactions; for
// snapshot isolation and prefix consistency each transaction is two
// nodes, its snapshot and its commit (so and wr lead from a commit to a
// snapshot, rw from a snapshot to a commit, a snapshot to its own
// commit), with ww from commit to snapshot (snapshot isolation: writers
// of one key never overlap) or from commit to commit (prefix); for
// parallel snapshot isolation, so ∪ wr ∪ ww acyclic and no rw edge r → w
// with w reaching r. Choices that close a cycle are pruned by
// reachability until none is forced (Cobra's and PolySI's pruning); the
// rest are searched depth first.

type constraint struct {
	a, b    node // a < b
	keys    []int32
	decided int8 // 0 undecided, 1 a before b, 2 b before a
}

type searcher struct {
	ctx   context.Context
	ix    *index
	level string
	split bool
	nn    int
	edges []edge
	adj   [][]int32
	cons  []constraint
	// needs are parallel snapshot isolation's rw requirements: From
	// must not be reached from To.
	needs []edge
	// risky are the needs (indices, ascending) whose To stands before
	// their From in the topological order ord: only those can be broken
	// by an edge, as a path runs along that order.
	risky []int32
	words int
	reach []uint64
	steps int64
	limit int64
	ord   []int32
}

func (s *searcher) snap(t node) node {
	if s.split {
		return 2 * t
	}
	return t
}

func (s *searcher) commit(t node) node {
	if s.split {
		return 2*t + 1
	}
	return t
}

func (s *searcher) txnOf(v node) node {
	if s.split {
		return v / 2
	}
	return v
}

// dep is the edge of so or reads-from a → b.
func (s *searcher) dep(a, b node, kind uint8, key, ref int32) edge {
	return edge{from: s.commit(a), to: s.snap(b), kind: kind, key: key, ref: ref}
}

// ww is the edge of u's write of key before v's.
func (s *searcher) ww(u, v node, key int32) edge {
	if s.level == Prefix {
		return edge{from: s.commit(u), to: s.commit(v), kind: edgeWW, key: key, ref: -1}
	}
	return edge{from: s.commit(u), to: s.snap(v), kind: edgeWW, key: key, ref: -1}
}

// rw is the edge of r, which read u's write of key, before v, which
// overwrote it.
func (s *searcher) rw(r, v, u node, key int32) edge {
	if s.split {
		return edge{from: s.snap(r), to: s.commit(v), kind: edgeRW, key: key, ref: u}
	}
	if s.level == Serializable {
		return edge{from: r, to: v, kind: edgeRW, key: key, ref: u}
	}
	return edge{from: r, to: v, kind: edgeRW, key: key, ref: u}
}

// option lists the edges (and, for parallel snapshot isolation, the
// requirements) of u before v.
func (s *searcher) option(c *constraint, u, v node) (es, needs []edge) {
	for _, k := range c.keys {
		es = append(es, s.ww(u, v, k))
		for _, r := range s.ix.readers[pairKey(u, k)] {
			if r == v {
				continue
			}
			e := s.rw(r, v, u, k)
			if s.level == ParallelSnapshot {
				needs = append(needs, e)
			} else {
				es = append(es, e)
			}
		}
	}
	return es, needs
}

func (s *searcher) addEdge(e edge) {
	s.adj[e.from] = append(s.adj[e.from], int32(len(s.edges)))
	s.edges = append(s.edges, e)
}

// popEdges removes the edges added after the first n.
func (s *searcher) popEdges(n int) {
	for i := len(s.edges) - 1; i >= n; i-- {
		f := s.edges[i].from
		s.adj[f] = s.adj[f][:len(s.adj[f])-1]
	}
	s.edges = s.edges[:n]
}

// search decides a searched level.
func search(ctx context.Context, ix *index, level string, o Options) (checker.Result, error) {
	maxNodes := o.MaxNodes
	if maxNodes <= 0 {
		maxNodes = DefaultMaxNodes
	}
	res := checker.Result{Method: methodSearch, Stats: checker.Stats{Ops: len(ix.op) - 1}}
	ix.indexReaders()
	if level != Prefix {
		if v, ok := ix.lostUpdate(); ok {
			res.Valid = checker.False
			res.Violations = []checker.Violation{v}
			return res, nil
		}
	}
	if r, ok := stronger(ctx, ix, level, o); ok {
		return r, nil
	}
	s := &searcher{ctx: ctx, ix: ix, level: level, split: level == Prefix || level == SnapshotIsolation, limit: o.Steps}
	if s.limit <= 0 {
		s.limit = DefaultSteps
	}
	n := len(ix.op)
	s.nn = n
	if s.split {
		s.nn = 2 * n
	}
	if s.nn > maxNodes {
		res.Reason = fmt.Sprintf("the exact search takes at most %d nodes (Options.MaxNodes); this history needs %d (%d transactions)", maxNodes, s.nn, n-1)
		return res, nil
	}
	s.adj = make([][]int32, s.nn)
	if s.split {
		for t := 0; t < n; t++ {
			s.addEdge(edge{from: s.snap(node(t)), to: s.commit(node(t)), kind: edgeSnap, key: -1, ref: -1})
		}
	}
	for _, e := range ix.baseEdges() {
		s.addEdge(s.dep(e.from, e.to, e.kind, e.key, e.ref))
	}
	if err := s.constraints(); err != nil {
		res.Reason = err.Error()
		return res, nil
	}
	v, err := s.prune()
	if err != nil {
		return s.unknown(res, err)
	}
	if v != nil {
		res.Valid = checker.False
		res.Violations = []checker.Violation{*v}
		return res, nil
	}
	var open []int
	for i := range s.cons {
		if s.cons[i].decided == 0 {
			open = append(open, i)
		}
	}
	s.sweep(open)
	if s.level == ParallelSnapshot {
		s.setRisky()
	}
	// The depth-first search keeps reach (what pruning proved stays
	// proved) and a topological order of the graph, along which an edge
	// closes no cycle.
	ok, err := s.dfs(open, 0)
	res.Stats.States = s.steps
	if err != nil {
		return s.unknown(res, err)
	}
	if !ok {
		res.Valid = checker.False
		res.Violations = []checker.Violation{s.exhausted(open)}
		return res, nil
	}
	order, acyclic := newGraph(s.nn, s.edges).topo()
	if !acyclic {
		return res, fmt.Errorf("internal error: the search's graph has a cycle")
	}
	var commits []node
	for _, v := range order {
		if !s.split || v%2 == 1 {
			commits = append(commits, s.txnOf(v))
		}
	}
	res.Valid = checker.True
	res.Witness = ix.witness(commits)
	res.Reason = fmt.Sprintf("the commit order shown orders every key's writers; %d of %d write orders were forced by pruning, %d chosen by search",
		len(s.cons)-len(open), len(s.cons), len(open))
	return res, nil
}

// stronger tries the searches of the levels that imply level (serializable,
// then snapshot isolation): a commit order one of them finds is one for
// level too (checked against level's definition), and their searches
// prune more, as their graphs have more edges.
func stronger(ctx context.Context, ix *index, level string, o Options) (checker.Result, bool) {
	var tries []string
	switch level {
	case SnapshotIsolation:
		tries = []string{Serializable}
	case Prefix, ParallelSnapshot:
		tries = []string{Serializable, SnapshotIsolation}
	}
	for _, l := range tries {
		r, err := search(ctx, ix, l, o)
		if err != nil || r.Valid != checker.True || verifyIndex(ix, level, r.Witness) != nil {
			continue
		}
		r.Reason = fmt.Sprintf("the commit order shown is one for %s, which implies %s", l, level)
		return r, true
	}
	return checker.Result{}, false
}

func (s *searcher) unknown(res checker.Result, err error) (checker.Result, error) {
	res.Valid = checker.Unknown
	res.Reason = err.Error()
	if s.ctx.Err() != nil {
		return res, s.ctx.Err()
	}
	return res, nil
}

// maxPairs bounds the choices a search takes on.
const maxPairs = 4_000_000

// constraints lists the pairs of transactions that write a common key,
// and adds what the initial state forces: every reader of a key's
// initial value precedes each of its writers.
func (s *searcher) constraints() error {
	ix := s.ix
	writers := make([][]node, len(ix.keys))
	for v := 1; v < len(ix.op); v++ {
		for _, k := range ix.writes[v] {
			writers[k] = append(writers[k], node(v))
		}
	}
	pairs := map[uint64]int32{}
	total := 0
	for k, ws := range writers {
		for _, r := range ix.readers[pairKey(initial, int32(k))] {
			for _, v := range ws {
				if v == r {
					continue
				}
				e := s.rw(r, v, initial, int32(k))
				if s.level == ParallelSnapshot {
					s.needs = append(s.needs, e)
				} else {
					s.addEdge(e)
				}
			}
		}
		total += len(ws) * (len(ws) - 1) / 2
		if total > maxPairs {
			return fmt.Errorf("the writers of some keys form more than %d pairs, more than the exact search takes on", maxPairs)
		}
		for i := range ws {
			for j := i + 1; j < len(ws); j++ {
				pk := uint64(uint32(ws[i]))<<32 | uint64(uint32(ws[j]))
				ci, ok := pairs[pk]
				if !ok {
					ci = int32(len(s.cons))
					pairs[pk] = ci
					s.cons = append(s.cons, constraint{a: ws[i], b: ws[j]})
				}
				s.cons[ci].keys = append(s.cons[ci].keys, int32(k))
			}
		}
	}
	return nil
}

func (s *searcher) reaches(from, to node) bool {
	return s.reach[int(from)*s.words+int(to)/64]&(1<<(uint(to)%64)) != 0
}

// closure recomputes reachability; on a cycle it returns the cycle.
func (s *searcher) closure() ([]int32, error) {
	g := newGraph(s.nn, s.edges)
	order, ok := g.topoByIndex()
	if !ok {
		return g.cycle(order, func(e edge) bool { return e.kind == edgeRW }), nil
	}
	s.setOrd(order)
	s.words = (s.nn + 63) / 64
	if s.reach == nil {
		s.reach = make([]uint64, s.nn*s.words)
	} else {
		clear(s.reach)
	}
	for i := len(order) - 1; i >= 0; i-- {
		if i&1023 == 0 && s.ctx.Err() != nil {
			return nil, context.Cause(s.ctx)
		}
		v := order[i]
		row := s.reach[int(v)*s.words : int(v)*s.words+s.words]
		for _, ei := range g.succ(v) {
			w := g.edges[ei].to
			wrow := s.reach[int(w)*s.words : int(w)*s.words+s.words]
			for j := range row {
				row[j] |= wrow[j]
			}
			row[int(w)/64] |= 1 << (uint(w) % 64)
		}
	}
	return nil, nil
}

// feasible reports whether edges es and requirements needs can join
// the known graph, and if not which edge or requirement fails.
func (s *searcher) feasible(es, needs []edge) (bool, edge) {
	for _, e := range es {
		if e.from == e.to || s.reaches(e.to, e.from) {
			return false, e
		}
	}
	for _, e := range needs {
		if e.to == e.from || s.reaches(e.to, e.from) {
			return false, e
		}
	}
	return true, edge{}
}

// prune decides every choice one of whose orders closes a cycle, until
// none is left; a choice neither of whose orders can be taken is a
// violation.
func (s *searcher) prune() (*checker.Violation, error) {
	for {
		cyc, err := s.closure()
		if err != nil {
			return nil, err
		}
		if cyc != nil {
			v := s.cycleViolation(s.cycleSteps(cyc, s.edges), nil)
			return &v, nil
		}
		for _, e := range s.needs {
			if s.reaches(e.to, e.from) {
				v := s.cycleViolation(s.closeCycle(e), nil)
				return &v, nil
			}
		}
		changed := false
		for i := range s.cons {
			if i&65535 == 0 && s.ctx.Err() != nil {
				return nil, context.Cause(s.ctx)
			}
			c := &s.cons[i]
			if c.decided != 0 {
				continue
			}
			esA, nA := s.option(c, c.a, c.b)
			esB, nB := s.option(c, c.b, c.a)
			okA, failA := s.feasible(esA, nA)
			okB, failB := s.feasible(esB, nB)
			switch {
			case !okA && !okB:
				v := s.cycleViolation(s.closeCycle(failA), s.closeCycle(failB))
				return &v, nil
			case okA && !okB:
				c.decided = 1
				s.take(esA, nA)
				changed = true
			case okB && !okA:
				c.decided = 2
				s.take(esB, nB)
				changed = true
			}
		}
		if !changed {
			return nil, nil
		}
	}
}

func (s *searcher) take(es, needs []edge) {
	for _, e := range es {
		if !s.reaches(e.from, e.to) { // an edge a path implies adds nothing
			s.addEdge(e)
		}
	}
	s.needs = append(s.needs, needs...)
}

// pathFrom finds a path of known edges from a to b (edge indices).
func (s *searcher) pathFrom(a, b node) []int32 {
	via := make([]int32, s.nn)
	for i := range via {
		via[i] = -2
	}
	via[a] = -1
	queue := []node{a}
	for qi := 0; qi < len(queue); qi++ {
		u := queue[qi]
		if u == b {
			break
		}
		for _, ei := range s.adj[u] {
			w := s.edges[ei].to
			if via[w] == -2 {
				via[w] = ei
				queue = append(queue, w)
			}
		}
	}
	if via[b] == -2 {
		return nil
	}
	var out []int32
	for v := b; v != a; v = s.edges[via[v]].from {
		out = append(out, via[v])
	}
	slices.Reverse(out)
	return out
}

// closeCycle is the cycle edge e closes: e, then a path back.
func (s *searcher) closeCycle(e edge) []edge {
	path := s.pathFrom(e.to, e.from)
	all := append([]edge{e}, make([]edge, 0, len(path))...)
	for _, ei := range path {
		all = append(all, s.edges[ei])
	}
	return all
}

func (s *searcher) cycleSteps(cyc []int32, edges []edge) []edge {
	all := make([]edge, len(cyc))
	for i, ei := range cyc {
		all[i] = edges[ei]
	}
	return all
}

// stepsOf says a cycle of search edges as steps between transactions,
// leaving out each transaction's snapshot-to-commit edge.
func (s *searcher) stepsOf(es []edge) []checker.IsolationStep {
	var out []checker.IsolationStep
	for _, e := range es {
		if e.kind == edgeSnap {
			continue
		}
		te := edge{from: s.txnOf(e.from), to: s.txnOf(e.to), kind: e.kind, key: e.key, ref: e.ref}
		out = append(out, s.ix.step(te, nil))
	}
	return out
}

// dfs tries both orders of each open choice in turn.
func (s *searcher) dfs(open []int, i int) (bool, error) {
	if i == len(open) {
		return s.leafOK(), nil
	}
	s.steps++
	if s.steps > s.limit {
		return false, fmt.Errorf("the search gave up after %d steps with %d of the %d write orders pruning left open undecided (Options.Steps)",
			s.limit, len(open)-i, len(open))
	}
	if s.steps&1023 == 0 && s.ctx.Err() != nil {
		return false, context.Cause(s.ctx)
	}
	c := &s.cons[open[i]]
	first, second := [2]node{c.a, c.b}, [2]node{c.b, c.a}
	if s.ord[s.commit(c.b)] < s.ord[s.commit(c.a)] {
		first, second = second, first // the order the graph's topological order already has
	}
	for _, uv := range [][2]node{first, second} {
		es, needs := s.option(c, uv[0], uv[1])
		mark, nmark := len(s.edges), len(s.needs)
		ok, reordered := s.takeEdges(es)
		for _, e := range needs {
			if ok && (e.from == e.to || s.reaches(e.to, e.from) || s.reachesBefore(e.to, e.from)) {
				ok = false // parallel snapshot isolation: the overwriter reaches the reader
			}
		}
		if ok && s.level == ParallelSnapshot {
			ok = s.needsHold(mark, reordered)
		}
		if ok {
			s.addNeeds(needs)
			found, err := s.dfs(open, i+1)
			if err != nil || found {
				return found, err
			}
		}
		s.popEdges(mark)
		s.needs = s.needs[:nmark]
		for len(s.risky) > 0 && int(s.risky[len(s.risky)-1]) >= nmark {
			s.risky = s.risky[:len(s.risky)-1]
		}
	}
	return false, nil
}

// takeEdges adds an option's edges, keeping ord a topological order;
// ok is false when one closes a cycle, reordered when ord changed.
func (s *searcher) takeEdges(es []edge) (ok, reordered bool) {
	for _, e := range es {
		switch {
		case e.from == e.to:
			return false, reordered
		case s.reaches(e.from, e.to):
			// implied
		case s.ord[e.from] < s.ord[e.to]:
			s.addEdge(e) // along the topological order: no cycle
		case s.reachesNow(e.to, e.from):
			return false, reordered
		default:
			s.addEdge(e)
			s.reorder()
			reordered = true
		}
	}
	return true, reordered
}

// addNeeds takes parallel snapshot isolation's requirements of an
// option, noting those at risk.
func (s *searcher) addNeeds(needs []edge) {
	for _, e := range needs {
		if s.ord[e.to] < s.ord[e.from] {
			s.risky = append(s.risky, int32(len(s.needs)))
		}
		s.needs = append(s.needs, e)
	}
}

// setRisky finds the needs at risk under ord.
func (s *searcher) setRisky() {
	s.risky = s.risky[:0]
	for i, e := range s.needs {
		if s.ord[e.to] < s.ord[e.from] {
			s.risky = append(s.risky, int32(i))
		}
	}
}

// needsHold checks the requirements taken before against the edges
// added since mark (all of them when ord changed): an edge a → b breaks
// requirement r ↛ w... only through w ⇝ a and b ⇝ r, so only where w
// stands before a and b before r. Checking them as each choice is made,
// rather than at the end of the search, undoes a wrong choice where it is
// made: on the long-fork store's 10,000 transactions the search spent its
// 200,000,000 steps in 4 s rather than 55 (deciding part by part, see
// parts.go, is what decides that history).
func (s *searcher) needsHold(mark int, all bool) bool {
	for _, ri := range s.risky {
		e := s.needs[ri]
		if !all && !s.crosses(e, mark) {
			continue
		}
		if s.reachesBefore(e.to, e.from) {
			return false
		}
	}
	return true
}

// crosses reports whether an edge added since mark lies between need e's
// overwriter and reader in ord.
func (s *searcher) crosses(e edge, mark int) bool {
	lo, hi := s.ord[e.to], s.ord[e.from]
	for _, x := range s.edges[mark:] {
		if lo <= s.ord[x.from] && s.ord[x.to] <= hi {
			return true
		}
	}
	return false
}

// sweep orders the open choices by where their writers stand in the
// graph's topological order (the later writer first, then the earlier),
// so that the search goes through the history from its start to its
// end. Which choices conflict is local: a wrong order is then undone by
// the choices made just after it, not found only when the search reaches
// another key, every choice taken in between to be tried again (on a
// history of 10,000 transactions from a store that runs them
// concurrently, taking the choices key by key gave up after 200,000,000
// steps).
func (s *searcher) sweep(open []int) {
	at := func(i int) (int32, int32) {
		a, b := s.ord[s.commit(s.cons[i].a)], s.ord[s.commit(s.cons[i].b)]
		return max(a, b), min(a, b)
	}
	slices.SortStableFunc(open, func(i, j int) int {
		hi, lo := at(i)
		hj, lj := at(j)
		if hi != hj {
			return int(hi - hj)
		}
		return int(lo - lj)
	})
}

// setOrd keeps the position of each node in a topological order.
func (s *searcher) setOrd(order []node) {
	if len(s.ord) != s.nn {
		s.ord = make([]int32, s.nn)
	}
	for i, v := range order {
		s.ord[v] = int32(i)
	}
}

// reorder recomputes the topological order after an edge against it.
func (s *searcher) reorder() {
	s.steps += int64(len(s.edges) + s.nn)
	order, _ := newGraph(s.nn, s.edges).topoByIndex()
	s.setOrd(order)
	if s.level == ParallelSnapshot {
		s.steps += int64(len(s.needs))
		s.setRisky()
	}
}

// leafOK checks what the edges alone do not: parallel snapshot
// isolation's requirements (those not at risk hold, as ord is a
// topological order; needsHold checked the others as they came).
func (s *searcher) leafOK() bool {
	if s.level != ParallelSnapshot {
		return true
	}
	for _, ri := range s.risky {
		if e := s.needs[ri]; s.reachesBefore(e.to, e.from) {
			return false
		}
	}
	return true
}

// reachesNow searches the current graph for a path from a to b.
func (s *searcher) reachesNow(a, b node) bool {
	return s.pathTo(a, b, false)
}

// reachesBefore searches the current graph for a path from a to b,
// through nodes that stand before b in ord alone (a path runs along it).
func (s *searcher) reachesBefore(a, b node) bool {
	if a != b && s.ord[a] > s.ord[b] {
		return false
	}
	return s.pathTo(a, b, true)
}

// pathTo searches the current graph depth first for a path from a to b;
// bounded keeps the path to nodes before b in ord.
func (s *searcher) pathTo(a, b node, bounded bool) bool {
	if a == b {
		return true
	}
	limit := s.ord[b]
	seen := make([]uint64, (s.nn+63)/64)
	stack := []node{a}
	seen[a/64] |= 1 << (uint(a) % 64)
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		s.steps += int64(len(s.adj[u])) + 1
		for _, ei := range s.adj[u] {
			w := s.edges[ei].to
			if w == b {
				return true
			}
			if (!bounded || s.ord[w] < limit) && seen[w/64]&(1<<(uint(w)%64)) == 0 {
				seen[w/64] |= 1 << (uint(w) % 64)
				stack = append(stack, w)
			}
		}
	}
	return false
}
