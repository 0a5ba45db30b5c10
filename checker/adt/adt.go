// Package adt decides the weak criteria for any sequential specification
// (any model.Model): weak causal consistency ("causal"), causal
// consistency ("causal-memory") and causal convergence as Perrin,
// Mostéfaoui and Jard define them for abstract data types ("Causal
// consistency: beyond memory", PPoPP 2016), pipelined consistency
// ("pram") and the session guarantees as abstract executions (Viotti and
// Vukolić; see session.go). The register checkers (checker/causal, checker/session)
// decide the same criteria for reads and writes in polynomial time; this
// package works from the model's steps alone, so sets, queues, counters,
// locks and appends get them too.
//
// # Definitions
//
// The events are the operations that did not fail; process order ↦ keeps
// each process's operations in their recorded order. A sequence of events
// is accepted when the model steps through it from its initial state; an
// event whose output is hidden is stepped with its outcome unknown (any
// output, the same effect), and such a step is total: when the model
// refuses it even so (an acquire of a held lock), the event returned the
// refusal and the state is unchanged. A causal order → is a strict partial order
// that contains ↦; ⌊e⌋ is e with the events before it.
//   - causal: some →, such that for every e some sequence of ⌊e⌋ that
//     respects →, with only e's output visible, is accepted;
//   - causal-memory: the same with the outputs of e's whole process
//     visible;
//   - causal-convergence: some → and one total order ≤ that contains it,
//     such that for every e, ⌊e⌋ in the order ≤, with only e's output
//     visible, is accepted;
//   - pram: for every process, some sequence of all events that keeps
//     every process's order, with only that process's outputs visible, is
//     accepted;
//   - the session guarantees, in their typed forms over a total order ar
//     and a visibility vis ⊆ ar (each event accepted after the events it
//     sees, in ar order, its own output alone visible): read-your-writes
//     ↦[update→observation] ⊆ vis, monotonic-reads
//     vis;↦[observation→observation] ⊆ vis, monotonic-writes
//     ↦[update→update] ⊆ ar, writes-follow-reads
//     vis;↦[observation→update] ⊆ ar. Updates are the operations the
//     model does not class pure reads; observations, those whose output
//     some reachable state refuses (see observe.go).
//
// An operation of unknown outcome either took effect (an event whose
// output is hidden everywhere) or did not (no event at all); a history
// satisfies a criterion when one choice for all of them does.
//
// # Search
//
// A sequential witness is a witness of every criterion, so Check asks the
// sequential checker first, within a share of the budget. Otherwise the
// causal criteria are searched exactly: events are committed one at a
// time, each with a causal past made of committed events (a vector clock,
// closed under the pasts it contains), and a past is kept only when a
// sequence of it explains the event's output; configurations that failed
// are memoised. pram is one search per process, over the choices of which
// updates of unknown outcome took effect. monotonic-writes searches the
// order of the updates, each process's kept; the other session
// guarantees first look, within half the budget left, for a
// causal-convergence witness, which is one of every session guarantee,
// then search ar in any order their form allows (typed.go).
// A sequential witness counts only when it replays with outputs hidden,
// which a model whose hidden operations take an effect of their own
// (the unordered queue's dequeue) need not do. Every search counts its nodes
// against Options.MaxNodes: past it, or past ctx's deadline, the verdict
// is unknown. The problems are NP-complete; the budget keeps the answer
// deterministic.
package adt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Options tune Check.
type Options struct {
	// MaxNodes bounds the nodes the searches explore; 0 means
	// DefaultMaxNodes, negative no bound. A bound in steps, unlike a
	// deadline, gives the same verdict on every machine.
	MaxNodes int64
	// NoSequentialFirst skips the sequential witness, so that the verdict
	// comes from the criterion's own search.
	NoSequentialFirst bool
}

// DefaultMaxNodes is the nodes a check explores unless Options say
// otherwise.
const DefaultMaxNodes = 1_000_000

// Criteria are the criteria Check decides, strongest first.
var Criteria = []string{checker.CausalMemory, checker.CausalConvergence, checker.Causal, checker.PRAM,
	checker.WritesFollowReads, checker.MonotonicWrites, checker.MonotonicReads, checker.ReadYourWrites}

// Methods, as put in checker.Result.Method.
const (
	MethodSequential = "sequential-witness"
	MethodCausal     = "causal-search"
	MethodPRAM       = "pram-search"
	MethodSession    = "arbitration-search"
	// MethodConvergence: a causal-convergence witness, which is one of
	// every session guarantee (vis the causal order, ar its total order),
	// found when the arbitration search spent its share of the budget.
	MethodConvergence = "causal-convergence-witness"
)

// Patterns of the violations Check reports.
const (
	// PatternNoPast: no causal order explains every output. Op is an
	// operation whose output no causal past explains after Prefix, the
	// longest commit order the search reached; Stuck lists what could be
	// committed next there (Legal: some past explained it, but the search
	// failed further on).
	PatternNoPast = "no-causal-past"
	// PatternNoView: Session's process has no view that keeps every
	// process's order and explains its outputs. Prefix is the longest
	// legal start of one found, Stuck what could not follow it.
	PatternNoView = "no-process-view"
	// PatternUnexplained: no sequence of any operations (keeping only
	// each process's order, Op's own earlier operations all in it) makes
	// Op's output legal, so no causal past of Op explains it. Stuck holds
	// what the model says of Op in the initial state, when it is illegal
	// there.
	PatternUnexplained = "unexplained-output"
	// PatternNoArbitration: no arbitration order (read-your-writes,
	// monotonic-writes) explains every output. Prefix is the longest
	// start of one found, Stuck what could not follow it.
	PatternNoArbitration = "no-arbitration"
)

// Check decides criterion (one of Criteria) for h under m. The error is
// non-nil only for an unknown criterion or input the model rejects; a
// spent budget or an ended ctx gives an unknown verdict with a Reason.
func Check[S comparable](ctx context.Context, m model.Model[S], h *history.History, criterion string, opts Options) (checker.Result, error) {
	start := time.Now()
	if !known(criterion) {
		return checker.Result{}, fmt.Errorf("adt: unknown criterion %q (want one of %v)", criterion, Criteria)
	}
	if h == nil {
		return checker.Result{}, errors.New("adt: no history")
	}
	maxNodes := opts.MaxNodes
	if maxNodes == 0 {
		maxNodes = DefaultMaxNodes
	}
	p, err := newProblem(ctx, m, h, maxNodes)
	if err != nil {
		return checker.Result{}, err
	}
	res := checker.Result{Criterion: criterion}
	done := false
	if !opts.NoSequentialFirst {
		res, done, err = sequentialFirst(ctx, p, m, criterion, maxNodes)
		if err != nil {
			return res, err
		}
	}
	if !done {
		res = decide(p, criterion, m.Info().Name)
	}
	res.Criterion = criterion
	res.Stats.Ops, res.Stats.Partitions = len(p.c.Ops), 1
	res.Stats.States += p.budget.n
	res.Elapsed = time.Since(start)
	return res, nil
}

func known(criterion string) bool {
	for _, c := range Criteria {
		if c == criterion {
			return true
		}
	}
	return false
}

// decide runs the criterion's own search.
func decide[S comparable](p *problem[S], criterion, modelName string) checker.Result {
	if criterion == checker.ReadYourWrites || criterion == checker.WritesFollowReads || criterion == checker.MonotonicReads {
		return decideSession(p, criterion, modelName)
	}
	if criterion == checker.MonotonicWrites {
		s := newSessionSearch(p)
		ok, err := s.run()
		if err != nil {
			return unknown(p, MethodSession, err)
		}
		if !ok {
			return sessionViolation(p, s, criterion, modelName)
		}
		res, err := sessionWitness(p, s)
		if err != nil {
			return unknown(p, MethodSession, err)
		}
		return res
	}
	if criterion == checker.PRAM {
		s := newPramSearch(p)
		ok, err := s.run()
		if err != nil {
			return unknown(p, MethodPRAM, err)
		}
		if ok {
			return pramWitness(p, s)
		}
		return pramViolation(p, s, modelName)
	}
	s := newCausalSearch(p, criterion)
	ok, err := s.run()
	if err != nil {
		return unknown(p, MethodCausal, err)
	}
	if ok {
		return causalWitness(p, s)
	}
	return causalViolation(p, s, criterion, modelName)
}

// unknown is the verdict of a search the budget or the context ended.
func unknown[S comparable](p *problem[S], method string, err error) checker.Result {
	r := checker.Result{Method: method}
	if errors.Is(err, errBudget) {
		r.Reason = fmt.Sprintf("the search explored its budget of %d nodes without a verdict", p.budget.max)
	} else {
		r.Reason = "the search was interrupted: " + err.Error()
	}
	return r
}

// sequentialFirst asks the sequential checker for a witness, within half
// the budget; a sequential order is a witness of every criterion here.
func sequentialFirst[S comparable](ctx context.Context, p *problem[S], m model.Model[S], criterion string, maxNodes int64) (checker.Result, bool, error) {
	seqNodes := maxNodes / 2
	if maxNodes < 0 {
		seqNodes = 0
	}
	sr, err := sequential.Check(ctx, m, p.h, sequential.Options{NoLinearFirst: true, MaxNodes: seqNodes})
	if err != nil {
		return checker.Result{}, false, err
	}
	if sr.Valid != checker.True {
		return checker.Result{}, false, nil
	}
	res := checker.Result{Valid: checker.True, Method: MethodSequential, Witness: sr.Witness,
		Reason: "the history is sequentially consistent, and a sequential order is a witness of " + criterion}
	res.Stats.States = sr.Stats.States
	res.Dropped = missing(p, sr.Witness)
	// With every output but some hidden, an operation whose outcome the
	// model fixes when unknown (the unordered queue's dequeue takes its
	// least element) may no longer replay: then search.
	if err := VerifyWitness(m, p.h, criterion, res); err != nil {
		return checker.Result{}, false, nil
	}
	return res, true, nil
}

// missing lists the positions of events that are not in w: operations
// of unknown outcome that took no effect.
func missing[S comparable](p *problem[S], w []int) []int {
	in := map[int]bool{}
	for _, pos := range w {
		in[pos] = true
	}
	var out []int
	for _, pos := range p.c.Pos {
		if !in[pos] {
			out = append(out, pos)
		}
	}
	return out
}

// decideTyped decides read-your-writes or writes-follow-reads by the
// typed search. Events whose class the search for a refusing state left
// unsure are taken as observations first (more constraints: a witness
// then is one), then as not (fewer: a refutation then is one); when the
// two disagree the verdict is unknown.
func decideTyped[S comparable](p *problem[S], criterion, modelName string) checker.Result {
	obs, unsure := p.observations()
	strict := append([]bool(nil), obs...)
	anyUnsure := false
	for e, u := range unsure {
		strict[e] = strict[e] || u
		anyUnsure = anyUnsure || u
	}
	s := newTypedSearch(p, criterion, strict)
	ok, err := s.run()
	if err != nil {
		return unknown(p, MethodSession, err)
	}
	if ok {
		res, err := typedWitness(p, s)
		if err != nil {
			return unknown(p, MethodSession, err)
		}
		return res
	}
	if !anyUnsure {
		return typedViolation(p, s, criterion, modelName)
	}
	loose := newTypedSearch(p, criterion, obs)
	ok, err = loose.run()
	if err != nil {
		return unknown(p, MethodSession, err)
	}
	if !ok {
		return typedViolation(p, loose, criterion, modelName)
	}
	return checker.Result{Method: MethodSession, Reason: ReasonUnsure}
}

// ReasonUnsure is the Reason of a session guarantee left unknown because
// it holds or fails depending on whether some operations observe (their
// output could be refused in a state some context reaches), which the
// search for such a state could not settle within its bound.
const ReasonUnsure = "the verdict depends on whether some operations observe the state, which the search for a state that refuses them could not settle"

// decideSession first looks, within half the budget left, for a
// causal-convergence witness, which is one of every session guarantee (its
// causal order as vis, its total order as ar): most histories that keep a
// session guarantee are causally convergent, and that search is usually
// far cheaper than the guarantee's own. Otherwise the typed search decides
// with the rest; the verdict is unknown only when neither settles it.
func decideSession[S comparable](p *problem[S], criterion, modelName string) checker.Result {
	b := p.budget
	full := b.max
	if full > 0 {
		b.max = b.n + (full-b.n)/2
	}
	conv := decide(p, checker.CausalConvergence, modelName)
	b.max, b.cause = full, nil
	if conv.Valid == checker.True {
		return convergenceWitness(conv, criterion)
	}
	return decideTyped(p, criterion, modelName)
}

// convergenceWitness turns a causal-convergence witness into the witness
// of a session guarantee: its causal order as vis, its total order as ar.
func convergenceWitness(conv checker.Result, criterion string) checker.Result {
	conv.Method = MethodConvergence
	conv.Reason = "causal convergence holds, and its causal order and total order are a witness of " + criterion
	return conv
}
