package porcupine

import (
	"context"
	"fmt"
	"strings"
)

// An Operation is one call of a history with its result: its input and
// output, when it was called and when it returned, and the client that
// called it (needed only for pictures). [Call, Return] is a closed
// interval: operations whose intervals share an instant overlap.
type Operation struct {
	ClientId int // zero-based; only pictures use it
	Input    interface{}
	Call     int64 // when it was called
	Output   interface{}
	Return   int64 // when it returned
	// Metadata is shown in pictures and never checked.
	Metadata interface{}
	_        struct{} // keeps literals keyed, so fields can be added
}

// An EventKind says whether an [Event] is a call or a return.
type EventKind bool

// The kinds of event.
const (
	CallEvent   EventKind = false
	ReturnEvent EventKind = true
)

// An Event is a call or a return. A history of events orders calls and
// returns relative to each other, without times; a call and its return
// share an Id.
type Event struct {
	ClientId int // zero-based; only pictures use it
	Kind     EventKind
	Value    interface{} // the input of a call, the output of a return
	Id       int
	// Metadata is shown in pictures and never checked; a return's wins
	// over its call's.
	Metadata interface{}
	_        struct{} // keeps literals keyed, so fields can be added
}

// A Model is a sequential specification over states of any type. Step
// must be pure: it returns a new state rather than changing the one it is
// given.
//
// Init and Step (or StepContext) are all a check needs. Equal defaults to
// ==; Hash, when given, must agree with Equal, and lets equal states be
// found without comparing each pair. Partition functions split a history
// into parts that are linearizable on their own exactly when the whole
// is (the keys of a key-value store); Init and Step then describe one
// part. The Describe functions make pictures readable.
type Model struct {
	Partition      func(history []Operation) [][]Operation
	PartitionEvent func(history []Event) [][]Event
	Init           func() interface{}
	// Step reports whether the operation with this input and output may
	// take effect in state, and the state after it.
	Step func(state interface{}, input interface{}, output interface{}) (bool, interface{})
	// StepContext, when set, is called instead of Step with a context
	// that is cancelled when the check's time is up or another partition
	// was found illegal, so that a slow step can stop.
	StepContext               func(ctx context.Context, state interface{}, input interface{}, output interface{}) (bool, interface{})
	Equal                     func(state1, state2 interface{}) bool
	Hash                      func(state interface{}) uint64
	DescribeOperation         func(input interface{}, output interface{}) string
	DescribeState             func(state interface{}) string
	DescribeOperationMetadata func(info interface{}) string
	_                         struct{} // keeps literals keyed, so fields can be added
}

// A NondeterministicModel is a specification whose step may lead to
// several states. [NondeterministicModel.ToModel] makes it a [Model] over
// sets of its states.
type NondeterministicModel struct {
	Partition      func(history []Operation) [][]Operation
	PartitionEvent func(history []Event) [][]Event
	Init           func() []interface{}
	// Step returns every state the operation may lead to from state; none
	// when it cannot take effect there.
	Step func(state interface{}, input interface{}, output interface{}) []interface{}
	// StepContext, when set, is called instead of Step (see Model).
	StepContext               func(ctx context.Context, state interface{}, input interface{}, output interface{}) []interface{}
	Equal                     func(state1, state2 interface{}) bool
	Hash                      func(state interface{}) uint64
	DescribeOperation         func(input interface{}, output interface{}) string
	DescribeState             func(state interface{}) string
	DescribeOperationMetadata func(info interface{}) string
	_                         struct{} // keeps literals keyed, so fields can be added
}

// CheckResult is a check's verdict. Unknown means the time ran out (or
// the memory the search may use did) before a verdict.
type CheckResult string

// The verdicts.
const (
	Unknown CheckResult = "Unknown"
	Ok      CheckResult = "Ok"
	Illegal CheckResult = "Illegal"
)

// ToModel turns nm into a Model whose state is the set of states nm may
// be in (a []interface{} without two Equal members): a step takes every
// member's successors, and is legal when there is at least one.
func (nm *NondeterministicModel) ToModel() Model {
	eq := nm.Equal
	if eq == nil {
		eq = shallowEqual
	}
	var step func(ctx context.Context, s, in, out interface{}) []interface{}
	switch {
	case nm.StepContext != nil:
		step = nm.StepContext
	case nm.Step != nil:
		plain := nm.Step
		step = func(_ context.Context, s, in, out interface{}) []interface{} { return plain(s, in, out) }
	default:
		panic("porcupine: a NondeterministicModel needs Step or StepContext")
	}
	setStep := func(ctx context.Context, state, in, out interface{}) (bool, interface{}) {
		var next []interface{}
		for _, s := range state.([]interface{}) {
			if ctx.Err() != nil {
				return false, nil
			}
			next = append(next, step(ctx, s, in, out)...)
		}
		if ctx.Err() != nil {
			return false, nil
		}
		next = distinct(next, eq)
		return len(next) > 0, next
	}
	var hash func(interface{}) uint64
	if h := nm.Hash; h != nil {
		// The members' hashes are combined by xor, which ignores their
		// order, as a set's hash must.
		hash = func(state interface{}) uint64 {
			var x uint64
			for _, s := range state.([]interface{}) {
				x ^= h(s)
			}
			return x
		}
	}
	describe := nm.DescribeState
	if describe == nil {
		describe = defaultDescribeState
	}
	init := nm.Init
	m := Model{
		Partition:      nm.Partition,
		PartitionEvent: nm.PartitionEvent,
		Step: func(state, in, out interface{}) (bool, interface{}) {
			return setStep(context.Background(), state, in, out)
		},
		StepContext: setStep,
		Equal:       func(a, b interface{}) bool { return sameSet(a.([]interface{}), b.([]interface{}), eq) },
		Hash:        hash,
		DescribeState: func(state interface{}) string {
			var parts []string
			for _, s := range state.([]interface{}) {
				parts = append(parts, describe(s))
			}
			return "{" + strings.Join(parts, ", ") + "}"
		},
		DescribeOperation:         nm.DescribeOperation,
		DescribeOperationMetadata: nm.DescribeOperationMetadata,
	}
	if init != nil {
		m.Init = func() interface{} { return distinct(init(), eq) }
	}
	if m.DescribeOperation == nil {
		m.DescribeOperation = defaultDescribeOperation
	}
	if m.DescribeOperationMetadata == nil {
		m.DescribeOperationMetadata = defaultDescribeMetadata
	}
	return m
}

// distinct returns the states of ss without repeats under eq, in order of
// first appearance.
func distinct(ss []interface{}, eq func(a, b interface{}) bool) []interface{} {
	var out []interface{}
next:
	for _, s := range ss {
		for _, t := range out {
			if eq(s, t) {
				continue next
			}
		}
		out = append(out, s)
	}
	return out
}

// sameSet reports whether two sets of states without repeats are equal.
func sameSet(a, b []interface{}, eq func(x, y interface{}) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			if eq(x, y) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func shallowEqual(a, b interface{}) bool { return a == b }

func defaultDescribeOperation(in, out interface{}) string { return fmt.Sprintf("%v -> %v", in, out) }

func defaultDescribeState(s interface{}) string { return fmt.Sprintf("%v", s) }

func defaultDescribeMetadata(info interface{}) string {
	if info == nil {
		return ""
	}
	return fmt.Sprintf("%v", info)
}

// filled is a model with its defaults filled in and the step that takes a
// context always set.
type filled struct {
	Model
	step func(ctx context.Context, s, in, out interface{}) (bool, interface{})
	// defaultEqual says Equal is ==, so that states can be Go map keys.
	defaultEqual bool
}

// fill checks m and fills in its defaults. A model without a step is a
// programming error, reported in the caller's goroutine, as Porcupine
// reports it; one without Init is reported when a partition needs it.
func fill(m Model) filled {
	if m.Step == nil && m.StepContext == nil {
		panic("porcupine: the model needs Step or StepContext")
	}
	defaultEqual := m.Equal == nil
	if defaultEqual {
		m.Equal = shallowEqual
	}
	if m.DescribeOperation == nil {
		m.DescribeOperation = defaultDescribeOperation
	}
	if m.DescribeState == nil {
		m.DescribeState = defaultDescribeState
	}
	if m.DescribeOperationMetadata == nil {
		m.DescribeOperationMetadata = defaultDescribeMetadata
	}
	f := filled{Model: m, step: m.StepContext, defaultEqual: defaultEqual}
	if f.step == nil {
		plain := m.Step
		f.step = func(_ context.Context, s, in, out interface{}) (bool, interface{}) { return plain(s, in, out) }
	}
	return f
}
