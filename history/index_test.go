package history_test

import (
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// idx gives an event an index, as Jepsen writes on every event.
func idx(e history.Event, i int64) history.Event {
	e.Index, e.HasIdx = i, true
	return e
}

// noLines clears the lines that evs gives, so that messages name positions.
func noLines(es []history.Event) []history.Event {
	for i := range es {
		es[i].Line = -1
	}
	return es
}

func TestPairDuplicateIndex(t *testing.T) {
	inv := func(p string, i int64) history.Event { return idx(ev(p, history.Invoke, "read", nilv), i) }
	ok := func(p string, i int64) history.Event { return idx(ev(p, history.OK, "read", i0), i) }
	tests := []struct {
		name   string
		events []history.Event
		want   []string
	}{
		{"no indices", evs(ev("a", history.Invoke, "read", nilv), ev("a", history.OK, "read", i0),
			ev("b", history.Invoke, "read", nilv)), nil},
		{"Jepsen's, one per event", evs(inv("a", 0), inv("b", 1), ok("a", 2), ok("b", 3), inv("a", 4)), nil},
		{"distinct, not in order", evs(inv("a", 9), inv("b", 3), ok("a", 4), ok("b", 1), inv("a", 5)), nil},
		{"an operation's completion repeats its invocation's", evs(inv("a", 0), ok("a", 0), inv("a", 1), ok("a", 1)), nil},
		{"the fault injector's events are left out",
			evs(inv("a", 0), idx(ev("nemesis", history.Info, "start", nilv), 0), ok("a", 1)), nil},
		{"an index given once and a position",
			evs(ev("a", history.Invoke, "read", nilv), ev("a", history.OK, "read", i0), inv("a", 0)), nil},
		{"two operations", evs(inv("a", 0), ok("a", 1), inv("b", 2), ok("b", 3), inv("a", 2)),
			[]string{"index 2 is given to more than one operation (line 3 and line 5), so reports that name operations by index are ambiguous"}},
		{"the first repeat in input order, with the count",
			evs(inv("a", 7), inv("b", 5), ok("a", 1), ok("b", 2), inv("a", 5), inv("b", 7), ok("a", 3), ok("b", 4), inv("a", 5)),
			[]string{"index 5 is given to more than one operation (line 2 and line 5), so reports that name operations by index are ambiguous; 3 operations in all repeat an earlier operation's index"}},
		{"positions when there are no lines", noLines(evs(inv("a", 0), ok("a", 1), inv("b", 0))),
			[]string{"index 0 is given to more than one operation (event 1 and event 3), so reports that name operations by index are ambiguous"}},
	}
	for _, tc := range tests {
		h, err := history.Pair(tc.events)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(h.Warnings, tc.want) {
			t.Errorf("%s: warnings %q, want %q", tc.name, h.Warnings, tc.want)
		}
	}
}

// TestPairerDuplicateIndex checks that streaming gives the same warning,
// and once, however many operations repeat an index.
func TestPairerDuplicateIndex(t *testing.T) {
	p := history.NewPairer()
	for i := 0; i < 10000; i++ {
		c := string(rune('a' + i%3))
		for _, e := range []history.Event{idx(ev(c, history.Invoke, "read", nilv), int64(i%100)), ev(c, history.OK, "read", i0)} {
			if err := p.Add(&e); err != nil {
				t.Fatal(err)
			}
		}
	}
	h := p.History()
	want := []string{"index 0 is given to more than one operation (event 1 and event 201), so reports that name operations by index are ambiguous; 9900 operations in all repeat an earlier operation's index"}
	if !reflect.DeepEqual(h.Warnings, want) {
		t.Errorf("warnings %q, want %q", h.Warnings, want)
	}
}

func TestFromOpsDuplicateIndex(t *testing.T) {
	withIndex := func(o history.Op, i int64) history.Op {
		o.Index = i
		return o
	}
	a := op("A", "read", i0, 0, 1, history.OK, 1)
	b := op("B", "read", i0, 2, 3, history.OK, 2)
	c := op("C", "read", i0, 4, 5, history.OK, 3)
	n := op("nemesis", "start", nilv, 4, 5, history.Info, 4)
	tests := []struct {
		name string
		ops  []history.Op
		want []string
	}{
		{"all 0: not given", []history.Op{withIndex(a, 0), withIndex(b, 0), withIndex(c, 0)}, nil},
		{"distinct", []history.Op{withIndex(a, 2), withIndex(b, 0), withIndex(c, 1)}, nil},
		{"the fault injector's are left out", []history.Op{withIndex(a, 1), withIndex(n, 1), withIndex(b, 2)}, nil},
		// The repeat is found in input order, not in call order.
		{"two operations", []history.Op{withIndex(c, 1), withIndex(a, 2), withIndex(b, 1)},
			[]string{"index 1 is given to more than one operation (line 3 and line 2), so reports that name operations by index are ambiguous"}},
		{"with the count", []history.Op{withIndex(a, 3), withIndex(b, 3), withIndex(c, 3)},
			[]string{"index 3 is given to more than one operation (line 1 and line 2), so reports that name operations by index are ambiguous; 2 operations in all repeat an earlier operation's index"}},
		{"positions when there are no lines", []history.Op{withIndex(n, 0), noLine(withIndex(a, 5)), noLine(withIndex(b, 5))},
			[]string{"index 5 is given to more than one operation (operation 2 and operation 3), so reports that name operations by index are ambiguous"}},
	}
	for _, tc := range tests {
		h, err := history.FromOps(tc.ops)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(h.Warnings, tc.want) {
			t.Errorf("%s: warnings %q, want %q", tc.name, h.Warnings, tc.want)
		}
	}
}

// TestDeriveDuplicateIndex: a derived history is not the user's input, and
// its source was already warned about.
func TestDeriveDuplicateIndex(t *testing.T) {
	h, err := history.FromOps([]history.Op{op("A", "read", i0, 0, 1, history.OK, 1), op("B", "read", i0, 2, 3, history.OK, 2)})
	if err != nil {
		t.Fatal(err)
	}
	ops := append([]history.Op(nil), h.Ops...)
	ops[1].Index = ops[0].Index
	d, err := h.Derive(ops)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("derived history warns: %q", d.Warnings)
	}
}

func noLine(o history.Op) history.Op {
	o.Line = 0
	return o
}
