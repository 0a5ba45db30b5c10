package model

import (
	"math"
	"strconv"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// TestKVIntIDs checks that integers found by number (canonicalInt) and
// every other value found by text get one id per value, and that equal
// values share it, whichever table a value went through.
func TestKVIntIDs(t *testing.T) {
	big, _ := history.BigIntValue("123456789012345678901")
	vals := []history.Value{
		history.IntValue(0), history.IntValue(7), history.IntValue(-7), history.IntValue(70),
		history.IntValue(999_999_999_999_999_999), history.IntValue(-999_999_999_999_999_999),
		history.IntValue(math.MaxInt64), history.IntValue(math.MinInt64), big,
		history.StringValue("7"), history.StringValue("-0"), history.FloatValue(7.5), history.NilValue,
		history.ListValue(history.IntValue(7)),
	}
	// Through the table alone, and through the model, whose integers are
	// their own ids (intID) unless it compiles versions.
	for _, tc := range []struct {
		name string
		id   func(history.Value) int64
		vals *kvValues
	}{
		{name: "table"}, {name: "single table"}, {name: "model"}, {name: "forked model"}, {name: "versioned model"},
	} {
		switch tc.name {
		case "table", "single table":
			v := newKVValues()
			v.single = tc.name == "single table"
			tc.id, tc.vals = v.id, v
		default:
			m := NewKV(Options{Versions: tc.name == "versioned model"}).(*kv)
			if tc.name == "forked model" {
				m = m.Fork().(*kv)
			}
			tc.id, tc.vals = m.id, m.vals
		}
		ids := map[int64]history.Value{}
		for round := 0; round < 2; round++ { // the second round finds what the first added
			for _, x := range vals {
				id := tc.id(x)
				if y, ok := ids[id]; ok && y != x {
					t.Errorf("%s: %#v and %#v share id %d", tc.name, x, y, id)
				}
				if id == 0 || id == noState {
					t.Errorf("%s: %#v has id %d, which is reserved", tc.name, x, id)
				}
				ids[id] = x
				if got := tc.vals.value(id); got != x {
					t.Errorf("%s: id %d of %#v gives back %#v", tc.name, id, x, got)
				}
			}
		}
		if len(ids) != len(vals) {
			t.Errorf("%s: %d values got %d ids", tc.name, len(vals), len(ids))
		}
	}
}

// TestKVIntStates checks the key-value model's steps on integers that are
// their own ids next to values of its table: an append to an integer is
// illegal, a cas compares by value, and states describe their values.
func TestKVIntStates(t *testing.T) {
	m := NewKV(Options{Init: history.IntValue(0)}).(*kv).Fork()
	tab := NewTable()
	compile := func(f string, v history.Value) Op {
		t.Helper()
		o, err := m.Compile(&history.Op{F: f, Value: v, Key: history.IntValue(1)}, tab)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	s := m.Init(tab)
	steps := []struct {
		op    Op
		ok    bool
		state string
	}{
		{compile("read", history.IntValue(0)), true, "0"},
		{compile("append", history.StringValue("x")), false, "0"},
		{compile("write", history.IntValue(1_000_000_007)), true, "1000000007"},
		{compile("cas", history.ListValue(history.IntValue(1_000_000_007), history.StringValue("a"))), true, "a"},
		{compile("append", history.StringValue("b")), true, "ab"},
		{compile("read", history.IntValue(1_000_000_007)), false, "ab"},
		{compile("cas", history.ListValue(history.StringValue("ab"), history.IntValue(-5))), true, "-5"},
		{compile("read", history.IntValue(-5)), true, "-5"},
		{compile("read", history.StringValue("-5")), false, "-5"},
	}
	for i, st := range steps {
		next, ok := m.Step(s, &st.op)
		if ok != st.ok {
			t.Fatalf("step %d: legal %v, want %v", i, ok, st.ok)
		}
		if ok {
			s = next
		}
		if got := m.Describe(s, tab); got != st.state {
			t.Errorf("step %d: state %s, want %s", i, got, st.state)
		}
	}
}

// TestCanonicalInt checks canonicalInt against strconv: it takes exactly
// the integers of at most 18 digits, as IntValue writes them.
func TestCanonicalInt(t *testing.T) {
	for _, n := range []int64{0, 1, -1, 9, 10, -10, 123456, 999_999_999_999_999_999, -999_999_999_999_999_999,
		1_000_000_000_000_000_000, math.MaxInt64, math.MinInt64} {
		x := history.IntValue(n)
		got, ok := canonicalInt(x)
		digits := len(strconv.FormatInt(n, 10))
		if n < 0 {
			digits--
		}
		if want := digits <= 18; ok != want || ok && got != n {
			t.Errorf("canonicalInt(%d) = %d, %v; want %d, %v", n, got, ok, n, want)
		}
	}
	for _, x := range []history.Value{history.StringValue("5"), history.FloatValue(5.5), history.NilValue, history.BoolValue(true)} {
		if _, ok := canonicalInt(x); ok {
			t.Errorf("canonicalInt(%#v) takes a value that is not an integer", x)
		}
	}
}
