package adt

import (
	"context"
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// VerifyWitness checks, independently of the searches, that res (Valid
// True, from Check) is a witness of criterion for h under m: its events
// are the operations that did not fail less res.Dropped (operations of
// unknown outcome only); for the causal criteria each event has one view,
// its causal past ending with itself, the pasts contain process order and
// are closed (so that "a is in b's view" is a causal order), each view
// lists its past in an order that respects it (for causal-convergence,
// the order res.Witness, which contains every past), and the model
// accepts each view with the outputs the criterion shows; for pram each
// process's view holds every event in an order that keeps every
// process's order and the model accepts it with that process's outputs.
// A result without views has one total order as Witness, every event
// once in an order that keeps each process's order, in which each event
// sees every event before it (and each process's view is the whole).
// For the session guarantees res.Witness is the
// arbitration order ar, every event once, and each event's view lists
// the events visible to it, in ar order and before it in ar, itself
// last, accepted with its output alone visible (hidden steps total);
// read-your-writes wants every earlier update of an observation's process
// in its view, monotonic-writes each process's updates in their order in
// ar, monotonic-reads an observation's view within its process's later
// observations' views, writes-follow-reads it before its process's later
// updates in ar (observations as the search classes them, counting the
// operations it could not class).
// It returns nil or an error that says which condition broke first.
func VerifyWitness[S comparable](m model.Model[S], h *history.History, criterion string, res checker.Result) error {
	v, err := newVerifier(m, h, res.Dropped)
	if err != nil {
		return err
	}
	if len(res.Views) == 0 {
		return v.totalOrder(res.Witness, criterion)
	}
	if criterion == checker.PRAM {
		return v.pram(res.Views)
	}
	switch criterion {
	case checker.ReadYourWrites, checker.MonotonicWrites, checker.MonotonicReads, checker.WritesFollowReads:
		return v.session(res.Witness, res.Views, criterion)
	}
	pasts, err := v.pasts(res.Views)
	if err != nil {
		return err
	}
	if criterion == checker.CausalConvergence {
		if err := v.total(res.Witness, pasts); err != nil {
			return err
		}
	}
	for e, order := range pasts {
		if err := v.replay(order, criterion, e); err != nil {
			return err
		}
	}
	return nil
}

type verifier[S comparable] struct {
	m      model.Model[S]
	h      *history.History
	t      *model.Table
	ops    map[int]model.Op // position -> compiled operation, for the events
	events map[int]bool
}

func newVerifier[S comparable](m model.Model[S], h *history.History, dropped []int) (*verifier[S], error) {
	c, err := checker.Compile(m, h, nil, nil, false)
	if err != nil {
		return nil, err
	}
	v := &verifier[S]{m: m, h: h, t: c.Table, ops: map[int]model.Op{}, events: map[int]bool{}}
	for i, pos := range c.Pos {
		v.ops[pos] = c.Ops[i]
		v.events[pos] = true
	}
	for _, d := range dropped {
		if d < 0 || d >= len(h.Ops) || h.Ops[d].Status != history.Info {
			return nil, fmt.Errorf("the witness drops operation %d, which is not of unknown outcome", d)
		}
		delete(v.events, d)
	}
	return v, nil
}

// pasts checks the causal views and returns each event's view.
func (v *verifier[S]) pasts(views []checker.View) (map[int][]int, error) {
	out := map[int][]int{}
	for _, w := range views {
		if !v.events[w.Op] || len(w.Order) == 0 || w.Order[len(w.Order)-1] != w.Op {
			return nil, fmt.Errorf("the view of operation %d does not end with it, or it is no event", w.Op)
		}
		if _, dup := out[w.Op]; dup {
			return nil, fmt.Errorf("%s has two views", v.h.Ops[w.Op].Label())
		}
		out[w.Op] = w.Order
	}
	for e := range v.events {
		if _, ok := out[e]; !ok {
			return nil, fmt.Errorf("%s has no view", v.h.Ops[e].Label())
		}
	}
	for e, order := range out {
		if err := v.pastOf(e, order, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pastOf checks one causal past: events once each, every earlier event
// of e's process in it, closed, and in an order that respects the pasts.
func (v *verifier[S]) pastOf(e int, order []int, all map[int][]int) error {
	at := map[int]int{}
	for i, x := range order {
		if !v.events[x] {
			return fmt.Errorf("the past of %s holds operation %d, which is no event", v.h.Ops[e].Label(), x)
		}
		if _, dup := at[x]; dup {
			return fmt.Errorf("the past of %s holds %s twice", v.h.Ops[e].Label(), v.h.Ops[x].Label())
		}
		at[x] = i
	}
	for x := range v.events {
		if x < e && v.h.Ops[x].Process == v.h.Ops[e].Process {
			if _, ok := at[x]; !ok {
				return fmt.Errorf("the past of %s lacks %s, earlier in its process", v.h.Ops[e].Label(), v.h.Ops[x].Label())
			}
		}
	}
	for x, i := range at {
		for _, y := range all[x][:len(all[x])-1] {
			j, ok := at[y]
			if !ok || j >= i {
				return fmt.Errorf("the past of %s has %s but not %s before it, which %s has seen",
					v.h.Ops[e].Label(), v.h.Ops[x].Label(), v.h.Ops[y].Label(), v.h.Ops[x].Label())
			}
		}
	}
	return nil
}

// total checks that w orders every event once and every past in it.
func (v *verifier[S]) total(w []int, pasts map[int][]int) error {
	at := map[int]int{}
	for i, x := range w {
		if !v.events[x] {
			return fmt.Errorf("the total order holds operation %d, which is no event", x)
		}
		at[x] = i
	}
	if len(at) != len(v.events) || len(w) != len(at) {
		return fmt.Errorf("the total order does not list every event once")
	}
	for e, order := range pasts {
		for i := 1; i < len(order); i++ {
			if at[order[i-1]] >= at[order[i]] {
				return fmt.Errorf("the past of %s is not in the total order", v.h.Ops[e].Label())
			}
		}
	}
	return nil
}

// replay steps order through the model, one state per key, with the
// outputs of criterion's visible events: of e alone (causal,
// causal-convergence), of e's process (causal-memory, pram).
func (v *verifier[S]) replay(order []int, criterion string, e int) error {
	states := v.states()
	for n, x := range order {
		s := states.get(x)
		op := v.ops[x]
		shown := x == e || ((criterion == checker.CausalMemory || criterion == checker.PRAM) &&
			v.h.Ops[x].Process == v.h.Ops[e].Process)
		op.Unknown = op.Unknown || !shown
		next, legal := v.m.Step(s, &op)
		if !legal && op.Unknown {
			// A hidden step is total: a refused event returned the
			// refusal and left the state as it was.
			next, legal = s, true
		}
		if !legal {
			return fmt.Errorf("the view of %s: step %d, %s, is illegal in state %s",
				v.h.Ops[e].Label(), n+1, v.h.Ops[x].Label(), v.m.Describe(s, v.t))
		}
		states.set(x, next)
	}
	return nil
}

// pram checks one view per process that has events: every event once,
// each process's order kept, accepted with the process's outputs.
func (v *verifier[S]) pram(views []checker.View) error {
	procs := map[int]bool{}
	for e := range v.events {
		procs[v.h.Ops[e].Process] = true
	}
	for _, w := range views {
		p := v.h.Ops[w.Op].Process
		if !w.Process || !procs[p] {
			return fmt.Errorf("view %d is not one of a process with events, or is given twice", w.Op)
		}
		delete(procs, p)
		if err := v.pramView(w); err != nil {
			return err
		}
	}
	if len(procs) > 0 {
		return fmt.Errorf("a process has no view")
	}
	return nil
}

func (v *verifier[S]) pramView(w checker.View) error {
	seen := map[int]bool{}
	last := map[int]int{}
	for _, x := range w.Order {
		if !v.events[x] || seen[x] {
			return fmt.Errorf("the view of %s's process lists operation %d twice, or it is no event", v.h.Ops[w.Op].Label(), x)
		}
		seen[x] = true
		p := v.h.Ops[x].Process
		if j, ok := last[p]; ok && j > x {
			return fmt.Errorf("the view of %s's process breaks process order at %s", v.h.Ops[w.Op].Label(), v.h.Ops[x].Label())
		}
		last[p] = x
	}
	if len(seen) != len(v.events) {
		return fmt.Errorf("the view of %s's process leaves events out", v.h.Ops[w.Op].Label())
	}
	return v.replay(w.Order, checker.PRAM, w.Op)
}

// session checks an abstract execution: ar, and one view per event.
func (v *verifier[S]) session(ar []int, views []checker.View, criterion string) error {
	at := map[int]int{}
	for i, x := range ar {
		if !v.events[x] {
			return fmt.Errorf("the arbitration order holds operation %d, which is no event", x)
		}
		at[x] = i
	}
	if len(at) != len(v.events) || len(ar) != len(at) {
		return fmt.Errorf("the arbitration order does not list every event once")
	}
	info := v.m.Info()
	update := func(x int) bool { return Update(info, v.h.Ops[x].F) }
	observes, err := v.observations()
	if err != nil {
		return err
	}
	if criterion == checker.MonotonicWrites {
		for _, x := range ar {
			for _, y := range ar[:at[x]] {
				if update(x) && update(y) && v.h.Ops[x].Process == v.h.Ops[y].Process && x < y {
					return fmt.Errorf("the arbitration order puts %s before %s, against their process's order", v.h.Ops[y].Label(), v.h.Ops[x].Label())
				}
			}
		}
	}
	vis := map[int][]int{}
	for _, w := range views {
		if err := v.sessionView(w, at, criterion, update, observes); err != nil {
			return err
		}
		if _, dup := vis[w.Op]; dup {
			return fmt.Errorf("%s has two views", v.h.Ops[w.Op].Label())
		}
		vis[w.Op] = w.Order[:len(w.Order)-1]
	}
	if len(vis) != len(v.events) {
		return fmt.Errorf("some event has no view")
	}
	return v.chains(vis, at, criterion, update, observes)
}

// observations returns which events the typed forms bind: the
// observations, counting every event whose class is unsure (stricter),
// and the pure reads.
func (v *verifier[S]) observations() (func(x int) bool, error) {
	p, err := newProblem(context.Background(), v.m, v.h, -1)
	if err != nil {
		return nil, err
	}
	obs, unsure := p.observations()
	bound := map[int]bool{}
	for e, pos := range p.c.Pos {
		bound[pos] = obs[e] || unsure[e] || (p.pure[e] && !p.unknown[e])
	}
	return func(x int) bool { return bound[x] }, nil
}

// chains checks the guarantees that follow visibility along a process:
// monotonic-reads (an update b sees stays visible to b's later events)
// and writes-follow-reads (it comes, in ar, before b's later updates).
func (v *verifier[S]) chains(vis map[int][]int, at map[int]int, criterion string, update, observes func(int) bool) error {
	if criterion != checker.MonotonicReads && criterion != checker.WritesFollowReads {
		return nil
	}
	for b, seen := range vis {
		for c, later := range vis {
			if c <= b || v.h.Ops[c].Process != v.h.Ops[b].Process || !observes(b) ||
				(criterion == checker.MonotonicReads && !observes(c)) {
				continue
			}
			in := map[int]bool{}
			for _, x := range later {
				in[x] = true
			}
			for _, a := range seen {
				switch {
				case !update(a):
				case criterion == checker.MonotonicReads && !in[a]:
					return fmt.Errorf("%s sees %s but the later %s does not", v.h.Ops[b].Label(), v.h.Ops[a].Label(), v.h.Ops[c].Label())
				case criterion == checker.WritesFollowReads && update(c) && at[a] > at[c]:
					return fmt.Errorf("%s sees %s but the later update %s comes before it", v.h.Ops[b].Label(), v.h.Ops[a].Label(), v.h.Ops[c].Label())
				}
			}
		}
	}
	return nil
}

// sessionView checks one event's visible events and replays them.
func (v *verifier[S]) sessionView(w checker.View, at map[int]int, criterion string, update, observes func(int) bool) error {
	e := w.Op
	if !v.events[e] || len(w.Order) == 0 || w.Order[len(w.Order)-1] != e {
		return fmt.Errorf("the view of operation %d does not end with it, or it is no event", e)
	}
	in := map[int]bool{}
	for i, x := range w.Order[:len(w.Order)-1] {
		if !v.events[x] || at[x] >= at[e] || (i > 0 && at[w.Order[i-1]] >= at[x]) {
			return fmt.Errorf("the view of %s is not a part of the arbitration order before it", v.h.Ops[e].Label())
		}
		in[x] = true
	}
	if criterion == checker.ReadYourWrites && observes(e) {
		for x := range v.events {
			if x < e && update(x) && v.h.Ops[x].Process == v.h.Ops[e].Process && !in[x] {
				return fmt.Errorf("the view of %s lacks %s, an earlier update of its process", v.h.Ops[e].Label(), v.h.Ops[x].Label())
			}
		}
	}
	return v.replay(w.Order, criterion, e)
}

// totalOrder checks a witness that is one total order w in which every
// event sees all before it: one pass per process whose outputs show
// (causal-memory, pram), else one pass with each event shown in turn.
func (v *verifier[S]) totalOrder(w []int, criterion string) error {
	if err := v.total(w, nil); err != nil {
		return err
	}
	for i := 1; i < len(w); i++ {
		for j := 0; j < i; j++ {
			if v.h.Ops[w[j]].Process == v.h.Ops[w[i]].Process && w[j] > w[i] {
				return fmt.Errorf("the order puts %s before %s, against their process's order", v.h.Ops[w[j]].Label(), v.h.Ops[w[i]].Label())
			}
		}
	}
	if criterion == checker.CausalMemory || criterion == checker.PRAM {
		done := map[int]bool{}
		for _, e := range w {
			if p := v.h.Ops[e].Process; !done[p] {
				done[p] = true
				if err := v.replay(w, checker.PRAM, e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return v.prefixes(w)
}

// prefixes checks that each event of w is legal, shown, after the events
// before it, hidden.
func (v *verifier[S]) prefixes(w []int) error {
	states := v.states()
	for n, x := range w {
		s := states.get(x)
		op := v.ops[x]
		if _, legal := v.m.Step(s, &op); !legal {
			return fmt.Errorf("step %d, %s, is illegal in state %s", n+1, v.h.Ops[x].Label(), v.m.Describe(s, v.t))
		}
		op.Unknown = true
		if next, legal := v.m.Step(s, &op); legal {
			states.set(x, next)
		}
	}
	return nil
}

// keyStates holds a replay's state of each key (one for unkeyed models).
type keyStates[S comparable] struct {
	v  *verifier[S]
	by map[history.Value]S
}

func (v *verifier[S]) states() keyStates[S] {
	return keyStates[S]{v: v, by: map[history.Value]S{}}
}

func (ks keyStates[S]) key(x int) history.Value {
	if ks.v.m.Info().Keyed {
		return ks.v.h.Ops[x].Key
	}
	return history.Value{}
}

// get returns the state of operation x's key.
func (ks keyStates[S]) get(x int) S {
	s, ok := ks.by[ks.key(x)]
	if !ok {
		s = ks.v.m.Init(ks.v.t)
	}
	return s
}

// set records the state of x's key after x.
func (ks keyStates[S]) set(x int, s S) { ks.by[ks.key(x)] = s }
