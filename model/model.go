// Package model holds sequential specifications: what a single copy of a data
// type does, operation by operation. Checkers search for orders of a history's
// operations that a Model accepts; a model knows nothing of that search.
//
// A model works on compact operations (Op) whose values are interned into a
// Table, and on states of a small comparable type S, so that checkers can
// memoise states in plain maps without boxing.
package model

import (
	"fmt"

	"github.com/histcheck/histcheck/history"
)

// Op is an operation compiled for a model. Its fields mean what the model
// that compiled it says; values are interned ids from a Table.
type Op struct {
	Kind uint8 // the model's operation code
	// Unknown is set when the operation's outcome is unknown (history status
	// Info): the model must accept any output for it. Checkers treat such
	// operations as optional: they may take effect, or never.
	Unknown bool
	A, B, C int64 // arguments and observed output, as the model defines
	// Call and Return are the operation's real-time interval (Return is
	// history.Infinity when unknown), for models that depend on time.
	Call, Return int64
	Proc         int32 // logical process
}

// Model is a sequential specification with states of type S.
type Model[S comparable] interface {
	// Info documents the model: its name, operations and value shapes.
	Info() Info
	// Compile translates one history operation (never a failed one) into
	// the model's form, interning values in t. An operation the model does
	// not know, or a value of the wrong shape, is an error that says what was
	// expected.
	Compile(op *history.Op, t *Table) (Op, error)
	// Init returns the initial state. It is called after Compile has seen
	// every operation of the history, with the same table.
	Init(t *Table) S
	// Step applies op to s. It returns the next state and whether op is
	// legal in s.
	Step(s S, op *Op) (S, bool)
	// Describe renders a state for reports ("1", "held by C", "{}").
	Describe(s S, t *Table) string
}

// Explainer is implemented by models that can say why an operation is
// illegal in a state, in a short plain sentence ("read 0 but the register
// holds 1"). Checkers call it only when reporting.
type Explainer[S comparable] interface {
	Explain(s S, op *Op, t *Table) string
}

// Pruner is implemented by models that can tell which operations with
// unknown outcome nothing observed, so that dropping them cannot change any
// verdict (for a register: a crashed write whose value no operation read).
// Keep returns, for each op, whether it must be kept.
type Pruner interface {
	Keep(ops []Op) []bool
}

// Forker is implemented by models that keep caches of their own (kv keeps
// the values its appends build). Fork returns an independent copy for one
// partition of a history, used by one goroutine alone, so that parallel
// partitions never contend on a shared cache.
type Forker[S comparable] interface {
	Fork() Model[S]
}

// Info documents a model.
type Info struct {
	Name string
	Doc  string // one or two sentences: what the model is and its initial state
	// Keyed models hold independent objects named by each operation's key;
	// checkers split them by key (P-compositionality) and check each alone.
	Keyed bool
	Ops   []OpInfo
}

// OpInfo documents one operation a model accepts.
type OpInfo struct {
	Names []string // accepted operation names, the canonical one first
	Value string   // the value's shape, e.g. "int (the value read)", "[from to]"
	Doc   string
}

// NilRead says how a read of nil is judged.
type NilRead uint8

// NilRead settings.
const (
	// NilIsValue treats nil as a value like any other: the register is unset.
	NilIsValue NilRead = iota
	// NilIsAny accepts a read of nil in every state (Knossos's rule).
	NilIsAny
)

// Options are the settings a user gives a model.
type Options struct {
	// Init is the initial value; None means the model's default.
	Init    history.Value
	NilRead NilRead
	// TTL is a lease length in the history's time unit, for lease models.
	TTL int64
}

// Table interns values to dense ids, so models compare small integers. Id 0
// is reserved for "no value" and never returned by ID.
type Table struct {
	ids  map[history.Value]int64
	vals []history.Value
}

// NewTable returns an empty table.
func NewTable() *Table {
	return &Table{ids: make(map[history.Value]int64), vals: []history.Value{{}}}
}

// ID returns v's id, assigning the next one if v is new.
func (t *Table) ID(v history.Value) int64 {
	if id, ok := t.ids[v]; ok {
		return id
	}
	id := int64(len(t.vals))
	t.ids[v] = id
	t.vals = append(t.vals, v)
	return id
}

// Lookup returns v's id and whether v has one, without assigning.
func (t *Table) Lookup(v history.Value) (int64, bool) {
	id, ok := t.ids[v]
	return id, ok
}

// Value returns the value with the given id (the zero Value for unknown ids).
func (t *Table) Value(id int64) history.Value {
	if id < 0 || id >= int64(len(t.vals)) {
		return history.Value{}
	}
	return t.vals[id]
}

// Len returns the number of ids assigned, counting the reserved id 0.
func (t *Table) Len() int { return len(t.vals) }

// UnknownOpError is the error a model returns for an operation name it does
// not know; it lists the names it does.
func UnknownOpError(m Info, f string) error {
	var names []string
	for _, o := range m.Ops {
		names = append(names, o.Names[0])
	}
	return fmt.Errorf("model %s has no operation %q (it knows %v)", m.Name, f, names)
}
