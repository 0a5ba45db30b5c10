// Package elle checks transactional histories against isolation levels the
// way Elle does (Kingsbury and Alvaro, "Elle: Inferring Isolation
// Anomalies from Experimental Observations"): it infers each key's version
// order from what the transactions read (whole lists for list-append; the
// initial state and, as asked (Options), writes-follow-reads, process and
// real-time order for rw-register), builds the dependency graph over transactions (ww, wr and
// rw edges, plus process and real-time order), and looks in each strongly
// connected component for the smallest cycle of each class (G0, G1c,
// G-single-item, G-nonadjacent-item, G2-item, and their -process and
// -realtime variants), each component reporting its own. Anomalies that
// are not cycles (G1a, G1b, internal, incompatible-order,
// duplicate-elements, dirty-update, future-read, cyclic-versions,
// lost-update, and fractured-read, which monotonic atomic view rules out
// and Elle does not look for) are found from the reads directly. A level
// is unknown when the graph its anomalies are looked for in has no edge
// (Elle's empty-transaction-graph). Which anomalies rule out which level
// is levels.go's table, after Elle's consistency_model.clj.
package elle

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// Workload says what a history's transactions do.
type Workload int

// The workloads.
const (
	// ListAppend transactions append unique elements to lists and read
	// whole lists.
	ListAppend Workload = iota
	// RWRegister transactions write unique values to registers and read
	// them.
	RWRegister
)

func (w Workload) String() string {
	if w == ListAppend {
		return "list-append"
	}
	return "rw-register"
}

// DefaultBudget bounds the nodes the cycle searches of one history visit
// together.
const DefaultBudget = 50_000_000

// Analysis is what the inference found in one history, for every level.
type Analysis struct {
	Workload Workload
	Txns     []txn.Txn
	Graph    *Graph
	Cases    []Case
	Cycles   []Cycle
	// Unsearched names cycle classes whose search ran out of budget
	// before it could tell whether such a cycle exists.
	Unsearched []string
	// Exists is, when some search ran out, what the strongly connected
	// components of each subgraph show (see CycleExists).
	Exists []CycleExists
	// kinds are the dependency kinds of the graph's edges together.
	kinds EdgeType
}

// EmptyTransactionGraph is Elle's name for a history in which no
// dependency between transactions can be inferred; a verdict's Reason
// starts with it when that is so.
const EmptyTransactionGraph = "empty-transaction-graph"

// edgeKinds are the kinds of all of g's edges together.
func edgeKinds(g *Graph) EdgeType {
	g.freeze()
	var k EdgeType
	for i := 0; i < g.Len(); i++ {
		for _, t := range g.out(i).types {
			k |= t
		}
	}
	return k
}

// failedAfterCommit reports whether some failed transaction was invoked
// after a committed one completed.
func failedAfterCommit(txns []txn.Txn, h *history.History) bool {
	first := int64(history.Infinity)
	for i := range txns {
		if op := &h.Ops[txns[i].Op]; txns[i].Committed() && op.Return < first {
			first = op.Return
		}
	}
	for i := range txns {
		if txns[i].Status == history.Fail && h.Ops[txns[i].Op].Call > first {
			return true
		}
	}
	return false
}

// graphKinds are the dependency kinds of the graph Elle builds to look
// for the anomalies in prohibited: the data dependencies, and real-time
// order when some anomaly asked for needs it, else process order when
// one needs that (Elle's additional-graphs).
func graphKinds(prohibited []string) EdgeType {
	var realtime, process bool
	for _, p := range prohibited {
		realtime = realtime || strings.HasSuffix(p, "-realtime")
		process = process || strings.HasSuffix(p, "-process")
	}
	switch {
	case realtime:
		return Data | Realtime
	case process:
		return Data | Process
	}
	return Data
}

// emptyGraph says, as Elle does with the anomaly empty-transaction-graph,
// that the graph the anomalies in prohibited are looked for in has no
// edge: no dependency was inferred, so no cycle could show.
func (a *Analysis) emptyGraph(prohibited []string) (string, bool) {
	mask := graphKinds(prohibited)
	if a.kinds&mask != 0 {
		return "", false
	}
	what := "no ww, wr or rw dependency"
	switch {
	case mask&Realtime != 0:
		what += " and no real-time order"
	case mask&Process != 0:
		what += " and no process order"
	}
	return fmt.Sprintf("%s: %s between transactions could be inferred, so no cycle could show; "+
		"the history is too weak to show whether cycles are ruled out", EmptyTransactionGraph, what), true
}

// AnalyzeWith reads h's transactions and finds their anomalies, under
// the assumptions o makes. The error is an input error: an operation
// that is not a transaction, or a value appended or written twice to one
// key.
func AnalyzeWith(ctx context.Context, h *history.History, w Workload, o Options) (*Analysis, error) {
	budget := o.Budget
	txns, err := txn.FromHistory(h)
	if err != nil {
		return nil, err
	}
	// Process and real-time order depend on the operations alone: they
	// are built meanwhile, on the other core, and added after the data
	// dependencies, in the order a single pass would add them.
	orders := later(func() *Graph {
		o := &Graph{n: len(txns)}
		addProcessOrder(o, txns)
		addRealtimeOrder(o, txns, h)
		return o
	})
	defer orders()
	// So are the lost updates, which come last among the anomalies.
	lost := later(func() []Case { return lostUpdates(txns, w) })
	defer lost()
	var g *Graph
	var cases []Case
	fractured := func() []Case { return nil }
	if w == ListAppend {
		var a *appendAnalysis
		if g, a, err = inferAppends(txns); err == nil {
			cases = a.cases
			// The fractured reads need no graph: they are found while
			// the cycles are searched, which takes one core.
			fractured = later(a.fracturedReads)
			defer fractured()
		}
	} else {
		if err := noAppends(txns); err != nil {
			return nil, err
		}
		g, cases, err = analyzeRegisters(txns, h, o)
	}
	if err != nil {
		return nil, err
	}
	g.merge(orders())
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if budget <= 0 {
		budget = DefaultBudget
	}
	a := &Analysis{Workload: w, Txns: txns, Graph: g}
	a.searchCycles(ctx, budget)
	a.Cases = append(append(cases, fractured()...), lost()...)
	a.kinds = edgeKinds(g)
	if failedAfterCommit(txns, h) {
		// Elle's real-time graph also links completed transactions to
		// failed ones invoked later, which histcheck leaves out of the
		// search (a failed transaction took no effect); they still
		// count as dependencies for the empty graph.
		a.kinds |= Realtime
	}
	return a, nil
}

// later runs f on a goroutine of its own and returns a function that
// waits for its result, as often as it is called.
func later[T any](f func() T) func() T {
	out := make(chan T, 1)
	go func() { out <- f() }()
	return sync.OnceValue(func() T { return <-out })
}

func noAppends(txns []txn.Txn) error {
	for i := range txns {
		for _, m := range txns[i].Mops {
			if m.Kind == txn.Append {
				return fmt.Errorf("operation %d appends (%s), which rw-register does not: use -m list-append", txns[i].Op, m)
			}
		}
	}
	return nil
}

// searchCycles looks, in each strongly connected component, for each
// class of cycle, weakest first, skipping a class some anomaly already
// found in that component implies (Elle's cycle-cases-in-scc): a history
// whose anomalies sit in N components reports N cycles of their class.
func (a *Analysis) searchCycles(ctx context.Context, budget int64) {
	s := newSearcher(ctx, a.Graph, budget)
	// found are the cycles found so far, by a transaction of each; each
	// lies within one component of every later variant's larger graph.
	type foundCycle struct {
		txn  int
		name string
	}
	var found []foundCycle
	implied := map[string]map[string]bool{}
	for _, v := range variants {
		top := s.components(Data | v.extra)
		names := map[int32][]string{} // a component of top -> the anomalies found in it
		for _, f := range found {
			names[top[f.txn]] = append(names[top[f.txn]], f.name)
		}
		for c := classG0; c <= classG2; c++ {
			name := classNames[c] + v.suffix
			skip := func(t int32) bool {
				for _, f := range names[t] {
					if implied[f] == nil {
						implied[f] = closure(impliedAnomalies, f)
					}
					if implied[f][name] {
						return true
					}
				}
				return false
			}
			cycs, complete := s.find(c, v.extra, skip)
			if !complete {
				a.Unsearched = append(a.Unsearched, name)
			}
			for _, cc := range cycs {
				cyc := rotate(cc.cyc)
				cyc.Name = classify(cyc.Types)
				names[cc.top] = append(names[cc.top], cyc.Name)
				found = append(found, foundCycle{txn: cyc.Txns[0], name: cyc.Name})
				a.Cycles = append(a.Cycles, cyc)
			}
		}
	}
	if len(a.Unsearched) > 0 {
		a.Exists = s.cycleExists()
	}
}

// rotate starts a cycle at its earliest transaction, so that T1 in its
// explanation is the first of them in the history.
func rotate(c Cycle) Cycle {
	m := 0
	for i, t := range c.Txns {
		if t < c.Txns[m] {
			m = i
		}
	}
	return Cycle{Txns: append(c.Txns[m:], c.Txns[:m]...), Types: append(c.Types[m:], c.Types[:m]...)}
}

// lostUpdates finds committed transactions that read the same version of
// a key and both wrote it.
func lostUpdates(txns []txn.Txn, w Workload) []Case {
	type rv struct{ k, v history.Value }
	by := map[rv][]int{}
	var order []rv
	var keys txnKeys
	for ti := range txns {
		t := &txns[ti]
		if !t.Committed() {
			continue
		}
		keys.reset()
		for _, m := range t.Mops {
			s := keys.at(m.Key)
			if m.Kind == txn.Read {
				if !s.wrote && !s.read {
					s.first, s.read = emptyAsList(m.Value, w), true
				}
				continue
			}
			if s.read && !s.wrote {
				k := rv{m.Key, s.first}
				if len(by[k]) == 0 {
					order = append(order, k)
				}
				by[k] = append(by[k], ti)
			}
			s.wrote = true
		}
	}
	var out []Case
	for _, k := range order {
		if ts := by[k]; len(ts) > 1 {
			out = append(out, Case{Name: "lost-update", Txns: ts, Key: k.k, Mop: -1, Values: []history.Value{k.v}})
		}
	}
	return out
}

// txnKeys is what one transaction did to each key it touched: whether it
// read the key before writing it, and the value it read first, and
// whether it wrote it. It is reused from one transaction to the next.
type txnKeys struct {
	keys []keyUse
	// index finds a key among many; a transaction's few keys are
	// searched in turn, which is far cheaper than hashing them.
	index map[history.Value]int
}

// keyUse is what a transaction did to one key.
type keyUse struct {
	key, first  history.Value
	read, wrote bool
}

// fewKeys is the most keys searched in turn.
const fewKeys = 8

func (s *txnKeys) reset() {
	s.keys = s.keys[:0]
	if len(s.index) > 0 {
		clear(s.index)
	}
}

// at returns k's use, added unused if the transaction had not touched it.
func (s *txnKeys) at(k history.Value) *keyUse {
	if len(s.keys) <= fewKeys {
		for i := range s.keys {
			if s.keys[i].key == k {
				return &s.keys[i]
			}
		}
	} else {
		if len(s.index) == 0 {
			if s.index == nil {
				s.index = map[history.Value]int{}
			}
			for i := range s.keys {
				s.index[s.keys[i].key] = i
			}
		}
		if i, ok := s.index[k]; ok {
			return &s.keys[i]
		}
		s.index[k] = len(s.keys)
	}
	s.keys = append(s.keys, keyUse{key: k})
	return &s.keys[len(s.keys)-1]
}

// emptyAsList reads a list-append read of nil as the empty list it is.
func emptyAsList(v history.Value, w Workload) history.Value {
	if w == ListAppend && v.IsNil() {
		return history.ListValue()
	}
	return v
}

// Result gives the verdict for one isolation level: false with every
// anomaly that rules it out, each as a violation; unknown when none does
// but a search that could have found one ran out of budget.
func (a *Analysis) Result(h *history.History, level string) (checker.Result, error) {
	ps, ok := Prohibited(level)
	if !ok {
		return checker.Result{}, fmt.Errorf("unknown isolation level %q", level)
	}
	return a.result(h, level, ps), nil
}

// ResultAnomalies gives the verdict on the anomalies asked for by name
// (Elle's :anomalies option), under the criterion AnomaliesCriterion:
// false with every anomaly found that is one of them or an instance of
// one (a G0 is a G1c, a G-single-item a G2), each as a violation.
func (a *Analysis) ResultAnomalies(h *history.History, names []string) (checker.Result, error) {
	for _, n := range names {
		if !slices.Contains(Anomalies, n) {
			return checker.Result{}, fmt.Errorf("unknown anomaly %q (accepted: %s)", n, strings.Join(Anomalies, ", "))
		}
	}
	return a.result(h, AnomaliesCriterion, names), nil
}

// result is the verdict of a criterion that rules out the anomalies in
// prohibited and their instances.
func (a *Analysis) result(h *history.History, criterion string, prohibited []string) checker.Result {
	res := checker.Result{Criterion: criterion, Valid: checker.True, Method: "elle", Stats: checker.Stats{Ops: len(a.Txns)}}
	for _, c := range a.Cycles {
		if instanceOf(c.Name, prohibited) {
			res.Violations = append(res.Violations, a.cycleViolation(h, c))
		}
	}
	for _, c := range a.Cases {
		if instanceOf(c.Name, prohibited) {
			res.Violations = append(res.Violations, a.caseViolation(h, c))
		}
	}
	empty, isEmpty := a.emptyGraph(prohibited)
	if len(res.Violations) > 0 {
		firstOfEach(res.Violations)
		res.Valid = checker.False
		// Elle lists empty-transaction-graph beside the anomalies found.
		res.Reason = empty
		res.Reason = joinNote(res.Reason, a.cycleCount(res.Violations))
		return res
	}
	var open []string
	for _, u := range a.Unsearched {
		if instanceOf(u, prohibited) {
			open = append(open, u)
		}
	}
	open, proof := decided(a.Exists, prohibited, open)
	if proof != nil {
		res.Valid = checker.False
		res.Violations = append(res.Violations, a.existsViolation(*proof))
		return res
	}
	if len(open) > 0 {
		sort.Strings(open)
		res.Valid = checker.Unknown
		res.Reason = fmt.Sprintf("%s: the cycle search ran out of its budget before it could tell whether a cycle of class %v exists",
			cycleSearchTimeout, open)
		return res
	}
	if isEmpty {
		res.Valid = checker.Unknown
		res.Reason = empty
	}
	return res
}

// firstOfEach puts the first violation of each anomaly first, in their
// order, and the other violations after them: with a cycle per class in
// each strongly connected component, a report that shows the first few
// shows every anomaly found.
func firstOfEach(vs []checker.Violation) {
	seen := map[string]bool{}
	later := make([]bool, len(vs))
	for i, v := range vs {
		later[i] = seen[v.Pattern]
		seen[v.Pattern] = true
	}
	idx := make([]int, len(vs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool { return !later[idx[x]] && later[idx[y]] })
	out := make([]checker.Violation, len(vs))
	for i, j := range idx {
		out[i] = vs[j]
	}
	copy(vs, out)
}

// cycleCount says, when some class of cycle was found in more than one
// strongly connected component, how many of each there are.
func (a *Analysis) cycleCount(vs []checker.Violation) string {
	count := map[string]int{}
	var order []string
	for _, v := range vs {
		if len(v.Cycle) == 0 {
			continue
		}
		if count[v.Pattern] == 0 {
			order = append(order, v.Pattern)
		}
		count[v.Pattern]++
	}
	var parts []string
	many := false
	for _, p := range order {
		parts = append(parts, fmt.Sprintf("%d %s", count[p], p))
		many = many || count[p] > 1
	}
	if !many {
		return ""
	}
	return "cycles, one per class in each strongly connected component: " + strings.Join(parts, ", ")
}

// joinNote joins two notes of a reason, either of which may be empty.
func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// Bound keeps at most max of res's violations (all when max <= 0), and
// says in its reason how many there were when some are left out.
func Bound(res checker.Result, max int) checker.Result {
	if max <= 0 || len(res.Violations) <= max {
		return res
	}
	n := len(res.Violations)
	res.Violations = res.Violations[:max:max]
	res.Reason = joinNote(res.Reason, fmt.Sprintf("%d violations found; the first %d are shown (--max-violations)", n, max))
	return res
}

func (a *Analysis) cycleViolation(h *history.History, c Cycle) checker.Violation {
	v := checker.Violation{Pattern: c.Name}
	for i, t := range c.Txns {
		next := c.Txns[(i+1)%len(c.Txns)]
		v.Ops = append(v.Ops, a.Txns[t].Op)
		d := checker.Dependency{From: a.Txns[t].Op, To: a.Txns[next].Op, Type: c.Types[i].Name()}
		if w, ok := a.Graph.Why(t, next, c.Types[i]); ok {
			d.Key, d.Value, d.Next = w.Key, w.Value, w.Next
		}
		v.Cycle = append(v.Cycle, d)
	}
	v.Anomaly = &checker.Anomaly{Appends: a.Workload == ListAppend}
	return v
}

// existsViolation is the violation a strongly connected component proves
// when the search could not find its cycle.
func (a *Analysis) existsViolation(f CycleExists) checker.Violation {
	v := checker.Violation{Pattern: "cycle-exists"}
	for _, t := range f.Txns {
		v.Ops = append(v.Ops, a.Txns[t].Op)
	}
	v.Anomaly = &checker.Anomaly{Appends: a.Workload == ListAppend, Component: f.Size, Nonadjacent: f.Nonadjacent}
	for _, k := range [...]EdgeType{WW, WR, RW, Process, Realtime} {
		if f.Kinds&k != 0 {
			v.Anomaly.Kinds = append(v.Anomaly.Kinds, k.Name())
		}
	}
	absent := absentClasses(a.Exists)
	for _, c := range f.Classes {
		if !absent[c] {
			v.Anomaly.Classes = append(v.Anomaly.Classes, c)
		}
	}
	return v
}

func (a *Analysis) caseViolation(h *history.History, c Case) checker.Violation {
	v := checker.Violation{Pattern: c.Name}
	for _, t := range c.Txns {
		v.Ops = append(v.Ops, a.Txns[t].Op)
	}
	v.Anomaly = &checker.Anomaly{Appends: a.Workload == ListAppend, Key: c.Key, Element: c.Element, Values: c.Values}
	if c.Mop >= 0 {
		v.Anomaly.Mop = a.Txns[c.Txns[0]].Mops[c.Mop].String()
	}
	return v
}
