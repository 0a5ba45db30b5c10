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
//
// The same table tells the search which operations never change the
// state (model.Observer), whatever the model: such an operation, legal
// and free to come next, is taken at once.
const (
	exploreMinOps    = 16      // smaller partitions are searched at once
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
	// observes says the operation never changes the state.
	observes bool
}

// table is what stepping every operation in every reachable state found.
type table struct {
	init    int32
	classes []regOp // by operation id
	// register says every operation is of a register's classes.
	register bool
	// observers counts the operations that never change the state.
	observers int
}

// explore steps every operation of the partition in every state reachable
// from the initial one; ok is false past the bounds, or when the context
// ended.
//
// The model is asked steps that no order of the history may need: one
// that panics on them (an assertion about states it thinks impossible)
// is left to the search, which asks only what Porcupine would.
func (a *adapter) explore() (t table, ok bool) {
	defer func() {
		if recover() != nil {
			a.current = -1
			t, ok = table{}, false
		}
	}()
	t.init = a.Init(nil)
	states, ok := a.closure(t.init)
	if !ok {
		return t, false
	}
	t.classes = make([]regOp, len(a.ins))
	t.register = true
	for o := range t.classes {
		c := a.classify(states, int32(o))
		t.classes[o] = c
		t.register = t.register && c.class != notRegister
		if c.observes {
			t.observers++
		}
	}
	return t, !a.cancelled
}

// registerHistory returns the partition as a cas-register history over
// the ids of its states when its model acts as a register on it (see t).
func (a *adapter) registerHistory(p *partition, t *table) (*history.History, bool) {
	if len(p.ops) < registerMinOps || !t.register {
		return nil, false
	}
	classes := t.classes
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
		hop := history.Op{Client: strconv.Itoa(i), Index: int64(i), Call: min(o.Call, history.Infinity-1), Return: min(o.Return, history.Infinity-1),
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
				return nil, false
			}
			hop.F, hop.Value = "cas", history.ListValue(history.IntValue(int64(c.a)), history.IntValue(int64(c.b)))
			hop.Status = history.Info
		}
		ops = append(ops, hop)
	}
	h, err := history.FromOps(ops)
	if err != nil {
		return nil, false
	}
	return h, true
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
	r := classOf(states, legal, changes, to, all)
	r.observes = len(changes) == 0
	return r
}

// classOf is the register class of an operation legal in the states
// legal, changing those of changes to those of to.
func classOf(states, legal, changes, to []int32, all bool) regOp {
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
