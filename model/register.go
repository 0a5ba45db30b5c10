package model

import (
	"errors"
	"fmt"

	"github.com/histcheck/histcheck/history"
)

// Operation codes of the register models (Op.Kind).
const (
	regRead uint8 = iota
	regWrite
	regCAS
)

// anyRead, in Op.B of a compiled read, marks a read of nil that the NilIsAny
// rule accepts in every state; such a read observes nothing.
const anyRead = 1

// register is the read/write register and, with cas set, the CAS register.
// States are Table ids of the current value.
type register struct {
	info     Info
	cas      bool
	init     history.Value
	nilAny   bool
	versions bool // compile versions (Options.Versions)
}

// NewRegister returns the read/write register: one value, read and written
// whole. It starts at opts.Init, or nil (unset) when that is None.
func NewRegister(opts Options) Model[int64] {
	return newRegister(opts, false)
}

// NewCASRegister returns the register that also has compare-and-set: cas
// [from to] sets the value to "to" if it is "from", and fails otherwise.
func NewCASRegister(opts Options) Model[int64] {
	return newRegister(opts, true)
}

func newRegister(opts Options, cas bool) *register {
	m := &register{cas: cas, init: opts.Init, nilAny: opts.NilRead == NilIsAny, versions: opts.Versions}
	if m.init.IsNone() {
		m.init = history.NilValue
	}
	ops := []OpInfo{
		{Names: []string{"read", "r", "get"}, Value: "any (the value read)", Doc: "returns the current value", Class: ReadOp},
		{Names: []string{"write", "w", "put"}, Value: "any (the value written)", Doc: "sets the value", Class: WriteOp},
	}
	m.info = Info{Name: "register", Doc: "A single register read and written whole; it starts at the initial value (nil by default).", Ops: ops}
	if cas {
		m.info.Name = "cas-register"
		m.info.Doc = "A single register with compare-and-set; it starts at the initial value (nil by default)."
		m.info.Ops = append(m.info.Ops, OpInfo{Names: []string{"cas", "compare-and-set"}, Value: "[from to]", Class: CASOp,
			Doc: "sets the value to \"to\" if it is \"from\"; a cas that finds another value fails and must be recorded as failed"})
	}
	if m.nilAny {
		m.info.Doc += " A read of nil is accepted in every state."
	}
	if m.versions {
		m.info.Doc += " Versions order the writes, and a read returns the write of its version."
	}
	return m
}

func (m *register) Info() Info { return m.info }

// Compile reads the value of a read (an absent value reads as nil), write
// (required) or cas (a [from to] list). With Options.Versions, reads and
// writes are compiled with their versions (see UsesVersions).
func (m *register) Compile(op *history.Op, t *Table) (Op, error) {
	switch op.F {
	case "read", "r", "get":
		o := compileRead(op, t, m.nilAny)
		if m.versions && o.B != anyRead && op.Status != history.Info {
			return compileVersioned(op, false, o.A, 0)
		}
		return o, nil
	case "write", "w", "put":
		if op.Value.IsNone() {
			return Op{}, errors.New("write needs a value")
		}
		if m.versions {
			return compileVersioned(op, true, t.ID(op.Value), 0)
		}
		return Op{Kind: regWrite, A: t.ID(op.Value)}, nil
	case "cas", "compare-and-set":
		if !m.cas {
			break
		}
		if m.versions {
			return Op{}, errVersionedOther
		}
		from, to, err := casArgs(op.Value)
		if err != nil {
			return Op{}, err
		}
		return Op{Kind: regCAS, A: t.ID(from), B: t.ID(to)}, nil
	}
	return Op{}, UnknownOpError(m.info, op.F)
}

// compileRead compiles a read of a register or key: A is the value read.
func compileRead(op *history.Op, t *Table, nilAny bool) Op {
	v := op.Value
	if v.IsNone() {
		v = history.NilValue
	}
	o := Op{Kind: regRead, A: t.ID(v)}
	if nilAny && v.IsNil() {
		o.B = anyRead
	}
	return o
}

// casArgs splits a cas value [from to].
func casArgs(v history.Value) (from, to history.Value, err error) {
	from, to, ok := v.Pair()
	if !ok {
		got := v.String()
		if v.IsNone() {
			got = "no value"
		}
		return from, to, fmt.Errorf("cas needs a value [from to], got %s", got)
	}
	return from, to, nil
}

// Versioned implements VersionOrder.
func (m *register) Versioned(op *Op) (VersionKind, int64) { return versionedOp(op) }

func (m *register) Init(t *Table) int64 { return t.ID(m.init) }

// Finish completes versioned reads and writes (see finishVersions); the
// register is one object, so all its writes share one version order.
func (m *register) Finish(ops []Op, t *Table) error {
	if !m.versions {
		return nil
	}
	return finishVersions(ops, t.ID(m.init), func(val, ver int64) int64 {
		return t.ID(history.ListValue(t.Value(val), history.IntValue(ver)))
	})
}

func (m *register) Step(s int64, op *Op) (int64, bool) {
	switch op.Kind {
	case regRead:
		return s, op.Unknown || op.B == anyRead || op.A == s
	case regWrite:
		return op.A, true
	case regCAS:
		// A cas of unknown outcome is no more lenient: a cas that found
		// another value changed nothing, which is the same as not happening.
		if op.A != s {
			return s, false
		}
		return op.B, true
	}
	return stepVersioned(s, op)
}

// Class classifies reads and writes; a cas is OtherOp.
func (m *register) Class(op *Op) OpClass { return classify(op, regRead, regWrite) }

// classify implements ReadWriteRegister.Class for models whose reads and
// writes are compiled like the register's, given their operation codes.
func classify(op *Op, read, write uint8) OpClass {
	switch op.Kind {
	case read:
		if op.Unknown || op.B == anyRead {
			return AnyReadOp
		}
		return ReadOp
	case write:
		return WriteOp
	case vRead:
		// Legal exactly in the one state A names, and changes nothing.
		if op.Unknown {
			return AnyReadOp
		}
		return ReadOp
	}
	// A versioned write is not blind: it needs an older version.
	return OtherOp
}

func (m *register) Describe(s int64, t *Table) string { return describeState(s, t.Value(s&idMask)) }

func describeValue(v history.Value) string {
	if v.IsNone() {
		return "unset"
	}
	return v.String()
}

// Explain says why op is illegal in s.
func (m *register) Explain(s int64, op *Op, t *Table) string {
	switch op.Kind {
	case regRead:
		return fmt.Sprintf("read %s but the register holds %s", describeValue(t.Value(op.A)), m.Describe(s, t))
	case regCAS:
		return fmt.Sprintf("cas from %s but the register holds %s", describeValue(t.Value(op.A)), m.Describe(s, t))
	}
	return explainVersioned(op, "the register", func(id int64) string { return describeValue(t.Value(id)) }, m.Describe(s, t))
}

// Keep drops reads of unknown outcome, and writes and cas of unknown outcome
// whose value no completed read returned and no cas (of any outcome) expects.
//
// Why this is exact: dropping optional operations can only remove orders, so
// a verdict "valid" stays valid; conversely, in any legal order, while the
// register holds such an unobserved value v, the only legal operations are
// the state-blind ones (writes, unknown reads, NilIsAny reads of nil), since
// reading v or a cas from v would observe it; so deleting the operation that
// wrote v keeps every later operation legal and the state after the next
// write unchanged. Values are compared by id, so duplicates are covered: if
// any completed read returns v, every unknown writer of v is kept.
//
// With versions the argument is the same with states for values: a read
// names the one state it is legal in, and while an unread versioned write's
// state holds, only state-blind operations and later-versioned writes can
// take effect; without the write, the state before it is older still, so
// every later write stays legal.
func (m *register) Keep(ops []Op) []bool {
	return keepObserved(ops, regRead, regWrite, regCAS)
}

// keepObserved implements Keep for models whose reads, writes and cas are
// compiled like the register's, given their operation codes.
func keepObserved(ops []Op, read, write, cas uint8) []bool {
	observed := make(map[int64]bool)
	for i := range ops {
		o := &ops[i]
		switch {
		case o.Kind == read && !o.Unknown && o.B != anyRead:
			observed[o.A] = true
		case o.Kind == cas:
			observed[o.A] = true
		case o.Kind == vRead && !o.Unknown && o.A != noState:
			observed[o.A] = true
		}
	}
	keep := make([]bool, len(ops))
	for i := range ops {
		o := &ops[i]
		switch {
		case !o.Unknown:
			keep[i] = true
		case o.Kind == read || o.Kind == vRead:
			keep[i] = false
		case o.Kind == write || o.Kind == vWrite:
			keep[i] = observed[o.A]
		case o.Kind == cas:
			keep[i] = observed[o.B]
		default:
			keep[i] = true
		}
	}
	return keep
}

// Value implements Valued: the state is the value's id, so a register
// that holds it starts from that value. Versioned states are not values.
func (m *register) Value(s int64, t *Table) (history.Value, bool) {
	v := t.Value(s)
	return v, !m.versions && !v.IsNone()
}
