package format_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

type textbookOp struct {
	label     string
	process   int
	call, ret int64
	status    history.Type
	line      int
}

// The textbook histories H1–H3: register, initial value 0.
var textbook = map[string][]textbookOp{
	"h1": {{"A:w(1)", 0, 0, 10, history.OK, 1}, {"B:r(0)", 1, 2, 4, history.OK, 2}, {"C:r(1)", 2, 6, 8, history.OK, 3}},
	"h2": {{"A:w(1)", 0, 0, 10, history.OK, 1}, {"B:r(1)", 1, 2, 4, history.OK, 2}, {"C:r(0)", 2, 6, 8, history.OK, 3}},
	"h3": {{"A:w(1)", 0, 0, 2, history.OK, 1}, {"A:r(0)", 0, 3, 5, history.OK, 2}},
}

func TestTextbookHistories(t *testing.T) {
	dir := filepath.Join("..", "testdata", "histories", "textbook")
	for name, want := range textbook {
		files := map[string]int{ // file → line of the first operation
			filepath.Join(dir, name+".hist"):                5,
			filepath.Join(dir, "json", name+"-ops.json"):    1,
			filepath.Join(dir, "json", name+"-tuples.json"): 1,
		}
		for file, firstLine := range files {
			h, err := format.ReadFile(file, "")
			if err != nil {
				t.Fatal(err)
			}
			var got []textbookOp
			for i, o := range h.Ops {
				got = append(got, textbookOp{o.Label(), o.Process, o.Call, o.Return, o.Status, o.Line - firstLine + 1})
				if o.F != "write" && o.F != "read" {
					t.Errorf("%s: op %d has f %q, want write or read", file, i, o.F)
				}
				if o.Index != int64(i) {
					t.Errorf("%s: op %d has index %d", file, i, o.Index)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s:\n got %+v\nwant %+v", file, got, want)
			}
			wantClients := 3
			if name == "h3" {
				wantClients = 1
			}
			if h.Clients != wantClients || h.Processes != wantClients {
				t.Errorf("%s: clients/processes = %d/%d, want %d", file, h.Clients, h.Processes, wantClients)
			}
			if strings.HasSuffix(file, ".hist") {
				wantMeta := map[string]history.Value{"model": history.StringValue("register"), "init": history.IntValue(0)}
				if !reflect.DeepEqual(h.Meta, wantMeta) {
					t.Errorf("%s: meta %v, want %v", file, h.Meta, wantMeta)
				}
			}
		}
	}
}

// TestNotation covers the forms of an operation line.
func TestNotation(t *testing.T) {
	s, n := history.StringValue, history.IntValue
	tests := []struct {
		line       string
		f          string
		key, value history.Value
		call, ret  int64
		status     history.Type
	}{
		{"A: w(1) [0, 10]", "write", history.Value{}, n(1), 0, 10, history.OK},
		{"B: r(0) [2,4]", "read", history.Value{}, n(0), 2, 4, history.OK},
		{"B: r->0 [2, 4]", "read", history.Value{}, n(0), 2, 4, history.OK},
		{"B: r → 0 [2, 4]", "read", history.Value{}, n(0), 2, 4, history.OK},
		{"B: r() -> nil [2, 4]", "read", history.Value{}, history.NilValue, 2, 4, history.OK},
		{"C: cas(1, 2) [3, 5]", "cas", history.Value{}, history.ListValue(n(1), n(2)), 3, 5, history.OK},
		{"D: w(3) [4, ?]", "write", history.Value{}, n(3), 4, history.Infinity, history.Info},
		{"D: w(3) [4, ∞]", "write", history.Value{}, n(3), 4, history.Infinity, history.Info},
		{"D: w(3) [4, inf] info", "write", history.Value{}, n(3), 4, history.Infinity, history.Info},
		{"D: w(3) [4, 9] info", "write", history.Value{}, n(3), 4, history.Infinity, history.Info},
		{"E: w(3) [4, 6] fail", "write", history.Value{}, n(3), 4, 6, history.Fail},
		{"E: w(3) [4, 6] ok # done", "write", history.Value{}, n(3), 4, 6, history.OK},
		{"F: w(x, 1) [0, 3]", "write", s("x"), n(1), 0, 3, history.OK},
		{"G: r(x)->1 [4, 5]", "read", s("x"), n(1), 4, 5, history.OK},
		{"G: r(x, 1) [4, 5]", "read", s("x"), n(1), 4, 5, history.OK},
		{"G: r(x)->? [4, ?]", "read", s("x"), history.NilValue, 4, history.Infinity, history.Info},
		{"G: r(x) [4, 5]", "read", history.Value{}, s("x"), 4, 5, history.OK},
		{"H: cas(x, 1, 2) [6, 7]", "cas", s("x"), history.ListValue(n(1), n(2)), 6, 7, history.OK},
		{"I: acquire [0, 1]", "acquire", history.Value{}, history.NilValue, 0, 1, history.OK},
		{"I: release() [0, 1]", "release", history.Value{}, history.NilValue, 0, 1, history.OK},
		{`c1: put("a key", "v #1") [-5, -2]`, "put", s("a key"), s("v #1"), -5, -2, history.OK},
		{"c2: append(k, -3) [0, 1]", "append", s("k"), n(-3), 0, 1, history.OK},
		{"c2: w(2.5) [0, 1]", "write", history.Value{}, history.FloatValue(2.5), 0, 1, history.OK},
		{"c2: w(true) [0, 1]", "write", history.Value{}, history.BoolValue(true), 0, 1, history.OK},
		{"c2: w(123456789012345678901234567890) [0, 1]", "write", history.Value{},
			func() history.Value { v, _ := history.BigIntValue("123456789012345678901234567890"); return v }(), 0, 1, history.OK},
	}
	for _, tc := range tests {
		h, err := format.Read("t.hist", strings.NewReader("# one op\n"+tc.line+"\n"), "")
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		o := h.Ops[0]
		if o.F != tc.f || o.Key != tc.key || o.Value != tc.value || o.Call != tc.call || o.Return != tc.ret || o.Status != tc.status || o.Line != 2 {
			t.Errorf("%s: got f %s key %#v value %#v [%d, %d] %s line %d", tc.line, o.F, o.Key, o.Value, o.Call, o.Return, o.Status, o.Line)
		}
		if o.Client != strings.SplitN(tc.line, ":", 2)[0] {
			t.Errorf("%s: client %q", tc.line, o.Client)
		}
	}
}

func TestNotationHeader(t *testing.T) {
	in := "model: cas-register\ninit: nil\nnil_read: any\n\nA: w(1) [0, 1]\n"
	h, err := format.Read("t.hist", strings.NewReader(in), "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]history.Value{"model": history.StringValue("cas-register"), "init": history.NilValue, "nil_read": history.StringValue("any")}
	if !reflect.DeepEqual(h.Meta, want) {
		t.Errorf("meta = %v, want %v", h.Meta, want)
	}
	h, err = format.Read("t.hist", strings.NewReader("A: w(1) [0, 1]\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]history.Value{"init": history.IntValue(0)}; !reflect.DeepEqual(h.Meta, want) {
		t.Errorf("default meta = %v, want %v", h.Meta, want)
	}
}
