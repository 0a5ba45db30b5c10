package model

import (
	"errors"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// vop builds a versioned history operation on key k (None for a register).
func vop(f string, k string, v, ver int64) *history.Op {
	o := &history.Op{Client: "A", F: f, Value: history.IntValue(v), Version: history.IntValue(ver), Status: history.OK}
	if k != "" {
		o.Key = history.StringValue(k)
	}
	return o
}

// versionCase compiles every op (history order), finishes them, and steps
// them in the order given by steps (indices into ops, per key for kv): the
// last step must have the given legality.
type versionCase struct {
	name  string
	ops   []*history.Op
	steps []int
	legal bool
	state string // Describe after the last step when legal
	why   string // Explain of the last step when illegal
}

func runVersioned(t *testing.T, mk func(Options) Model[int64], tests []versionCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mk(Options{Init: v0, Versions: true})
			tab := NewTable()
			ops := make([]Op, len(tt.ops))
			for i, o := range tt.ops {
				ops[i] = compileOp(t, m, o, tab)
			}
			if err := m.(Finisher).Finish(ops, tab); err != nil {
				t.Fatal(err)
			}
			states := map[history.Value]int64{}
			for n, i := range tt.steps {
				k := tt.ops[i].Key
				s, ok := states[k]
				if !ok {
					s = m.Init(tab)
				}
				next, legal := m.Step(s, &ops[i])
				if n < len(tt.steps)-1 {
					if !legal {
						t.Fatalf("step %d (%s) illegal in %s", n, tt.ops[i].Label(), m.Describe(s, tab))
					}
					states[k] = next
					continue
				}
				if legal != tt.legal {
					t.Fatalf("last step %s in %s: legal = %v, want %v", tt.ops[i].Label(), m.Describe(s, tab), legal, tt.legal)
				}
				if legal {
					if got := m.Describe(next, tab); got != tt.state {
						t.Errorf("state %s, want %s", got, tt.state)
					}
					return
				}
				if got := m.(Explainer[int64]).Explain(s, &ops[i], tab); got != tt.why {
					t.Errorf("explanation %q, want %q", got, tt.why)
				}
			}
		})
	}
}

// versionCases hold for the register and, on one key, for kv.
func versionCases(key, what string) []versionCase {
	w1 := vop("write", key, 1, 1)
	w1b := vop("write", key, 1, 2) // the same value, a newer version
	w2 := vop("write", key, 2, 3)
	return []versionCase{
		{name: "writes in version order", ops: []*history.Op{w1, w1b}, steps: []int{0, 1}, legal: true, state: "1 (version 2)"},
		{name: "a write after a newer one", ops: []*history.Op{w1, w1b}, steps: []int{1, 0},
			why: "write of version 1 after " + what + " holds 1 (version 2): writes take effect in version order"},
		{name: "versions may skip", ops: []*history.Op{w1, w2}, steps: []int{0, 1}, legal: true, state: "2 (version 3)"},
		{name: "a read of its version's write", ops: []*history.Op{w1, w1b, vop("read", key, 1, 1)}, steps: []int{0, 2}, legal: true, state: "1 (version 1)"},
		{name: "the same value, another version", ops: []*history.Op{w1, w1b, vop("read", key, 1, 1)}, steps: []int{0, 1, 2},
			why: "read 1 at version 1 but " + what + " holds 1 (version 2)"},
		{name: "a value its version's write did not write", ops: []*history.Op{w1, vop("read", key, 2, 1)}, steps: []int{0, 1},
			why: "read 2 at version 1, which is neither the value the write of version 1 wrote nor an initial value no write replaced"},
		{name: "the initial value at version 0", ops: []*history.Op{w1, vop("read", key, 0, 0)}, steps: []int{1}, legal: true, state: "0"},
		{name: "the initial value at a version nobody wrote", ops: []*history.Op{w1, vop("read", key, 0, 7)}, steps: []int{1}, legal: true, state: "0"},
		{name: "the initial value after a write", ops: []*history.Op{w1, vop("read", key, 0, 0)}, steps: []int{0, 1},
			why: "read 0 at version 0 but " + what + " holds 1 (version 1)"},
		{name: "a value nobody wrote", ops: []*history.Op{w1, vop("read", key, 5, 9)}, steps: []int{0, 1},
			why: "read 5 at version 9, which is neither the value the write of version 9 wrote nor an initial value no write replaced"},
	}
}

func TestRegisterVersions(t *testing.T) {
	runVersioned(t, NewRegister, versionCases("", "the register"))
	runVersioned(t, NewCASRegister, versionCases("", "the register"))
}

func TestKVVersions(t *testing.T) {
	runVersioned(t, NewKV, versionCases("x", "the key"))
	// Each key has its own version order.
	runVersioned(t, NewKV, []versionCase{
		{name: "keys apart", ops: []*history.Op{vop("put", "x", 1, 5), vop("put", "y", 2, 1), vop("get", "y", 2, 1)},
			steps: []int{0, 1, 2}, legal: true, state: "2 (version 1)"},
	})
}

// TestVersionsInputErrors covers what a history that uses versions cannot
// hold.
func TestVersionsInputErrors(t *testing.T) {
	opts := Options{Init: v0, Versions: true}
	noVersion := &history.Op{Client: "A", F: "read", Value: v1, Status: history.OK}
	for _, tt := range []struct {
		name string
		m    func(Options) Model[int64]
		op   *history.Op
		want string
	}{
		{"register read without a version", NewRegister, noVersion, "no integer version"},
		{"kv cas", NewKV, &history.Op{Client: "A", F: "cas", Value: cas(v0, v1), Version: v1, Status: history.OK}, "reads and writes only"},
		{"kv append", NewKV, &history.Op{Client: "A", F: "append", Value: history.StringValue("a"), Version: v1, Status: history.OK}, "reads and writes only"},
		{"cas-register cas", NewCASRegister, &history.Op{Client: "A", F: "cas", Value: cas(v0, v1), Version: v1, Status: history.OK}, "reads and writes only"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.m(opts).Compile(tt.op, NewTable())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	// A read of unknown outcome and a read of nil under NilIsAny need none.
	unknown := &history.Op{Client: "A", F: "read", Status: history.Info}
	if _, err := NewRegister(opts).Compile(unknown, NewTable()); err != nil {
		t.Errorf("unknown read: %v", err)
	}
	anyNil := &history.Op{Client: "A", F: "read", Value: history.NilValue, Status: history.OK}
	if _, err := NewRegister(Options{Versions: true, NilRead: NilIsAny}).Compile(anyNil, NewTable()); err != nil {
		t.Errorf("nil read under NilIsAny: %v", err)
	}
	// Two writes with one version.
	m := NewRegister(opts)
	tab := NewTable()
	ops := []Op{compileOp(t, m, vop("write", "", 1, 3), tab), compileOp(t, m, vop("write", "", 2, 3), tab)}
	var oe *OpsError
	if err := m.(Finisher).Finish(ops, tab); !errors.As(err, &oe) || len(oe.Ops) != 2 {
		t.Errorf("duplicate versions: %v, want an OpsError naming both writes", err)
	}
}

func TestUsesVersions(t *testing.T) {
	w := func(k string, ver int64) history.Op { return *vop("write", k, 1, ver) }
	r := func(ver int64) history.Op { return *vop("read", "", 1, ver) }
	plain := history.Op{Client: "A", F: "read", Value: v1, Status: history.OK}
	failed := history.Op{Client: "A", F: "write", Value: v1, Status: history.Fail}
	unknownRead := history.Op{Client: "A", F: "read", Status: history.Info}
	unknownWrite := history.Op{Client: "A", F: "write", Value: v2, Status: history.Info}
	for _, tt := range []struct {
		name string
		ops  []history.Op
		want bool
	}{
		{"all carry one", []history.Op{w("", 1), r(1)}, true},
		{"failed and unknown reads need none", []history.Op{w("", 1), failed, unknownRead}, true},
		{"an unknown write needs one", []history.Op{w("", 1), unknownWrite}, false},
		{"one read without", []history.Op{w("", 1), plain}, false},
		{"a repeated write version", []history.Op{w("", 1), w("", 1)}, false},
		{"the same version on two keys", []history.Op{w("x", 1), w("y", 1)}, true},
		{"no versions at all", []history.Op{plain}, false},
		{"nothing that carries one", []history.Op{failed}, false},
	} {
		if got := UsesVersions(&history.History{Ops: tt.ops}); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
