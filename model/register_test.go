package model

import (
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
)

var (
	v0 = history.IntValue(0)
	v1 = history.IntValue(1)
	v2 = history.IntValue(2)
)

// hop builds a history operation; status defaults to OK.
func hop(f string, v history.Value, status ...history.Type) *history.Op {
	o := &history.Op{Client: "A", F: f, Value: v, Status: history.OK}
	if len(status) > 0 {
		o.Status = status[0]
	}
	return o
}

func cas(from, to history.Value) history.Value { return history.ListValue(from, to) }

// compileOp compiles op as checker.Compile does, marking unknown outcomes.
func compileOp[S comparable](t *testing.T, m Model[S], op *history.Op, tab *Table) Op {
	t.Helper()
	o, err := m.Compile(op, tab)
	if err != nil {
		t.Fatalf("compile %s: %v", op.Label(), err)
	}
	o.Unknown = op.Status == history.Info
	return o
}

// stepCase applies ops in order from the initial state: the last must have
// the given legality, the others must be legal; then the state is described.
type stepCase struct {
	name  string
	opts  Options
	ops   []*history.Op
	legal bool
	state string // Describe of the state after the last op when legal
	why   string // Explain of the last op when illegal
}

func runSteps[S comparable](t *testing.T, mk func(Options) Model[S], tests []stepCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mk(tt.opts)
			tab := NewTable()
			ops := make([]Op, len(tt.ops))
			for i, o := range tt.ops {
				ops[i] = compileOp(t, m, o, tab)
			}
			s := m.Init(tab)
			for i := range ops {
				next, ok := m.Step(s, &ops[i])
				if i < len(ops)-1 {
					if !ok {
						t.Fatalf("step %d (%s) illegal in %s", i, tt.ops[i].Label(), m.Describe(s, tab))
					}
					s = next
					continue
				}
				if ok != tt.legal {
					t.Fatalf("last step %s in %s: legal = %v, want %v", tt.ops[i].Label(), m.Describe(s, tab), ok, tt.legal)
				}
				if ok {
					if got := m.Describe(next, tab); got != tt.state {
						t.Errorf("state %s, want %s", got, tt.state)
					}
					return
				}
				e, isE := m.(Explainer[S])
				if !isE {
					t.Fatal("model has no Explainer")
				}
				if got := e.Explain(s, &ops[i], tab); got != tt.why {
					t.Errorf("explanation %q, want %q", got, tt.why)
				}
			}
		})
	}
}

func TestRegisterStep(t *testing.T) {
	runSteps(t, NewRegister, []stepCase{
		{name: "initial nil", ops: []*history.Op{hop("read", history.NilValue)}, legal: true, state: "nil"},
		{name: "initial given", opts: Options{Init: v0}, ops: []*history.Op{hop("r", v0)}, legal: true, state: "0"},
		{name: "absent read value is nil", ops: []*history.Op{hop("read", history.Value{})}, legal: true, state: "nil"},
		{name: "stale read", opts: Options{Init: v0}, ops: []*history.Op{hop("write", v1), hop("read", v0)}, why: "read 0 but the register holds 1"},
		{name: "write then read", ops: []*history.Op{hop("w", v1), hop("get", v1)}, legal: true, state: "1"},
		{name: "put", ops: []*history.Op{hop("put", history.StringValue("x y"))}, legal: true, state: `"x y"`},
		{name: "nil read is a value", opts: Options{Init: v0}, ops: []*history.Op{hop("read", history.NilValue)}, why: "read nil but the register holds 0"},
		{name: "nil read is any", opts: Options{Init: v0, NilRead: NilIsAny}, ops: []*history.Op{hop("read", history.NilValue)}, legal: true, state: "0"},
		{name: "any applies only to nil", opts: Options{Init: v0, NilRead: NilIsAny}, ops: []*history.Op{hop("read", v1)}, why: "read 1 but the register holds 0"},
		{name: "unknown read accepts anything", opts: Options{Init: v0}, ops: []*history.Op{hop("read", v2, history.Info)}, legal: true, state: "0"},
		{name: "unknown write takes effect", ops: []*history.Op{hop("write", v2, history.Info), hop("read", v2)}, legal: true, state: "2"},
	})
}

func TestCASRegisterStep(t *testing.T) {
	runSteps(t, NewCASRegister, []stepCase{
		{name: "cas succeeds", opts: Options{Init: v0}, ops: []*history.Op{hop("cas", cas(v0, v1)), hop("read", v1)}, legal: true, state: "1"},
		{name: "cas from another value", opts: Options{Init: v1}, ops: []*history.Op{hop("cas", cas(v2, v0))}, why: "cas from 2 but the register holds 1"},
		{name: "cas long name", ops: []*history.Op{hop("compare-and-set", cas(history.NilValue, v2))}, legal: true, state: "2"},
		// An unknown cas that happened must have succeeded.
		{name: "unknown cas must succeed", opts: Options{Init: v1}, ops: []*history.Op{hop("cas", cas(v0, v2), history.Info)}, why: "cas from 0 but the register holds 1"},
		{name: "second cas from same value", opts: Options{Init: v0}, ops: []*history.Op{hop("cas", cas(v0, v1)), hop("cas", cas(v0, v2))}, why: "cas from 0 but the register holds 1"},
		{name: "reads still work", opts: Options{Init: v0}, ops: []*history.Op{hop("write", v2), hop("read", v1)}, why: "read 1 but the register holds 2"},
	})
}

func TestRegisterCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		m    Model[int64]
		op   *history.Op
		want string
	}{
		{"cas on plain register", NewRegister(Options{}), hop("cas", cas(v0, v1)), `model register has no operation "cas" (it knows [read write])`},
		{"unknown op", NewCASRegister(Options{}), hop("incr", v1), `model cas-register has no operation "incr" (it knows [read write cas])`},
		{"cas scalar", NewCASRegister(Options{}), hop("cas", history.IntValue(3)), "cas needs a value [from to], got 3"},
		{"cas three", NewCASRegister(Options{}), hop("cas", history.ListValue(v0, v1, v2)), "cas needs a value [from to], got [0 1 2]"},
		{"cas none", NewCASRegister(Options{}), hop("cas", history.Value{}), "cas needs a value [from to], got no value"},
		{"write none", NewRegister(Options{}), hop("write", history.Value{}), "write needs a value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.m.Compile(tt.op, NewTable())
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRegisterInfo(t *testing.T) {
	for _, tt := range []struct {
		m    Model[int64]
		name string
		ops  int
	}{{NewRegister(Options{}), "register", 2}, {NewCASRegister(Options{}), "cas-register", 3}} {
		i := tt.m.Info()
		if i.Name != tt.name || len(i.Ops) != tt.ops || i.Keyed || i.Doc == "" {
			t.Errorf("info %+v", i)
		}
		if _, ok := tt.m.(Pruner); !ok {
			t.Errorf("%s has no Pruner", tt.name)
		}
	}
	if doc := NewRegister(Options{NilRead: NilIsAny}).Info().Doc; !strings.Contains(doc, "read of nil") {
		t.Errorf("doc %q does not mention the nil rule", doc)
	}
}

func TestRegisterKeep(t *testing.T) {
	info := history.Info
	tests := []struct {
		name string
		opts Options
		ops  []*history.Op
		keep []bool
	}{
		{
			name: "unknown read dropped, completed kept",
			ops:  []*history.Op{hop("read", history.NilValue, info), hop("read", v1), hop("write", v1)},
			keep: []bool{false, true, true},
		},
		{
			name: "unknown write observed by a read",
			ops:  []*history.Op{hop("write", v1, info), hop("read", v1)},
			keep: []bool{true, true},
		},
		{
			name: "unknown write unobserved",
			ops:  []*history.Op{hop("write", v1, info), hop("read", v0)},
			keep: []bool{false, true},
		},
		{
			// An unknown read of 1 observes nothing.
			name: "observed only by unknown read",
			ops:  []*history.Op{hop("write", v1, info), hop("read", v1, info)},
			keep: []bool{false, false},
		},
		{
			// Both writers of 1 are kept: either may be the one read.
			name: "duplicate values",
			ops:  []*history.Op{hop("write", v1, info), hop("write", v1, info), hop("write", v2, info), hop("read", v1)},
			keep: []bool{true, true, false, true},
		},
		{
			name: "observed by cas from",
			ops:  []*history.Op{hop("write", v1, info), hop("cas", cas(v1, v2), info), hop("cas", cas(v0, v2), info)},
			keep: []bool{true, false, false},
		},
		{
			name: "cas kept when its result is read",
			ops:  []*history.Op{hop("cas", cas(v0, v2), info), hop("read", v2)},
			keep: []bool{true, true},
		},
		{
			// Under NilIsAny a read of nil observes nothing.
			name: "nil read is any",
			opts: Options{NilRead: NilIsAny},
			ops:  []*history.Op{hop("write", history.NilValue, info), hop("read", history.NilValue)},
			keep: []bool{false, true},
		},
		{
			name: "nil read is a value",
			ops:  []*history.Op{hop("write", history.NilValue, info), hop("read", history.NilValue)},
			keep: []bool{true, true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewCASRegister(tt.opts)
			tab := NewTable()
			ops := make([]Op, len(tt.ops))
			for i, o := range tt.ops {
				ops[i] = compileOp(t, m, o, tab)
			}
			got := m.(Pruner).Keep(ops)
			for i := range got {
				if got[i] != tt.keep[i] {
					t.Fatalf("keep %v, want %v", got, tt.keep)
				}
			}
		})
	}
}
