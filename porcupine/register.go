package porcupine

import (
	"strconv"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// A partition whose model acts as a compare-and-set register goes to
// histcheck's cas-register model, whose register sweep (checker/regdp)
// decides histories of many clients that no search finishes. Whether it
// does is found out, not guessed: from the initial state, every operation
// of the partition is stepped in every state reached, until no new state
// appears. Those are all the states any order of the operations can
// reach, so how each operation acts on each of them is the whole model as
// far as the partition is concerned, and an operation is classed only
// when that table makes it exactly one of: a read of one state, a read
// any state allows, a write of one state, a compare-and-set from one
// state to another, or (returning after every other event, so that it
// can always go last) one that may take effect or not. Any other
// operation, or more states or steps than the bounds below, leaves the
// partition to the search.
const (
	registerMinOps   = 64      // smaller partitions are quicker to search
	registerMaxState = 64      // states the closure may reach
	registerMaxSteps = 1 << 14 // steps the closure may take
)

// opClass is what an operation does to a register.
type opClass uint8

const (
	notRegister   opClass = iota
	readClass             // legal in state a alone, changes nothing
	anyReadClass          // legal everywhere, changes nothing
	writeClass            // legal everywhere, sets a
	casClass              // legal in a alone, sets b
	maybeCASClass         // legal everywhere, sets b in a, else changes nothing
)

type regOp struct {
	class opClass
	a, b  int32
}

// registerHistory returns the partition as a cas-register history over
// the ids of its states, with the initial state's id, when its model acts
// as a register on it; ok is false otherwise, or when the context ended.
func (a *adapter) registerHistory(p *partition) (h *history.History, init int32, ok bool) {
	if len(p.ops) < registerMinOps {
		return nil, 0, false
	}
	init = a.Init(nil)
	states, ok := a.closure(init)
	if !ok {
		return nil, 0, false
	}
	classes := make([]regOp, len(a.ins))
	for o := range classes {
		if classes[o] = a.classify(states, int32(o)); classes[o].class == notRegister {
			return nil, 0, false
		}
	}
	// An operation that returns last, after every call, can always go
	// last.
	lastCall, lastReturn := int64(-1<<63), int64(-1<<63)
	for _, o := range p.ops {
		lastCall, lastReturn = max(lastCall, o.Call), max(lastReturn, o.Return)
	}
	goesLast := func(o *Operation) bool { return o.Return >= lastCall && o.Return == lastReturn }
	ops := make([]history.Op, 0, len(p.ops))
	for i := range p.ops {
		o := &p.ops[i]
		c := classes[a.opOf[i]]
		// A return at the end of time would read as an unknown outcome.
		hop := history.Op{Client: strconv.Itoa(i), Index: int64(i), Call: o.Call, Return: min(o.Return, history.Infinity-1),
			Status: history.OK}
		switch c.class {
		case anyReadClass:
			continue // it constrains nothing
		case readClass:
			hop.F, hop.Value = "read", history.IntValue(int64(c.a))
		case writeClass:
			hop.F, hop.Value = "write", history.IntValue(int64(c.a))
			if goesLast(o) {
				// It can always go last, where it changes nothing anyone
				// sees: it may take effect or not.
				hop.Status = history.Info
			}
		case casClass:
			hop.F, hop.Value = "cas", history.ListValue(history.IntValue(int64(c.a)), history.IntValue(int64(c.b)))
		case maybeCASClass:
			if !goesLast(o) {
				return nil, 0, false
			}
			hop.F, hop.Value = "cas", history.ListValue(history.IntValue(int64(c.a)), history.IntValue(int64(c.b)))
			hop.Status = history.Info
		}
		ops = append(ops, hop)
	}
	h, err := history.FromOps(ops)
	if err != nil {
		return nil, 0, false
	}
	return h, init, true
}

// closure returns every state the operations reach from init, in any
// order, within the bounds.
func (a *adapter) closure(init int32) ([]int32, bool) {
	seen := map[int32]bool{init: true}
	states := []int32{init}
	steps := 0
	for k := 0; k < len(states); k++ {
		for o := range a.ins {
			if steps++; steps > registerMaxSteps {
				return nil, false
			}
			ns, ok := a.Step(states[k], &model.Op{A: int64(o)})
			if a.cancelled {
				return nil, false
			}
			if ok && !seen[ns] {
				if len(states) == registerMaxState {
					return nil, false
				}
				seen[ns] = true
				states = append(states, ns)
			}
		}
	}
	return states, true
}

// classify says what operation o does, from its steps in every state.
func (a *adapter) classify(states []int32, o int32) regOp {
	var legal, changes []int32 // states where it is legal; where it changes the state
	var to []int32             // the state it leads to from each of changes
	for _, s := range states {
		ns, ok := a.Step(s, &model.Op{A: int64(o)})
		if !ok {
			continue
		}
		legal = append(legal, s)
		if ns != s {
			changes, to = append(changes, s), append(to, ns)
		}
	}
	all := len(legal) == len(states)
	switch {
	case len(legal) == 0:
		return regOp{}
	case len(changes) == 0 && all:
		return regOp{class: anyReadClass}
	case len(changes) == 0 && len(legal) == 1:
		return regOp{class: readClass, a: legal[0]}
	case len(changes) == 1 && len(legal) == 1:
		return regOp{class: casClass, a: changes[0], b: to[0]}
	case all && writesOne(legal, changes, to):
		return regOp{class: writeClass, a: to[0]}
	case len(changes) == 1 && all:
		return regOp{class: maybeCASClass, a: changes[0], b: to[0]}
	}
	return regOp{}
}

// writesOne reports whether the steps lead every state to one state: the
// states that change go to it, and the one that does not (if any) is it.
func writesOne(legal, changes, to []int32) bool {
	if len(to) == 0 {
		return false
	}
	for _, t := range to {
		if t != to[0] {
			return false
		}
	}
	if len(changes) == len(legal) {
		return true
	}
	if len(changes) != len(legal)-1 {
		return false
	}
	for _, s := range legal {
		if !contains(changes, s) {
			return s == to[0]
		}
	}
	return false
}

func contains(xs []int32, x int32) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
