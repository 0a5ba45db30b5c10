// Package adtref decides the weak consistency criteria of small histories
// of any model by brute force, straight from their definitions for
// abstract data types: weak causal consistency, causal consistency and
// causal convergence as Perrin, Mostéfaoui and Jard define them ("Causal
// consistency: beyond memory", PPoPP 2016), their pipelined consistency
// (PRAM), sequential consistency, and the session guarantees in the
// typed abstract-execution forms of Viotti and Vukolić ("Consistency in
// non-transactional distributed storage systems", ACM CSUR 2016; see
// session.go). It is the
// reference the fast engines are tested against, so it shares no code with
// them: of the project it uses only the models (their Compile and Step)
// and checker.Compile. Every decision is a plain enumeration whose
// completeness a comment argues; nothing is clever, and histories too large
// to enumerate are refused with ErrTooLarge.
//
// A history's events E are its operations that did not fail, process order
// ↦ orders each process's events as recorded. A sequence of events is in
// L(T) when stepping the model through it from its initial state accepts
// every event whose output is visible. Hidden steps are total, as Perrin
// et al.'s data types are complete (every input is allowed in every
// state): an event whose output is hidden is stepped with Op.Unknown set,
// so the model accepts any output and applies its effect, and when the
// model refuses it even so (an acquire of a held lock, a cas that finds
// another value, a write with a stale fencing token, a release by a client
// that does not hold the lock) the event returned that refusal and the
// state is unchanged. An operation of unknown outcome
// either took effect, and is then an event whose output is hidden
// everywhere, or did not, and is then removed; a history satisfies a
// criterion when some choice of which took effect does.
//
// A keyed model (model.Info.Keyed) describes one key; the object is then
// the product of independent keys, and a state holds one model state per
// key, each event stepping its own key's.
package adtref

import (
	"errors"
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// ErrTooLarge is returned for a history beyond the brute force's limits.
var ErrTooLarge = errors.New("adtref: history too large for the brute force")

// Limits of the brute force.
const (
	// MaxEvents bounds the operations that did not fail: the causal
	// orders and the total orders of 7 events are the most it enumerates
	// in reasonable time.
	MaxEvents = 7
	// MaxKeys bounds the keys of a keyed model (a state holds one model
	// state per key).
	MaxKeys = 3
)

// Criteria lists the criteria Decide knows.
var Criteria = []string{checker.Sequential, checker.CausalMemory, checker.CausalConvergence, checker.Causal,
	checker.PRAM, checker.WritesFollowReads, checker.MonotonicWrites, checker.MonotonicReads, checker.ReadYourWrites}

// Decide reports whether h satisfies criterion under the model m. The
// weak criteria need a model whose hidden steps are functions of the
// state; the unordered queue's hidden dequeue is not (it may remove any
// element), so it has sequential consistency only (see DecideNamed).
func Decide[S comparable](m model.Model[S], h *history.History, criterion string) (bool, error) {
	decide := decider[S](criterion)
	if decide == nil {
		return false, fmt.Errorf("adtref: unknown criterion %q (want one of %v)", criterion, Criteria)
	}
	base, err := prepare(m, h)
	if err != nil {
		return false, err
	}
	// Every subset of the operations of unknown outcome is tried as the
	// set of those that took effect: the definition's "some choice".
	unknown := base.unknown()
	for took := 0; took < 1<<len(unknown); took++ {
		if decide(base.without(unknown, took)) {
			return true, nil
		}
	}
	return false, nil
}

// decider returns the decision of criterion on one execution (a choice of
// the operations of unknown outcome made), or nil for an unknown name.
func decider[S comparable](criterion string) func(x *exec[S]) bool {
	switch criterion {
	case checker.Sequential:
		return (*exec[S]).sequential
	case checker.PRAM:
		return (*exec[S]).pram
	case checker.Causal:
		return (*exec[S]).causal
	case checker.CausalMemory:
		return (*exec[S]).causalMemory
	case checker.CausalConvergence:
		return (*exec[S]).causalConvergence
	case checker.ReadYourWrites, checker.MonotonicReads, checker.MonotonicWrites, checker.WritesFollowReads:
		return func(x *exec[S]) bool { return x.session(criterion) }
	}
	return nil
}

// mask is a set of events, by index.
type mask uint16

func (s mask) has(e int) bool { return s&(1<<e) != 0 }

// state is the object's state: one model state per key.
type state[S comparable] [MaxKeys]S

// event is one operation that did not fail.
type event struct {
	op   model.Op // compiled; Op.Unknown is set for an outcome unknown
	proc int      // its process, densely numbered
	key  int      // its key's index (0 for a model without keys)
	// update is set unless the model classes the operation a pure read
	// (model.ReadOp), which changes nothing.
	update bool
	// observes is set when the event's output is observed (see observes).
	observes bool
	// write is set when the model classes the operation a blind write
	// (model.WriteOp), which never observes.
	write bool
}

// exec is one execution: the events, in the history's order (so each
// process's events are in process order), and the initial state.
type exec[S comparable] struct {
	m     model.Model[S]
	init  state[S]
	ev    []event
	procs [][]int // per process, its events in process order
}

// prepare compiles h's operations that did not fail (nothing pruned: the
// brute force decides which operations of unknown outcome took effect).
func prepare[S comparable](m model.Model[S], h *history.History) (*exec[S], error) {
	if h == nil {
		return nil, errors.New("adtref: no history")
	}
	info := m.Info()
	c, err := checker.Compile(m, h, nil, nil, false)
	if err != nil {
		return nil, fmt.Errorf("adtref: model %s: %w", info.Name, err)
	}
	if len(c.Ops) > MaxEvents {
		return nil, fmt.Errorf("%w: %d operations that did not fail (at most %d)", ErrTooLarge, len(c.Ops), MaxEvents)
	}
	x := &exec[S]{m: m}
	keys := map[history.Value]int{}
	for i, pos := range c.Pos {
		o := &h.Ops[pos]
		k := 0
		if info.Keyed {
			var ok bool
			if k, ok = keys[o.Key]; !ok {
				k = len(keys)
				keys[o.Key] = k
			}
		}
		if k >= MaxKeys {
			return nil, fmt.Errorf("%w: more than %d keys", ErrTooLarge, MaxKeys)
		}
		class := info.ClassOf(o.F)
		x.ev = append(x.ev, event{op: c.Ops[i], proc: o.Process, key: k, update: class != model.ReadOp, write: class == model.WriteOp})
	}
	s := m.Init(c.Table)
	for k := range x.init {
		x.init[k] = s
	}
	return x.renumber(), nil
}

// renumber numbers the processes densely, lists each one's events and
// says which events observe.
func (x *exec[S]) renumber() *exec[S] {
	defer x.observes()
	dense := map[int]int{}
	x.procs = nil
	for e := range x.ev {
		p, ok := dense[x.ev[e].proc]
		if !ok {
			p = len(x.procs)
			dense[x.ev[e].proc] = p
			x.procs = append(x.procs, nil)
		}
		x.ev[e].proc = p
		x.procs[p] = append(x.procs[p], e)
	}
	return x
}

// unknown lists the events of unknown outcome.
func (x *exec[S]) unknown() []int {
	var out []int
	for e := range x.ev {
		if x.ev[e].op.Unknown {
			out = append(out, e)
		}
	}
	return out
}

// without returns the execution in which, of the events in unknown, those
// whose bit is clear in took did not take effect and are removed.
func (x *exec[S]) without(unknown []int, took int) *exec[S] {
	gone := map[int]bool{}
	for j, e := range unknown {
		gone[e] = took&(1<<j) == 0
	}
	y := &exec[S]{m: x.m, init: x.init}
	for e := range x.ev {
		if !gone[e] {
			y.ev = append(y.ev, x.ev[e])
		}
	}
	return y.renumber()
}

// all is the set of every event.
func (x *exec[S]) all() mask { return mask(1)<<len(x.ev) - 1 }

// po reports a ↦ b: a precedes b in their process (events are in the
// history's order, which keeps each process's).
func (x *exec[S]) po(a, b int) bool { return a < b && x.ev[a].proc == x.ev[b].proc }

// ofProc is the set of process p's events.
func (x *exec[S]) ofProc(p int) mask {
	var s mask
	for _, e := range x.procs[p] {
		s |= 1 << e
	}
	return s
}

// step applies event e to s, its output checked only when visible (an
// event of unknown outcome is hidden whatever visible says). A hidden step
// is total: when the model refuses the event, the event returned the
// refusal and s is unchanged.
func (x *exec[S]) step(s state[S], e int, visible bool) (state[S], bool) {
	op := x.ev[e].op
	if !visible {
		op.Unknown = true
	}
	k := x.ev[e].key
	next, ok := x.m.Step(s[k], &op)
	if !ok {
		return s, op.Unknown
	}
	s[k] = next
	return s, true
}

// legal reports whether the sequence seq is in L(T) with the outputs of
// the events in visible checked and every other output hidden.
func (x *exec[S]) legal(seq []int, visible mask) bool {
	s := x.init
	for _, e := range seq {
		var ok bool
		if s, ok = x.step(s, e, visible.has(e)); !ok {
			return false
		}
	}
	return true
}

// someOrder reports whether some sequence of the events in set that
// respects before (lin(set, before)) is in L(T) with the outputs of the
// events in visible checked. It tries every such sequence, extending a
// prefix by each event whose predecessors in set are all placed; a
// prefix that failed is remembered by the events it placed and the state
// it reached, which are all that the rest of the sequence depends on.
func (x *exec[S]) someOrder(set mask, before func(a, b int) bool, visible mask) bool {
	type key struct {
		placed mask
		s      state[S]
	}
	failed := map[key]bool{}
	var extend func(placed mask, s state[S]) bool
	extend = func(placed mask, s state[S]) bool {
		if placed == set {
			return true
		}
		if failed[key{placed, s}] {
			return false
		}
		for e := range x.ev {
			if !set.has(e) || placed.has(e) || x.waits(set&^placed, e, before) {
				continue
			}
			if t, ok := x.step(s, e, visible.has(e)); ok && extend(placed|1<<e, t) {
				return true
			}
		}
		failed[key{placed, s}] = true
		return false
	}
	return extend(0, x.init)
}

// waits reports whether an event of rest other than e must precede e.
func (x *exec[S]) waits(rest mask, e int, before func(a, b int) bool) bool {
	for a := range x.ev {
		if a != e && rest.has(a) && before(a, e) {
			return true
		}
	}
	return false
}

// eachOrder calls f with every total order of all the events that
// respects before, as a sequence, until f returns true; it reports
// whether one did. It places, at each position, each event whose
// predecessors are all placed, so it produces every such order once.
func (x *exec[S]) eachOrder(before func(a, b int) bool, f func(seq []int) bool) bool {
	seq := make([]int, 0, len(x.ev))
	var extend func(placed mask) bool
	extend = func(placed mask) bool {
		if placed == x.all() {
			return f(seq)
		}
		for e := range x.ev {
			if placed.has(e) || x.waits(x.all()&^placed, e, before) {
				continue
			}
			seq = append(seq, e)
			ok := extend(placed | 1<<e)
			seq = seq[:len(seq)-1]
			if ok {
				return true
			}
		}
		return false
	}
	return extend(0)
}

// sequential: some sequence in lin(E, ↦) with every output visible is in
// L(T).
func (x *exec[S]) sequential() bool {
	return x.someOrder(x.all(), x.po, x.all())
}

// pram: for every process p, some sequence in lin(E, ↦) with only p's
// outputs visible is in L(T).
func (x *exec[S]) pram() bool {
	for p := range x.procs {
		if !x.someOrder(x.all(), x.po, x.ofProc(p)) {
			return false
		}
	}
	return true
}

// observes marks the events whose output is observed, for the session
// guarantees' typed forms: an event observes unless the model classes it a
// blind write (model.WriteOp), its outcome is unknown (its output is hidden
// everywhere), or every state it may be stepped in accepts it with its
// output visible (it returns nothing that depends on the state: an append,
// an enqueue, an add, a read the model accepts whatever it returns, as a
// read of nil under model.NilIsAny). The states it may be stepped in are
// those a context can reach: the states that sequences of distinct events
// reach from the initial state, outputs hidden.
func (x *exec[S]) observes() {
	reached := x.reachable()
	for e := range x.ev {
		ev := &x.ev[e]
		ev.observes = false
		if ev.write || ev.op.Unknown {
			continue
		}
		for _, s := range reached {
			if _, ok := x.step(s, e, true); !ok {
				ev.observes = true
				break
			}
		}
	}
}

// reachable lists the states that sequences of distinct events reach from
// the initial state, outputs hidden.
func (x *exec[S]) reachable() []state[S] {
	type node struct {
		placed mask
		s      state[S]
	}
	seen := map[node]bool{{0, x.init}: true}
	states := map[state[S]]bool{x.init: true}
	queue := []node{{0, x.init}}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for e := range x.ev {
			if n.placed.has(e) {
				continue
			}
			t, _ := x.step(n.s, e, false)
			next := node{n.placed | 1<<e, t}
			if !seen[next] {
				seen[next] = true
				states[t] = true
				queue = append(queue, next)
			}
		}
	}
	out := make([]state[S], 0, len(states))
	for s := range states {
		out = append(out, s)
	}
	return out
}
