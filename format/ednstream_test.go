package format

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/sim"
)

// randomHistories are seeded histories of every kind the differential
// tests write and read: keys, registers with crashes, transactions.
func randomHistories(t *testing.T) map[string]*history.History {
	t.Helper()
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	out := map[string]*history.History{}
	for seed := 1; seed <= seeds; seed++ {
		for _, o := range []sim.RandomOptions{
			{Model: "kv", Ops: 300, Keys: 7, Clients: 6, CrashRate: 0.05},
			{Model: "register", Ops: 200, Clients: 5, CrashRate: 0.1, UniqueValues: true},
			{Model: "cas-register", Ops: 200, Clients: 4, CrashRate: 0.05, Anomaly: "stale-read"},
		} {
			o.Seed = uint32(seed)
			h, err := sim.Random(o)
			if err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("%s seed %d", o.Model, seed)] = h
		}
		for _, registers := range []bool{false, true} {
			h, err := sim.Txns(sim.TxnOptions{Txns: 150, Clients: 5, Keys: 4, WritesPerKey: 8, MaxLength: 4, Registers: registers,
				Isolation: sim.IsoSerializable, FailRate: 0.05, CrashRate: 0.05, Seed: uint32(seed)})
			if err != nil {
				t.Fatal(err)
			}
			out[fmt.Sprintf("txn registers=%v seed %d", registers, seed)] = h
		}
	}
	return out
}

// ednLayouts writes h's events as EDN the ways Jepsen and histcheck write
// them: histcheck's own writer (a vector, or a wrapper map with the
// settings), one op map per line, op records tagged as Jepsen writes them,
// and a list with metadata and comments.
func ednLayouts(t *testing.T, h *history.History) map[string][]byte {
	t.Helper()
	var own bytes.Buffer
	if err := Write(&own, h, EDN); err != nil {
		t.Fatal(err)
	}
	var lines, tagged, list bytes.Buffer
	list.WriteString("^{:jepsen.history/version 1} ; the ops\n(")
	for _, e := range h.Events() {
		text := ednEventText(&e)
		lines.WriteString(text + "\n")
		tagged.WriteString("#jepsen.history.Op" + text + "\n")
		list.WriteString("^:op " + text + " #_ {:gone 1}\n")
	}
	list.WriteString(")\n")
	return map[string][]byte{"writer": own.Bytes(), "lines": lines.Bytes(), "tagged": tagged.Bytes(), "list": list.Bytes()}
}

// withoutLines returns h's operations and warnings with lines cleared, and
// the lines apart, so that histories written with different layouts can
// be compared.
func withoutLines(h *history.History) (*history.History, []int) {
	c := *h
	c.Meta = nil
	c.Ops = append([]history.Op(nil), h.Ops...)
	lines := make([]int, len(c.Ops))
	for i := range c.Ops {
		lines[i], c.Ops[i].Line = c.Ops[i].Line, 0
	}
	return &c, lines
}

// TestEDNAndJSONLinesAgree writes random histories as EDN, in every
// layout, and as JSON Lines, and checks that reading them gives the same
// history: the same operations, values and warnings, each on the line of
// its invocation.
func TestEDNAndJSONLinesAgree(t *testing.T) {
	for name, h := range randomHistories(t) {
		var jl bytes.Buffer
		if err := Write(&jl, h, JSONL); err != nil {
			t.Fatal(err)
		}
		want, err := readJSONL(bytes.NewReader(jl.Bytes()))
		if err != nil {
			t.Fatalf("%s: JSON Lines: %v", name, err)
		}
		wantOps, wantLines := withoutLines(want)
		for layout, src := range ednLayouts(t, h) {
			for _, fast := range []bool{true, false} {
				got, err := readEDN(bytes.NewReader(src), nil, fast)
				if err != nil {
					t.Fatalf("%s, %s, fast %v: %v\n%s", name, layout, fast, err, src)
				}
				gotOps, gotLines := withoutLines(got)
				if !reflect.DeepEqual(gotOps, wantOps) {
					t.Fatalf("%s, %s, fast %v: EDN reads as another history than JSON Lines", name, layout, fast)
				}
				// The layouts put each event on its own line, after
				// a header of a few lines.
				for i := range gotLines {
					if gotLines[i]-gotLines[0] != wantLines[i]-wantLines[0] {
						t.Fatalf("%s, %s: operation %d on line %d, want %d lines after the first", name, layout, i, gotLines[i], wantLines[i]-wantLines[0])
					}
				}
			}
		}
	}
}

// TestEDNStreamWindows reads histories through windows far smaller than
// their op maps, a byte at a time, so that forms, strings and tokens are
// cut at every place, and checks they read as through the default window
// and as the whole-document reader reads them.
func TestEDNStreamWindows(t *testing.T) {
	h := randomHistories(t)["kv seed 1"]
	srcs := ednLayouts(t, h)
	srcs["values"] = []byte(`{:process 0, :type :invoke, :f :write, :value ["a\tb \"q\"" \x \newline #{1 2} {:k [1.5 2N]}] :time 1}
;; a comment
{:process 0, :type :ok, :f :write, :value ["a\tb \"q\"" \x \newline #{1 2} {:k [1.5 2N]}], :time 2, :extra "Ω"}
`)
	for layout, src := range srcs {
		want, err := readEDNWhole(src)
		if err != nil {
			t.Fatalf("%s: %v", layout, err)
		}
		for _, window := range []int{1, 7, 64, 1000} {
			in := newEDNStream(iotest.OneByteReader(bytes.NewReader(src)), nil)
			in.buf = make([]byte, 0, window)
			got, err := readEDNStream(in, true, -1)
			if err != nil {
				t.Fatalf("%s, window %d: %v", layout, window, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, window %d: reads as another history", layout, window)
			}
		}
	}
}

// TestEDNStreamErrors checks the errors only a stream gives: a form longer
// than one form may be, and a form after a history that must be the only
// one.
func TestEDNStreamErrors(t *testing.T) {
	op := "{:process 0, :type :invoke, :f :write, :value 1}\n"
	ops := func(n int) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&sb, "{:process %d, :type :invoke, :f :write, :value 1}\n", i)
		}
		return sb.String()
	}
	tests := []struct {
		name, src string
		limit     int
		line      int
		msg       string
	}{
		{"a form too long", ops(2) + "{:process 2, :type :ok, :f :write, :value \"" + strings.Repeat("x", 5000) + "\"}\n", 4096,
			3, "the form starting here is longer than 4096 bytes"},
		{"a form after the vector", "[" + op + "]\n\n" + op, 0, 4, "unexpected form after the vector of op maps"},
		{"a form after the wrapper", "{:model \"register\"\n :history [" + op + "]}\n" + op, 0, 4, "unexpected form after the map with a :history entry"},
		{"two histories", "{:history []\n :history []}", 0, 2, "the map has a second :history entry (the first at line 1)"},
		{"invalid UTF-8 beyond the first window", ops(2000) + "{:process 0, :type :ok, :f :write, :value \"\xff\"}", 0, 2001, "invalid UTF-8 (byte 0xff)"},
	}
	for _, tc := range tests {
		in := newEDNStream(strings.NewReader(tc.src), nil)
		if tc.limit > 0 {
			in.limit = tc.limit
		}
		_, err := readEDNStream(in, true, -1)
		ie, ok := err.(*history.InputError)
		if !ok || ie.Line != tc.line || !strings.Contains(ie.Msg, tc.msg) {
			t.Errorf("%s: got %v, want line %d: …%s…", tc.name, err, tc.line, tc.msg)
		}
	}
}
