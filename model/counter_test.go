package model

import (
	"math"
	"testing"

	"github.com/histcheck/histcheck/history"
)

func TestCounterStep(t *testing.T) {
	info, null := history.Info, history.NilValue
	n := history.IntValue
	runSteps(t, NewCounter, []stepCase{
		{name: "starts at 0", ops: []*history.Op{hop("read", v0)}, legal: true, state: "0"},
		{name: "initial value", opts: Options{Init: n(5)}, ops: []*history.Op{hop("add", n(-7)), hop("r", n(-2))}, legal: true, state: "-2"},
		{name: "adds", ops: []*history.Op{hop("add", n(3)), hop("incr", n(4)), hop("read", n(7))}, legal: true, state: "7"},
		{name: "lost add", ops: []*history.Op{hop("add", n(3)), hop("add", n(4)), hop("read", n(4))}, why: "read 4 but the counter is 7"},
		{name: "wraps at 64 bits", opts: Options{Init: n(math.MaxInt64)}, ops: []*history.Op{hop("add", n(1)), hop("read", n(math.MinInt64))},
			legal: true, state: "-9223372036854775808"},
		{name: "unknown read accepts anything", ops: []*history.Op{hop("read", null, info)}, legal: true, state: "0"},
		{name: "unknown add takes effect", ops: []*history.Op{hop("add", n(2), info), hop("read", n(2))}, legal: true, state: "2"},
		{name: "nil read is any", opts: Options{NilRead: NilIsAny}, ops: []*history.Op{hop("add", n(2)), hop("read", null)}, legal: true, state: "2"},
	})
}

func TestCounterCompileErrors(t *testing.T) {
	big, _ := history.BigIntValue("99999999999999999999")
	tests := []struct {
		name string
		opts Options
		op   *history.Op
		want string
	}{
		{"unknown op", Options{}, hop("decr", v1), `model counter has no operation "decr" (it knows [add read])`},
		{"add a string", Options{}, hop("add", str("x")), "add needs a 64-bit integer amount, got string x"},
		{"add too big", Options{}, hop("incr", big), "incr needs a 64-bit integer amount, got int 99999999999999999999"},
		{"add nothing", Options{}, hop("add", history.Value{}), "add needs a 64-bit integer amount, got no value"},
		{"read nil", Options{}, hop("read", history.NilValue), "read needs the 64-bit integer read, got nil"},
		{"list init", Options{Init: listOf(v1)}, hop("read", v1), "the counter model's initial value must be a 64-bit integer, got list [1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewCounter(tt.opts).Compile(tt.op, NewTable())
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestCounterKeep(t *testing.T) {
	info, null := history.Info, history.NilValue
	n := history.IntValue
	tests := []struct {
		name string
		ops  []*history.Op
		keep []bool
	}{
		{"observed adds kept", []*history.Op{hop("add", n(1), info), hop("add", n(0), info), hop("read", null, info), hop("read", n(1))},
			[]bool{true, false, false, true}},
		{"nothing read", []*history.Op{hop("add", n(1), info), hop("add", n(2)), hop("read", n(3), info)}, []bool{false, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runKeep(t, NewCounter(Options{}), tt.ops, tt.keep) })
	}
}
