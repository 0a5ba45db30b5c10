package history

import "testing"

func TestLabel(t *testing.T) {
	s := StringValue
	tests := []struct {
		name string
		op   Op
		want string
	}{
		{"write", Op{Client: "A", F: "write", Value: IntValue(1), Status: OK}, "A:w(1)"},
		{"read", Op{Client: "B", F: "read", Value: IntValue(0), Status: OK}, "B:r(0)"},
		{"keyed", Op{Client: "A", F: "w", Key: s("x"), Value: IntValue(1), Status: OK}, "A:w(x, 1)"},
		{"cas", Op{Client: "C", F: "cas", Value: ListValue(IntValue(1), IntValue(2)), Status: OK}, "C:cas(1, 2)"},
		{"unknown read", Op{Client: "A", F: "read", Value: NilValue, Status: Info}, "A:r(?)"},
		{"read of nil", Op{Client: "A", F: "read", Value: NilValue, Status: OK}, "A:r(nil)"},
		{"write of nil", Op{Client: "A", F: "write", Value: NilValue, Status: OK}, "A:w(nil)"},
		{"put of nil", Op{Client: "A", F: "put", Key: s("k"), Value: NilValue, Status: OK}, "A:put(k, nil)"},
		{"acquire", Op{Client: "A", F: "acquire", Value: NilValue, Status: OK}, "A:acquire()"},
		{"dequeue that returned nil", Op{Client: "A", F: "dequeue", Value: NilValue, Status: OK}, "A:dequeue(nil)"},
		{"dequeue of unknown outcome", Op{Client: "A", F: "dequeue", Value: NilValue, Status: Info}, "A:dequeue()"},
		{"forged verdict in a process name",
			Op{Client: "A\nx.json\tlinearizable\ttrue", F: "write", Value: IntValue(1), Status: OK},
			`"A\nx.json\tlinearizable\ttrue":w(1)`},
		{"escape sequence in a process name", Op{Client: "\x1b[2J", F: "read", Value: IntValue(1), Status: OK}, `"\x1b[2J":r(1)`},
		{"controls in an operation name", Op{Client: "A", F: "inc\r\x9b", Value: NilValue, Status: OK}, `A:"inc\r\x9b"()`},
		{"bidi in a value", Op{Client: "A", F: "write", Value: s("abc\u202e"), Status: OK}, `A:w("abc\u202e")`},
		{"NUL in a value", Op{Client: "A", F: "write", Value: s("\x00nil"), Status: OK}, `A:w("\x00nil")`},
		{"newline in a key", Op{Client: "A", F: "w", Key: s("k\n"), Value: IntValue(1), Status: OK}, `A:w("k\n", 1)`},
		{"invalid UTF-8 in a list", Op{Client: "A", F: "append", Value: ListValue(s("\xff")), Status: OK}, `A:append(["\xff"])`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.op.Label()
			if got != tt.want {
				t.Errorf("Label() = %s, want %s", got, tt.want)
			}
			if !safe(got) {
				t.Errorf("Label() = %q holds a control character", got)
			}
		})
	}
}
