package history_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/history"
)

func TestSplitTuples(t *testing.T) {
	kx, ky := history.StringValue("x"), history.IntValue(7)
	h := &history.History{Ops: []history.Op{
		{Client: "0", F: "write", Value: history.ListValue(kx, i1), Status: history.OK, Line: 1},
		{Client: "1", F: "read", Value: history.ListValue(ky, nilv), Status: history.Info, Line: 2},
		{Client: "2", F: "cas", Value: history.ListValue(kx, history.ListValue(i1, i2)), Status: history.OK, Line: 3},
	}}
	if err := h.SplitTuples(); err != nil {
		t.Fatal(err)
	}
	want := []struct{ k, v history.Value }{{kx, i1}, {ky, nilv}, {kx, history.ListValue(i1, i2)}}
	for i, w := range want {
		if o := h.Ops[i]; o.Key != w.k || o.Value != w.v {
			t.Errorf("op %d: key %#v value %#v, want %#v %#v", i, o.Key, o.Value, w.k, w.v)
		}
	}
}

func TestSplitTuplesErrors(t *testing.T) {
	tests := []struct {
		name string
		op   history.Op
		msg  string
	}{
		{"not a list", history.Op{Client: "0", F: "write", Value: i1, Line: 9},
			"operation 0:w(1): expected a value [key value] for independent keys, got 1"},
		{"three elements", history.Op{Client: "0", F: "write", Value: history.ListValue(i1, i2, i3), Line: 9},
			"operation 0:w([1 2 3]): expected a value [key value] for independent keys, got [1 2 3]"},
		{"nil", history.Op{Client: "0", F: "read", Value: nilv, Line: 9},
			"operation 0:r(nil): expected a value [key value] for independent keys, got nil"},
		{"missing", history.Op{Client: "0", F: "read", Line: 9},
			"operation 0:r(): expected a value [key value] for independent keys, got no value"},
		{"already keyed", history.Op{Client: "0", F: "write", Key: history.StringValue("k"), Value: history.ListValue(i1, i2), Line: 9},
			"operation 0:w(k, [1 2]) already has a key (k); independent tuples carry the key in the value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			good := history.Op{Client: "1", F: "write", Value: history.ListValue(i1, i2), Line: 1}
			h := &history.History{Ops: []history.Op{good, tc.op}}
			err := h.SplitTuples()
			var ie *history.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InputError", err)
			}
			if ie.Line != 9 || ie.Msg != tc.msg {
				t.Errorf("got line %d %q, want line 9 %q", ie.Line, ie.Msg, tc.msg)
			}
			if !reflect.DeepEqual(h.Ops[0], good) {
				t.Error("a failed split changed the history")
			}
		})
	}
}
