package model

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// multiTxn is the one operation code of the multi-register model.
const multiTxn uint8 = 0

// The kinds of a compiled micro-operation, as written in a program.
const (
	mrRead    = 0 // read: legal when the key holds the value
	mrAnyRead = 1 // read of nil under NilIsAny: legal in every state
	mrWrite   = 2 // write: sets the key
)

// multiRegister is Knossos's multi-register: registers named by keys, all
// starting at the initial value, and transactions of reads and writes
// applied atomically, micro-operation by micro-operation, each read seeing
// the writes before it in its transaction.
//
// A state is the keys that do not hold the initial value, with their
// values: uvarint pairs (key id, value id) sorted by key id, in a string,
// so that equal states are equal strings. A compiled transaction has A =
// the id, in progs, of its program: uvarint triples (kind, key id, value
// id), one per micro-operation.
type multiRegister struct {
	info   Info
	init   history.Value
	nilAny bool
	progs  *Interner[string]
	// initVal is the initial value's Table id, which states leave out
	// (set by Compile and Init, before any Step).
	initVal int64
}

// NewMultiRegister returns the multi-register model (Knossos's
// multi-register): a transaction txn whose value is a list of [read k v]
// and [write k v] micro-operations (or Elle's r and w) takes effect
// atomically. Every register starts at opts.Init, or nil.
func NewMultiRegister(opts Options) Model[string] {
	m := &multiRegister{init: opts.Init, nilAny: opts.NilRead == NilIsAny, progs: new(Interner[string])}
	if m.init.IsNone() {
		m.init = history.NilValue
	}
	m.info = Info{
		Name: "multi-register",
		Doc: "Registers named by keys, read and written by transactions that take effect atomically (Knossos's multi-register); " +
			"every register starts at the initial value (nil by default).",
		Ops: []OpInfo{{Names: []string{txn.F}, Value: "[[read k v] [write k v] ...] (or r, w)",
			Doc: "reads and writes, in order, all at one instant; a read sees the transaction's own earlier writes"}},
	}
	if m.nilAny {
		m.info.Doc += " A read of nil is accepted in every state, as Knossos accepts it."
	}
	return m
}

func (m *multiRegister) Info() Info { return m.info }

// Compile encodes a transaction's micro-operations as a program. A
// transaction of unknown outcome carries its invocation's value, whose
// reads are unknown: Step accepts them in any state.
func (m *multiRegister) Compile(op *history.Op, t *Table) (Op, error) {
	if op.F != txn.F {
		return Op{}, UnknownOpError(m.info, op.F)
	}
	mops, err := txn.Parse(op.Value)
	if err != nil {
		return Op{}, err
	}
	m.initVal = t.ID(m.init)
	var prog []byte
	for _, mop := range mops {
		kind := mrRead
		switch {
		case mop.Kind == txn.Append:
			return Op{}, errors.New("multi-register transactions read and write registers; append is list-append's (use -m list-append)")
		case mop.Kind == txn.Write:
			kind = mrWrite
		case m.nilAny && mop.Value.IsNil():
			kind = mrAnyRead
		}
		prog = binary.AppendUvarint(prog, uint64(kind))
		prog = binary.AppendUvarint(prog, uint64(t.ID(mop.Key)))
		prog = binary.AppendUvarint(prog, uint64(t.ID(mop.Value)))
	}
	return Op{Kind: multiTxn, A: m.progs.ID(string(prog))}, nil
}

// Init is the state where every key holds the initial value.
func (m *multiRegister) Init(t *Table) string {
	m.initVal = t.ID(m.init)
	return ""
}

// mrInstr is one decoded micro-operation of a program.
type mrInstr struct {
	kind       int
	key, value int64
}

// decodeInstr reads the instruction at the start of prog and the bytes after it.
func decodeInstr(prog string) (mrInstr, string) {
	var out [3]int64
	for i := range out {
		v, n := nextID(prog)
		out[i], prog = v, prog[n:]
	}
	return mrInstr{kind: int(out[0]), key: out[1], value: out[2]}, prog
}

// lookup is the value id key holds in s, or 0 for the initial value.
func lookup(s string, key int64) int64 {
	for s != "" {
		var k, v int64
		var n int
		k, n = nextID(s)
		s = s[n:]
		v, n = nextID(s)
		s = s[n:]
		if k == key {
			return v
		}
		if k > key {
			break
		}
	}
	return 0
}

// assign sets key to value in s; value 0 (the initial value) drops the key,
// so that every state has one encoding.
func assign(s string, key, value int64) string {
	var b []byte
	done := false
	for s != "" {
		k, n := nextID(s)
		v, m := nextID(s[n:])
		s = s[n+m:]
		if !done && k >= key {
			done = true
			if value != 0 {
				b = appendID(appendID(b, key), value)
			}
			if k == key {
				continue
			}
		}
		b = appendID(appendID(b, k), v)
	}
	if !done && value != 0 {
		b = appendID(appendID(b, key), value)
	}
	return string(b)
}

// Step runs the transaction's program on s: reads must see their values
// (any, for a transaction of unknown outcome) and writes set their keys.
func (m *multiRegister) Step(s string, op *Op) (string, bool) {
	next, _, ok := m.run(s, op)
	return next, ok
}

// run runs op's program on s. When a read does not see its value, it
// returns false with the state that read saw and the read.
func (m *multiRegister) run(s string, op *Op) (string, mrInstr, bool) {
	for prog := m.progs.At(op.A); prog != ""; {
		var in mrInstr
		in, prog = decodeInstr(prog)
		switch in.kind {
		case mrWrite:
			s = assign(s, in.key, m.stored(in.value))
		case mrRead:
			if !op.Unknown && m.holds(s, in.key) != in.value {
				return s, in, false
			}
		}
	}
	return s, mrInstr{}, true
}

// stored is what the state keeps for value id v: 0 for the initial value.
func (m *multiRegister) stored(v int64) int64 {
	if v == m.initVal {
		return 0
	}
	return v
}

// holds is the value id key holds in s.
func (m *multiRegister) holds(s string, key int64) int64 {
	if v := lookup(s, key); v != 0 {
		return v
	}
	return m.initVal
}

func (m *multiRegister) Describe(s string, t *Table) string {
	var parts []string
	for s != "" {
		k, n := nextID(s)
		v, w := nextID(s[n:])
		s = s[n+w:]
		parts = append(parts, fmt.Sprintf("%s %s", t.Value(k), t.Value(v)))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("{} (every key %s)", describeValue(m.init))
	}
	return "{" + strings.Join(parts, ", ") + "}" + fmt.Sprintf(" (other keys %s)", describeValue(m.init))
}

// Explain names the first read of the transaction that s contradicts.
func (m *multiRegister) Explain(s string, op *Op, t *Table) string {
	seen, in, ok := m.run(s, op)
	if ok {
		return ""
	}
	return fmt.Sprintf("read %s of %s but it holds %s", describeValue(t.Value(in.value)), t.Value(in.key), describeValue(t.Value(m.holds(seen, in.key))))
}
