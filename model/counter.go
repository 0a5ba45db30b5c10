package model

import (
	"fmt"

	"github.com/histcheck/histcheck/history"
)

// Operation codes of the counter model (Op.Kind).
const (
	counterAdd uint8 = iota
	counterRead
)

// counter is an integer counter. A state is its value; a compiled add has
// A = the amount, a read A = the value read (or B = anyRead).
type counter struct {
	info    Info
	init    int64
	initErr error
	nilAny  bool
}

// NewCounter returns the counter model: add changes the value by an
// integer amount (negative amounts subtract), read returns the value. It
// starts at opts.Init, an integer, or 0. Sums wrap around at 64 bits, as
// int64 arithmetic does, so every add is legal and adds commute.
func NewCounter(opts Options) Model[int64] {
	m := &counter{nilAny: opts.NilRead == NilIsAny}
	switch v := opts.Init; v.Kind() {
	case history.None, history.Nil:
	default:
		n, ok := v.Int()
		if !ok {
			m.initErr = fmt.Errorf("the counter model's initial value must be a 64-bit integer, got %s", describeShape(v))
		}
		m.init = n
	}
	m.info = Info{
		Name: "counter",
		Doc:  "An integer counter; it starts at the initial value (0 by default).",
		Ops: []OpInfo{
			{Names: []string{"add", "incr"}, Value: "int (the amount, may be negative)", Doc: "adds the amount to the counter"},
			{Names: []string{"read", "r"}, Value: "int (the value read)", Doc: "returns the counter's value", Class: ReadOp},
		},
	}
	if m.nilAny {
		m.info.Doc += " A read of nil is accepted in every state."
	}
	return m
}

func (m *counter) Info() Info { return m.info }

// Compile reads an add's amount and a completed read's value, both 64-bit
// integers. A read of unknown outcome observed nothing.
func (m *counter) Compile(op *history.Op, _ *Table) (Op, error) {
	if m.initErr != nil {
		return Op{}, m.initErr
	}
	switch op.F {
	case "add", "incr":
		n, ok := op.Value.Int()
		if !ok {
			return Op{}, fmt.Errorf("%s needs a 64-bit integer amount, got %s", op.F, describeShape(op.Value))
		}
		return Op{Kind: counterAdd, A: n}, nil
	case "read", "r":
		o := Op{Kind: counterRead}
		switch v := op.Value; {
		case op.Status == history.Info:
		case v.IsNil() && m.nilAny:
			o.B = anyRead
		default:
			n, ok := v.Int()
			if !ok {
				return Op{}, fmt.Errorf("read needs the 64-bit integer read, got %s", describeShape(v))
			}
			o.A = n
		}
		return o, nil
	}
	return Op{}, UnknownOpError(m.info, op.F)
}

func (m *counter) Init(*Table) int64 { return m.init }

func (m *counter) Step(s int64, op *Op) (int64, bool) {
	switch op.Kind {
	case counterAdd:
		return s + op.A, true
	case counterRead:
		return s, op.Unknown || op.B == anyRead || op.A == s
	}
	return s, false
}

func (m *counter) Describe(s int64, _ *Table) string { return fmt.Sprint(s) }

// Explain says what a read should have returned.
func (m *counter) Explain(s int64, op *Op, _ *Table) string {
	if op.Kind != counterRead {
		return ""
	}
	return fmt.Sprintf("read %d but the counter is %d", op.A, s)
}

// Keep drops reads of unknown outcome, adds of unknown outcome of 0, and
// every add of unknown outcome when no completed read observed the counter.
//
// Why this is exact: adds are always legal and commute, so only reads can
// tell whether an add took effect; an add of 0 changes nothing, and
// without completed reads every order is legal.
func (m *counter) Keep(ops []Op) []bool {
	observed := false
	for i := range ops {
		if o := &ops[i]; o.Kind == counterRead && !o.Unknown && o.B != anyRead {
			observed = true
		}
	}
	keep := make([]bool, len(ops))
	for i := range ops {
		o := &ops[i]
		keep[i] = !o.Unknown || o.Kind == counterAdd && observed && o.A != 0
	}
	return keep
}
