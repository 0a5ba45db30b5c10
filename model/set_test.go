package model

import (
	"strings"
	"sync"
	"testing"

	"github.com/histcheck/histcheck/history"
)

func setOf(vs ...history.Value) history.Value  { return history.SetValue(vs...) }
func listOf(vs ...history.Value) history.Value { return history.ListValue(vs...) }

func TestSetStep(t *testing.T) {
	info := history.Info
	v3 := history.IntValue(3)
	runSteps(t, NewSet, []stepCase{
		{name: "starts empty", ops: []*history.Op{hop("read", setOf())}, legal: true, state: "#{}"},
		{name: "empty list read", ops: []*history.Op{hop("read", listOf())}, legal: true, state: "#{}"},
		{name: "add then read", ops: []*history.Op{hop("add", v1), hop("add", v2), hop("read", setOf(v2, v1))}, legal: true, state: "#{1 2}"},
		{name: "read as a list in any order", ops: []*history.Op{hop("add", v1), hop("add", v2), hop("r", listOf(v2, v1))}, legal: true, state: "#{1 2}"},
		{name: "read with a repeat", ops: []*history.Op{hop("add", v1), hop("add", v2), hop("r", listOf(v2, v1, v2))},
			why: "read 2 twice, but a set holds each element once (read #{1 2})"},
		{name: "read with a repeat of an element never added", ops: []*history.Op{hop("add", v1), hop("r", listOf(v1, v3, v3))},
			why: "read 3 twice, but a set holds each element once (read #{1 3})"},
		{name: "adding twice", ops: []*history.Op{hop("add", v1), hop("add", v1), hop("read", setOf(v1))}, legal: true, state: "#{1}"},
		{name: "initial elements", opts: Options{Init: listOf(v2, v0)}, ops: []*history.Op{hop("read", setOf(v0, v2))}, legal: true, state: "#{0 2}"},
		{name: "nil init is empty", opts: Options{Init: history.NilValue}, ops: []*history.Op{hop("read", setOf())}, legal: true, state: "#{}"},
		{name: "missing element", ops: []*history.Op{hop("add", v1), hop("add", v2), hop("read", setOf(v1))},
			why: "read #{1} but the set holds #{1 2} (missing 2)"},
		{name: "element never added", ops: []*history.Op{hop("add", v1), hop("read", setOf(v1, v3))},
			why: "read #{1 3} but the set holds #{1} (not in the set: 3)"},
		{name: "both", ops: []*history.Op{hop("add", v1), hop("add", v2), hop("read", setOf(v0, v2))},
			why: "read #{0 2} but the set holds #{1 2} (missing 1; not in the set: 0)"},
		{name: "unknown read accepts anything", ops: []*history.Op{hop("add", v1), hop("read", history.NilValue, info)}, legal: true, state: "#{1}"},
		{name: "unknown add takes effect", ops: []*history.Op{hop("add", v1, info), hop("read", setOf(v1))}, legal: true, state: "#{1}"},
		{name: "nil read is any", opts: Options{NilRead: NilIsAny}, ops: []*history.Op{hop("add", v1), hop("read", history.NilValue)}, legal: true, state: "#{1}"},
		{name: "strings sorted for reports", ops: []*history.Op{hop("add", str("b")), hop("add", str("a")), hop("read", setOf())},
			why: "read #{} but the set holds #{a b} (missing a b)"},
	})
}

func TestSetCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		op   *history.Op
		want string
	}{
		{"unknown op", Options{}, hop("remove", v1), `model set has no operation "remove" (it knows [add read])`},
		{"add without value", Options{}, hop("add", history.Value{}), "add needs the element added"},
		{"read of a number", Options{}, hop("read", v1), "read needs a list or set of the elements read, got int 1"},
		{"read of nil", Options{}, hop("read", history.NilValue), "read needs a list or set of the elements read, got nil"},
		{"read without value", Options{}, hop("read", history.Value{}), "read needs a list or set of the elements read, got no value"},
		{"scalar init", Options{Init: v0}, hop("add", v1), "the set model's initial value must be a list of elements or nil (empty), got int 0; give --init nil (or init: nil in the file) to start empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewSet(tt.opts).Compile(tt.op, NewTable())
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// runKeep compiles ops for m and compares its Pruner's answer with keep.
func runKeep[S comparable](t *testing.T, m Model[S], ops []*history.Op, keep []bool) {
	t.Helper()
	tab := NewTable()
	cops := make([]Op, len(ops))
	for i, o := range ops {
		cops[i] = compileOp(t, m, o, tab)
	}
	p, ok := m.(Pruner)
	if !ok {
		t.Fatalf("%s has no Pruner", m.Info().Name)
	}
	got := p.Keep(cops)
	for i := range got {
		if got[i] != keep[i] {
			t.Fatalf("keep %v, want %v", got, keep)
		}
	}
}

func TestSetKeep(t *testing.T) {
	info := history.Info
	tests := []struct {
		name string
		ops  []*history.Op
		keep []bool
	}{
		{"unknown read dropped", []*history.Op{hop("read", history.NilValue, info), hop("add", v1)}, []bool{false, true}},
		{"unknown add observed", []*history.Op{hop("add", v1, info), hop("read", setOf(v1))}, []bool{true, true}},
		{"unknown add unobserved", []*history.Op{hop("add", v1, info), hop("read", setOf(v2)), hop("add", v2)}, []bool{false, true, true}},
		{"observed only by an unknown read", []*history.Op{hop("add", v1, info), hop("read", setOf(v1), info)}, []bool{false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runKeep(t, NewSet(Options{}), tt.ops, tt.keep) })
	}
}

func TestCollectionInfo(t *testing.T) {
	tests := []struct {
		info Info
		name string
		ops  int
	}{
		{NewSet(Options{}).Info(), "set", 2},
		{NewFIFOQueue(Options{}).Info(), "fifo-queue", 2},
		{NewUnorderedQueue(Options{}).Info(), "unordered-queue", 2},
		{NewCounter(Options{}).Info(), "counter", 2},
	}
	for _, tt := range tests {
		i := tt.info
		if i.Name != tt.name || len(i.Ops) != tt.ops || i.Keyed || i.Doc == "" {
			t.Errorf("info %+v", i)
		}
		for _, o := range i.Ops {
			if len(o.Names) == 0 || o.Value == "" || o.Doc == "" {
				t.Errorf("%s: undocumented operation %+v", tt.name, o)
			}
		}
	}
	for _, doc := range []string{NewSet(Options{NilRead: NilIsAny}).Info().Doc, NewCounter(Options{NilRead: NilIsAny}).Info().Doc} {
		if !strings.Contains(doc, "read of nil") {
			t.Errorf("doc %q does not mention the nil rule", doc)
		}
	}
}

func TestIDEncoding(t *testing.T) {
	// Ids past one byte exercise the varint encoding.
	ids := []int64{300, 5, 1 << 40, 127, 128, 5}
	s := encodeSet(append([]int64(nil), ids...))
	want := []int64{5, 127, 128, 300, 1 << 40}
	if got := decodeIDs(s); !equalIDs(got, want) {
		t.Fatalf("decode(encodeSet) = %v, want %v", got, want)
	}
	s2, changed := insertID(s, 200, true)
	if !changed || !equalIDs(decodeIDs(s2), []int64{5, 127, 128, 200, 300, 1 << 40}) {
		t.Fatalf("insert 200: %v", decodeIDs(s2))
	}
	if _, changed := insertID(s, 128, true); changed {
		t.Fatal("inserting a present id into a set changed it")
	}
	m, _ := insertID(s, 128, false)
	if !equalIDs(decodeIDs(m), []int64{5, 127, 128, 128, 300, 1 << 40}) {
		t.Fatalf("multiset insert: %v", decodeIDs(m))
	}
	r, ok := removeID(m, 128)
	if !ok || r != s {
		t.Fatalf("remove 128: %v %v", decodeIDs(r), ok)
	}
	if _, ok := removeID(s, 6); ok {
		t.Fatal("removed an absent id")
	}
	missing, extra := diffSorted([]int64{1, 2, 2, 5}, []int64{2, 3, 5, 5})
	if !equalIDs(missing, []int64{1, 2}) || !equalIDs(extra, []int64{3, 5}) {
		t.Fatalf("diff: missing %v extra %v", missing, extra)
	}
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestInterner(t *testing.T) {
	var in Interner[string]
	if in.At(0) != "" || in.At(1) != "" {
		t.Fatal("empty interner returned a value")
	}
	a, b := in.ID("a"), in.ID("b")
	if a != 1 || b != 2 || in.ID("a") != 1 || in.At(2) != "b" || in.At(3) != "" || in.At(-1) != "" {
		t.Fatalf("ids %d %d, At(2) = %q", a, b, in.At(2))
	}
	// Readers and writers at once (run with -race).
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				s := string(rune('a' + i%26))
				if id := in.ID(s); in.At(id) != s {
					t.Errorf("At(ID(%q)) = %q", s, in.At(id))
					return
				}
			}
		}()
	}
	wg.Wait()
}
