package history_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/history"
)

func op(client, f string, v history.Value, call, ret int64, st history.Type, line int) history.Op {
	return history.Op{Client: client, F: f, Value: v, Call: call, Return: ret, Status: st, Line: line, Index: int64(line - 1)}
}

func TestFromOps(t *testing.T) {
	tests := []struct {
		name      string
		ops       []history.Op
		want      []opSummary
		processes int
		clients   int
		warnings  []string
	}{
		{
			name: "sorted by call, processes numbered by first call",
			ops: []history.Op{
				op("C", "read", i1, 6, 8, history.OK, 1),
				op("A", "write", i1, 0, 10, history.OK, 2),
				op("B", "read", i0, 2, 4, history.OK, 3),
			},
			want: []opSummary{
				{0, "A", "write", i1, 0, 10, history.OK, 1, 2},
				{1, "B", "read", i0, 2, 4, history.OK, 2, 3},
				{2, "C", "read", i1, 6, 8, history.OK, 0, 1},
			},
			processes: 3, clients: 3,
		},
		{
			name: "one client, touching intervals",
			ops: []history.Op{
				op("A", "write", i1, 0, 2, history.OK, 1),
				op("A", "read", i0, 2, 5, history.OK, 2),
			},
			want: []opSummary{
				{0, "A", "write", i1, 0, 2, history.OK, 0, 1},
				{0, "A", "read", i0, 2, 5, history.OK, 1, 2},
			},
			processes: 1, clients: 1,
		},
		{
			name: "info returns never and the client continues as a new process",
			ops: []history.Op{
				op("D", "write", i3, 4, 6, history.Info, 1),
				op("D", "read", i3, 7, 9, history.OK, 2),
				op("E", "write", i2, 1, 3, history.Fail, 3),
			},
			want: []opSummary{
				{0, "E", "write", i2, 1, 3, history.Fail, 2, 3},
				{1, "D", "write", i3, 4, inf, history.Info, 0, 1},
				{2, "D", "read", i3, 7, 9, history.OK, 1, 2},
			},
			processes: 3, clients: 2,
			warnings: []string{"process D invoked again after an operation with unknown outcome (line 2); treating it as a new logical process"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]history.Op(nil), tc.ops...)
			h, err := history.FromOps(tc.ops)
			if err != nil {
				t.Fatal(err)
			}
			if got := summarize(h); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ops:\n got %+v\nwant %+v", got, tc.want)
			}
			if h.Processes != tc.processes || h.Clients != tc.clients {
				t.Errorf("processes/clients = %d/%d, want %d/%d", h.Processes, h.Clients, tc.processes, tc.clients)
			}
			if !reflect.DeepEqual(h.Warnings, tc.warnings) {
				t.Errorf("warnings:\n got %q\nwant %q", h.Warnings, tc.warnings)
			}
			if !reflect.DeepEqual(in, tc.ops) {
				t.Error("FromOps changed its input")
			}
		})
	}
}

func TestFromOpsErrors(t *testing.T) {
	tests := []struct {
		name string
		ops  []history.Op
		line int
		op   int
		msg  string
	}{
		{"return before call", []history.Op{op("A", "write", i1, 5, 3, history.OK, 4)}, 4, 0,
			"return time 3 is before call time 5"},
		{"two open at once", []history.Op{
			op("A", "write", i1, 0, 10, history.OK, 3),
			op("B", "read", i1, 1, 2, history.OK, 4),
			op("A", "read", i1, 4, 12, history.OK, 5)}, 5, 0,
			"process A has two operations open at once: lines 3 and 5"},
		{"two open at once, later line starts first", []history.Op{
			op("A", "write", i1, 4, 10, history.OK, 3),
			op("A", "read", i1, 0, 6, history.OK, 7)}, 7, 0,
			"process A has two operations open at once: lines 3 and 7"},
		{"two open at once without lines", []history.Op{
			op("A", "write", i1, 0, 10, history.OK, 0),
			op("A", "read", i1, 4, 12, history.OK, 0)}, 0, 2,
			"process A has two operations open at once: operations 1 and 2"},
		{"no client", []history.Op{op("", "write", i1, 0, 1, history.OK, 2)}, 2, 0, "operation has no process"},
		{"ok without return", []history.Op{op("A", "write", i1, 0, inf, history.OK, 2)}, 2, 0,
			"an ok operation needs a return time; an operation with unknown outcome has status info"},
		{"invoke status", []history.Op{op("A", "write", i1, 0, 1, history.Invoke, 2)}, 2, 0,
			"operation has status invoke; expected ok, fail or info"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := history.FromOps(tc.ops)
			var ie *history.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InputError", err)
			}
			if ie.Line != tc.line || ie.Op != tc.op || ie.Msg != tc.msg {
				t.Errorf("got line %d op %d %q\nwant line %d op %d %q", ie.Line, ie.Op, ie.Msg, tc.line, tc.op, tc.msg)
			}
		})
	}
}
