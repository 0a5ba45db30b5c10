package model

import (
	"errors"
	"fmt"

	"github.com/histcheck/histcheck/history"
)

// Operation codes of the fenced register (Op.Kind): the register's, so that
// its pruning rule applies.
const (
	fencedRead  = regRead
	fencedWrite = regWrite
)

// FencedState is a state of the fenced-register model.
type FencedState struct {
	Value    int64 // Table id of the value last accepted
	MaxToken int64 // the highest token accepted, or NoToken
}

// fenced is storage that checks fencing tokens. A compiled write has A =
// the value's id and B = its token or NoToken; a read has A = the value's
// id and B = anyRead for a NilIsAny read of nil.
type fenced struct {
	info   Info
	init   history.Value
	nilAny bool
}

// NewFencedRegister returns the fenced-register model: a register that
// remembers the highest fencing token it has accepted. It starts at
// opts.Init (nil when None) with no token accepted.
//
// Legal: a read that returns the value last accepted; a write without a
// token (a plain write); a write whose token, in the operation's token
// field, is at least the highest accepted so far (equal tokens are
// accepted: one holder writes several times), which then becomes the
// highest. A write with a lower token must be rejected and recorded as
// failed, so an acknowledged stale write is a violation.
func NewFencedRegister(opts Options) Model[FencedState] {
	m := &fenced{init: opts.Init, nilAny: opts.NilRead == NilIsAny}
	if m.init.IsNone() {
		m.init = history.NilValue
	}
	m.info = Info{
		Name: "fenced-register",
		Doc: "A register that remembers the highest fencing token it has accepted and rejects writes with a lower one; " +
			"it starts at the initial value (nil by default) with no token accepted.",
		Ops: []OpInfo{
			{Names: []string{"read", "r", "get"}, Value: "any (the value read)", Doc: "returns the value last accepted", Class: ReadOp},
			{Names: []string{"write", "w", "put"}, Value: "any (the value written); token field: int (optional)",
				Doc: "sets the value; with a token lower than the highest accepted it must fail, with an equal or higher one it is accepted and its token becomes the highest", Class: WriteOp},
		},
	}
	if m.nilAny {
		m.info.Doc += " A read of nil is accepted in every state."
	}
	return m
}

func (m *fenced) Info() Info { return m.info }

func (m *fenced) Compile(op *history.Op, t *Table) (Op, error) {
	switch op.F {
	case "read", "r", "get":
		o := compileRead(op, t, m.nilAny)
		o.Kind = fencedRead
		return o, nil
	case "write", "w", "put":
		if op.Value.IsNone() {
			return Op{}, errors.New("write needs a value")
		}
		tok := NoToken
		if !op.Token.IsNone() && !op.Token.IsNil() {
			n, ok := op.Token.Int()
			if !ok || n == NoToken {
				return Op{}, fmt.Errorf("token must be an integer, got %s", describeValue(op.Token))
			}
			tok = n
		}
		return Op{Kind: fencedWrite, A: t.ID(op.Value), B: tok}, nil
	}
	return Op{}, UnknownOpError(m.info, op.F)
}

func (m *fenced) Init(t *Table) FencedState {
	return FencedState{Value: t.ID(m.init), MaxToken: NoToken}
}

func (m *fenced) Step(s FencedState, op *Op) (FencedState, bool) {
	switch op.Kind {
	case fencedRead:
		return s, op.Unknown || op.B == anyRead || op.A == s.Value
	case fencedWrite:
		if op.B == NoToken {
			return FencedState{Value: op.A, MaxToken: s.MaxToken}, true
		}
		if op.B < s.MaxToken {
			return s, false
		}
		return FencedState{Value: op.A, MaxToken: op.B}, true
	}
	return s, false
}

func (m *fenced) Describe(s FencedState, t *Table) string {
	d := describeValue(t.Value(s.Value))
	if s.MaxToken != NoToken {
		d += fmt.Sprintf(" (highest token %d)", s.MaxToken)
	}
	return d
}

// Explain names the violation: a stale read, or a stale write that was
// acknowledged.
func (m *fenced) Explain(s FencedState, op *Op, t *Table) string {
	switch op.Kind {
	case fencedRead:
		return fmt.Sprintf("read %s but the register holds %s", describeValue(t.Value(op.A)), describeValue(t.Value(s.Value)))
	case fencedWrite:
		return fmt.Sprintf("the write of %s with token %d was acknowledged, but the storage had already accepted token %d: a stale write got through",
			describeValue(t.Value(op.A)), op.B, s.MaxToken)
	}
	return ""
}

// Keep applies the register's rule (see register.Keep): a write of unknown
// outcome whose value no completed read returned may be dropped. Its token
// only raises the highest accepted one, which can only make later writes
// illegal, so dropping it cannot turn a valid history invalid either.
func (m *fenced) Keep(ops []Op) []bool {
	// The fenced register has no cas; regCAS never matches.
	return keepObserved(ops, fencedRead, fencedWrite, regCAS)
}
