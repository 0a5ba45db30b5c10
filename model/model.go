// Package model holds sequential specifications: what a single copy of a data
// type does, operation by operation. Checkers search for orders of a history's
// operations that a Model accepts; a model knows nothing of that search.
//
// A model works on compact operations (Op) whose values are interned into a
// Table, and on states of a small comparable type S, so that checkers can
// memoise states in plain maps without boxing.
//
// # Writing a model
//
// A model for a data type of your own is a type that implements Model[S];
// every checker that works from a sequential specification (linearizability,
// sequential consistency, their explanations and witness checks) accepts it
// as it is, and checker/suite.Bind and cli.Main put it on the command line.
//
//   - Choose the state type S: a comparable value with no pointers, slices
//     or maps, since checkers compare and hash states as map keys. An
//     integer, a small struct or a fixed-size array work; a string encodes
//     a collection of any size (the set and queue models keep their
//     elements' Table ids in one).
//   - Info names the model and documents each operation and the shape of
//     its value; histcheck models prints it, and UnknownOpError uses it.
//     Each OpInfo's Class says whether the operation reads, writes or does
//     something else: checkers ask Info.ClassOf and never compare names.
//   - Compile turns a history operation into an Op: an operation code in
//     Kind and the arguments and observed result in A, B and C, with values
//     interned in the Table. Check shapes here and return an error that says
//     what was expected; checkers add the operation's line. A result that
//     does not fit three integers (a whole set, every balance of a bank) is
//     interned with an Interner the model owns, and its id kept in the Op.
//     An operation of unknown outcome (op.Status is history.Info) carries
//     the invocation's value, usually not the result.
//   - Init gives the initial state, after Compile has seen every operation.
//   - Step is the hot path: given a state and an Op it returns the next
//     state and whether the operation is legal there. It must be a pure
//     function of its arguments and safe to call from several goroutines:
//     the same state and Op always get the same answer, whatever was
//     stepped before. A model whose operations build values no Table
//     holds may intern them as it steps, as kv does for the strings
//     appends build, provided an id once given always names the same
//     value and equal values always share one id (checkers compare
//     states with ==).
//     When Op.Unknown is set it must accept any output; the checkers decide
//     whether the operation took effect.
//   - Describe renders a state for reports.
//
// Three optional interfaces make reports and searches better: Explainer says
// in a sentence why an operation is illegal; Pruner drops operations of
// unknown outcome that nothing observed, which can save a search
// exponential time (it must never change a verdict: argue why in its
// comment and test it against the reference checker); Forker gives each
// partition of a keyed model its own copy of a cache. Counting and Owned
// describe locks: a count of holders every legal order keeps in bounds,
// and critical sections each taken and left by one owner; the sequential
// checker refutes and splits lock histories with them. Set Info.Keyed when
// operations on different keys are independent, so checkers split the
// history by key.
//
// The bank example in the repository's examples/bank directory is a
// complete model of accounts with transfers and reads of every balance,
// checked through this package and through a command line of its own.
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
	// history.Infinity when unknown), as history.Op has them: times, or
	// positions in the input for a history in file order.
	Call, Return int64
	// Start and End are the operation's recorded times (its positions in
	// the input when it has none), for models that depend on time, such
	// as a lease's expiry. End is history.Infinity when unknown.
	Start, End int64
	// Proc is the logical process, for reports; Step must not depend on
	// it (checkers treat operations that differ only in Proc as
	// interchangeable). A model that needs the client's identity interns
	// it into an argument, as the lock models do.
	Proc int32
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
// partition of a history, used by one goroutine alone (so its Step need
// not be safe to call from several at once), so that parallel partitions
// never contend on a shared cache.
type Forker[S comparable] interface {
	Fork() Model[S]
}

// Reserver is implemented by models that intern values in tables of their
// own (kv). checker.Compile calls Reserve with the number of operations it
// is about to compile, so that the tables are sized once rather than grown
// by doubling, which a short run pays in fresh pages. It is only a hint:
// it changes no id, no step and no verdict.
type Reserver interface {
	Reserve(n int)
}

// OpClass is what an operation does to a register, for checkers that
// exploit reads and blind writes. It classifies compiled operations
// (ReadWriteRegister) and, by name, the operations a model accepts
// (OpInfo.Class).
type OpClass uint8

// Operation classes.
const (
	// OtherOp is any operation that is neither of the classes below.
	OtherOp OpClass = iota
	// ReadOp observes the state and never changes it: in every state Step
	// either refuses it or returns the state unchanged, and it is legal
	// exactly when the state's value id equals Op.A.
	ReadOp
	// AnyReadOp is a read that is legal in every state and changes nothing
	// (a read of nil under NilIsAny, or one of unknown outcome).
	AnyReadOp
	// WriteOp is a blind write: legal in every state, it sets the state to
	// the value whose id is Op.A.
	WriteOp
	// CASOp is a compare-and-set whose value in the history is [from to]:
	// it sets the value to "to" when it is "from". It classes operation
	// names only (OpInfo.Class); ReadWriteRegister classes a compiled cas
	// as OtherOp, since it is neither a read nor a blind write.
	CASOp
)

// ReadWriteRegister is implemented by models whose states are value ids of
// one register (per key, for keyed models) and whose operations can be
// classified as reads and blind writes. Checkers use it for exact shortcuts:
// a legal read may be linearized at once, and a history of reads and
// writes of unique values is decided in polynomial time. Class must agree
// with Step, Op.Unknown included (a read of unknown outcome is an
// AnyReadOp).
type ReadWriteRegister interface {
	Class(op *Op) OpClass
}

// Observer is implemented by models that can tell which operations never
// change the state: in every state Step either refuses such an operation
// or returns the state unchanged (a read, a compare-and-set recorded as
// failed, a read of unknown outcome). It says less than
// ReadWriteRegister, for models whose observers are not reads of one
// value; a model that implements ReadWriteRegister need not implement it.
// The linearizability search takes such an operation, when it is legal
// and may come next, as the only candidate.
type Observer interface {
	Observes(op *Op) bool
}

// Foresight is implemented by models that can tell early that an
// operation will never become legal, so that a search abandons an order as
// soon as it dooms an operation rather than when the operation's time runs
// out (for kv: once a key holds "ab", a later read of "ba" can only
// succeed after a write).
type Foresight[S comparable] interface {
	// Doomed returns, for the operations of one partition, a test that
	// reports whether ops[i] is illegal in s and in every state that the
	// operations not yet taken can lead to from s (taken is the set of
	// operations already linearized, a bitset over ops), given that an
	// operation can only come before ops[i] if it was called before ops[i]
	// returned. Checkers ask it about completed operations not yet taken,
	// whether or not their call has come: a read recorded later can doom
	// an order long before its turn. It returns nil when the
	// model can tell nothing for these operations. A test may answer false
	// when unsure, never true wrongly. It is called by one goroutine at a
	// time.
	Doomed(ops []Op) func(s S, i int, taken []uint64) bool
}

// Counting is implemented by models whose legal orders all keep a count
// between 0 and Capacity: the count starts at 0 and each operation moves
// it by Delta (a lock: acquire +1, release -1, capacity 1). The model may
// forbid more than the count does (a lock with an owner does), never
// less: an order that takes the count out of its bounds must be illegal.
// Checkers use it to refute a history by counting alone, whatever the
// order of the processes' operations.
type Counting interface {
	Delta(op *Op) int
	Capacity() int
}

// Owned is implemented by counting models whose legal orders are
// sequences of critical sections, each an acquire and the release that
// follows it by the same owner (a lock that records its holder), with at
// most one acquire left unreleased at the end. Owner names an operation's
// owner. The operations of one owner, in a legal order, are then legal on
// their own; checkers use it to split a history by owner.
type Owned interface {
	Owner(op *Op) int64
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
	// Class says what the operation does, so that checkers tell reads and
	// writes apart by asking the model (Info.ClassOf) rather than by
	// knowing names. ReadOp: it returns the state, or part of it, and never
	// changes it (a register's read, a set's read of every element).
	// WriteOp: it sets the object's value to the value it carries, and
	// reads may return that value (it may still be refused, as a fenced
	// write with a stale token is; checkers that need blind writes check
	// Step). CASOp: a compare-and-set of a [from to] value. OtherOp, the
	// zero value, is anything else (an append, an acquire) and is always
	// safe: a checker then takes no shortcut. AnyReadOp classifies
	// compiled operations only.
	Class OpClass
}

// ClassOf returns the class of the operation the model accepts under the
// name f (OpInfo.Class), or OtherOp for a name it does not accept.
func (m Info) ClassOf(f string) OpClass {
	for _, o := range m.Ops {
		for _, n := range o.Names {
			if n == f {
				return o.Class
			}
		}
	}
	return OtherOp
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
	// Versions makes the register, cas-register and kv models read each
	// operation's explicit version: writes of a key take effect in version
	// order and a read returns the write of its version (see UsesVersions,
	// the one rule every criterion follows). checker/suite sets it from the
	// history; other models ignore it.
	Versions bool
	// Settings are the model's own options by name (Jepsen's checkers:
	// a bank's total, long-fork's group size); models without options
	// take none.
	Settings map[string]string
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

// Valued is implemented by models whose states are values a history can
// start from: Value returns the initial value (Options.Init) of a model
// that starts in s. An online check uses it to start an object again from
// where its operations so far left it, so that what it keeps does not
// grow with the history.
type Valued[S comparable] interface {
	Value(s S, t *Table) (history.Value, bool)
}
