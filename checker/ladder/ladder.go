// Package ladder combines the verdicts of several criteria for one history:
// it propagates the implications between consistency models (a pass flows
// down to weaker models, a failure up to stronger ones) and reports, as Elle
// does, the strongest models the history satisfies and the weakest it
// violates, plus the full table.
//
// The implication edges hold for differentiated read/write histories under
// the definitions of packages causal and session (docs/weak-models.md); the
// tests check each edge against the brute-force deciders of package
// weakref on thousands of random histories, crashed writes included. The
// session guarantees share one write order among all sessions (Terry et
// al.; Viotti and Vukolić), while PRAM and causal memory give each process
// its own view, so: linearizable ⇒ sequential ⇒ causal memory, causal
// convergence and PRAM; causal memory ⇒ causal and PRAM; causal
// convergence ⇒ causal and every session guarantee; causal ⇒
// writes-follow-reads (its write-order constraints lie in the causal
// order); PRAM ⇒ monotonic writes.
//
// Under the weak criteria's definitions for any model (docs/weak-models.md,
// checked by the brute force of package internal/adtref on random
// histories of every model), every edge holds but two, causal ⇒
// writes-follow-reads and PRAM ⇒ monotonic writes: they hold for
// read/write registers only (Edge.MemoryOnly), and BuildAny, for the
// histories of other models, leaves them out; causal convergence ⇒
// writes-follow-reads, redundant for registers, holds for every model.
//
// Not edges (each has a counterexample in the tests or the textbook
// histories): causal, causal memory and PRAM ⇏ read-your-writes or
// monotonic reads (each process may order concurrent writes its own way,
// one write order for all sessions may not exist); causal ⇏ PRAM; PRAM ⇏
// causal or writes-follow-reads; the four session guarantees ⇏ PRAM;
// causal memory and causal convergence are incomparable; causal
// convergence ⇏ PRAM. Without versions, monotonic writes fails only on a
// read of a value nobody wrote, so every criterion here implies it then;
// with versions it does not, and the ladder uses only edges that hold
// either way.
package ladder

import (
	"fmt"
	"sort"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/checker/isolation"
)

// Edge is an implication: a history that satisfies Strong satisfies Weak.
type Edge struct {
	Strong, Weak string
	// MemoryOnly marks an edge that holds for read/write-register
	// histories (reads, writes and cas, whose models class every
	// operation model.ReadOp, model.WriteOp or model.CASOp) but not under
	// the weak criteria's definitions for any model (docs/weak-models.md):
	// there the session guarantees' one arbitration order must explain
	// every session's observations, and operations that do not commute
	// (appends, a mutex's acquires and releases) can make that impossible
	// where per-process views or causal pasts succeed. BuildAny leaves
	// such edges out.
	MemoryOnly bool
}

// Implies lists the implication edges between the non-transactional
// criteria.
func Implies() []Edge {
	return append([]Edge(nil), baseEdges...)
}

// IsolationImplies lists the implication edges between the isolation
// levels (package elle's table).
func IsolationImplies() []Edge {
	return isolationEdges()
}

// edges are the implications between the non-transactional criteria, then
// those between the isolation levels (package elle's table); the two
// families share no edge.
var edges = append(baseEdges, isolationEdges()...)

// criteria are every criterion the ladder places, strongest first in each
// family.
var criteria = append(append(append([]string(nil), checker.AllCriteria...), elle.Levels...), isolation.Added...)

func isolationEdges() []Edge {
	var out []Edge
	for _, l := range elle.Levels {
		for _, w := range elle.Implies[l] {
			out = append(out, Edge{Strong: l, Weak: w})
		}
	}
	// The levels decided from commit orders (package isolation) hang
	// below snapshot isolation, which Elle's table places.
	for _, l := range isolation.Levels {
		for _, w := range isolation.Implies[l] {
			out = append(out, Edge{Strong: l, Weak: w})
		}
	}
	return out
}

var baseEdges = []Edge{
	{Strong: checker.Linearizable, Weak: checker.Sequential},
	{Strong: checker.Sequential, Weak: checker.CausalMemory},
	{Strong: checker.Sequential, Weak: checker.CausalConvergence},
	{Strong: checker.Sequential, Weak: checker.PRAM},
	{Strong: checker.CausalMemory, Weak: checker.Causal},
	{Strong: checker.CausalConvergence, Weak: checker.Causal},
	{Strong: checker.CausalMemory, Weak: checker.PRAM},
	// Memory only: on kv with appends, A: append(x a) read(x ab);
	// B: append(x b) read(x ba) is causal (each read's causal past holds
	// both appends, in the order it read) but no one arbitration order
	// gives the two reads and every later update of their sessions.
	{Strong: checker.Causal, Weak: checker.WritesFollowReads, MemoryOnly: true},
	{Strong: checker.CausalConvergence, Weak: checker.ReadYourWrites},
	{Strong: checker.CausalConvergence, Weak: checker.MonotonicReads},
	{Strong: checker.CausalConvergence, Weak: checker.MonotonicWrites},
	// Redundant on memory (through causal), and the way every model gets
	// writes-follow-reads from causal convergence: ar is the total order,
	// vis the causal order.
	{Strong: checker.CausalConvergence, Weak: checker.WritesFollowReads},
	// Memory only: the appends above are PRAM (each process's view puts
	// the other's append where its read needs it) but not monotonic
	// writes; and on a mutex, A: release() acquire(); B: release()
	// acquire() is PRAM (each view puts the other's acquire before its
	// own release) but no one arbitration order has each release after
	// the other process's acquire while keeping each session's order.
	{Strong: checker.PRAM, Weak: checker.MonotonicWrites, MemoryOnly: true},
}

// Row is one criterion's line in the ladder.
type Row struct {
	Criterion string          `json:"consistency"`
	Valid     checker.Verdict `json:"valid"`
	// Computed is set when a checker decided the verdict; otherwise it was
	// derived (or is still unknown).
	Computed bool `json:"computed"`
	// DerivedFrom names the criterion whose verdict implied this one.
	DerivedFrom string `json:"derived_from,omitempty"`
	// Note reports a computed verdict that contradicts an implication.
	Note string `json:"note,omitempty"`
}

// Ladder is the combined outcome for one history.
type Ladder struct {
	Table []Row `json:"table"`
	// Strongest are the satisfied criteria no satisfied criterion implies.
	Strongest []string `json:"strongest"`
	// Weakest are the violated criteria that imply no violated criterion.
	Weakest []string `json:"weakest"`
}

// Build propagates the implications through the computed results (keyed by
// criterion name) of a read/write-register history and returns the ladder.
// Computed verdicts are never overwritten; when they contradict an
// implication, the row says so.
func Build(results map[string]checker.Result) Ladder {
	return build(results, edges)
}

// BuildAny is Build for a history of any model: it leaves out the edges
// that hold for read/write registers only (Edge.MemoryOnly).
func BuildAny(results map[string]checker.Result) Ladder {
	var general []Edge
	for _, e := range edges {
		if !e.MemoryOnly {
			general = append(general, e)
		}
	}
	return build(results, general)
}

func build(results map[string]checker.Result, edges []Edge) Ladder {
	rows, names, extra := computedRows(results)
	propagate(rows, edges)
	noteContradictions(rows, edges)
	var l Ladder
	for _, c := range criteria {
		if r := rows[c]; r.Computed || r.Valid != checker.Unknown || contains(names, c) {
			l.Table = append(l.Table, *r)
		}
	}
	for _, c := range extra {
		l.Table = append(l.Table, *rows[c])
	}
	l.Strongest, l.Weakest = extremes(l.Table, rows, edges)
	return l
}

// computedRows returns a row per criterion of results, with its verdict
// (names lists them, the known criteria in ladder order, then extra, the
// others by name), and an empty row for every known criterion that only
// propagation can fill.
func computedRows(results map[string]checker.Result) (rows map[string]*Row, names, extra []string) {
	rows = map[string]*Row{}
	for _, c := range criteria {
		if _, ok := results[c]; ok {
			names = append(names, c)
		}
	}
	for c := range results {
		if !contains(criteria, c) {
			extra = append(extra, c)
		}
	}
	sort.Strings(extra)
	names = append(names, extra...)
	for _, c := range names {
		res := results[c]
		rows[c] = &Row{Criterion: c, Valid: res.Valid, Computed: res.Valid != checker.Unknown}
	}
	// Rows for criteria that only propagation can fill, in ladder order.
	for _, c := range criteria {
		if _, ok := rows[c]; !ok {
			rows[c] = &Row{Criterion: c}
		}
	}
	return rows, names, extra
}

// propagate fills unknown verdicts along the edges, to a fixpoint: a pass
// flows down to weaker criteria, a failure up to stronger ones.
func propagate(rows map[string]*Row, edges []Edge) {
	for changed := true; changed; {
		changed = false
		for _, e := range edges {
			s, w := rows[e.Strong], rows[e.Weak]
			if s.Valid == checker.True && w.Valid == checker.Unknown {
				w.Valid, w.DerivedFrom, changed = checker.True, e.Strong, true
			}
			if w.Valid == checker.False && s.Valid == checker.Unknown {
				s.Valid, s.DerivedFrom, changed = checker.False, e.Weak, true
			}
		}
	}
}

// noteContradictions marks the computed failures that a computed pass
// implies should hold.
func noteContradictions(rows map[string]*Row, edges []Edge) {
	for _, e := range edges {
		s, w := rows[e.Strong], rows[e.Weak]
		if s.Valid == checker.True && w.Valid == checker.False && s.Computed && w.Computed {
			w.Note = fmt.Sprintf("contradicts %s = true, which implies %s; both verdicts were computed and are kept", e.Strong, e.Weak)
		}
	}
}

// extremes returns the satisfied criteria of table no satisfied criterion
// implies, and the violated ones that imply no violated criterion.
func extremes(table []Row, rows map[string]*Row, edges []Edge) (strongest, weakest []string) {
	stronger := closure(edges, true)
	weaker := closure(edges, false)
	for _, r := range table {
		switch r.Valid {
		case checker.True:
			if !anyIs(stronger[r.Criterion], rows, checker.True) {
				strongest = append(strongest, r.Criterion)
			}
		case checker.False:
			if !anyIs(weaker[r.Criterion], rows, checker.False) {
				weakest = append(weakest, r.Criterion)
			}
		}
	}
	return strongest, weakest
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func anyIs(cs []string, rows map[string]*Row, v checker.Verdict) bool {
	for _, c := range cs {
		if r, ok := rows[c]; ok && r.Valid == v {
			return true
		}
	}
	return false
}

// closure maps each criterion to all strictly stronger (up) or weaker
// criteria, through chains of edges.
func closure(edges []Edge, up bool) map[string][]string {
	next := map[string][]string{}
	for _, e := range edges {
		if up {
			next[e.Weak] = append(next[e.Weak], e.Strong)
		} else {
			next[e.Strong] = append(next[e.Strong], e.Weak)
		}
	}
	out := map[string][]string{}
	for _, c := range criteria {
		seen := map[string]bool{}
		stack := append([]string(nil), next[c]...)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[x] {
				continue
			}
			seen[x] = true
			out[c] = append(out[c], x)
			stack = append(stack, next[x]...)
		}
	}
	return out
}
