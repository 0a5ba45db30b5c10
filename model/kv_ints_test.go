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
	for _, single := range []bool{false, true} {
		v := newKVValues()
		v.single = single
		ids := map[int64]history.Value{}
		for round := 0; round < 2; round++ { // the second round finds what the first added
			for _, x := range vals {
				id := v.id(x)
				if y, ok := ids[id]; ok && y != x {
					t.Errorf("single=%v: %#v and %#v share id %d", single, x, y, id)
				}
				ids[id] = x
				if got := v.value(id); got != x {
					t.Errorf("single=%v: id %d of %#v gives back %#v", single, id, x, got)
				}
			}
		}
		if len(ids) != len(vals) {
			t.Errorf("single=%v: %d values got %d ids", single, len(vals), len(ids))
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
