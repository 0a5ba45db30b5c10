package txn_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

func list(vs ...history.Value) history.Value { return history.ListValue(vs...) }

var (
	s = history.StringValue
	i = history.IntValue
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value history.Value
		want  string // the mops, or the error's text
		looks bool
	}{
		{"Elle's list-append", list(list(s("append"), s("x"), i(1)), list(s("r"), s("y"), history.NilValue)),
			"[append x 1] [r y nil]", true},
		{"Knossos's names", list(list(s(":read"), s(":x"), history.NilValue), list(s(":write"), s(":y"), i(2))),
			"[r :x nil] [w :y 2]", true},
		{"read without a value", list(list(s("r"), s("x"))), "[r x nil]", true},
		{"a list read", list(list(s("r"), s("x"), list(i(1), i(2)))), "[r x [1 2]]", true},
		{"not a list", i(3), "a transaction is a list of micro-operations", false},
		{"empty", list(), "", false},
		{"unknown micro-operation", list(list(s("inc"), s("x"), i(1))), "micro-operation 1: unknown micro-operation", false},
		{"append without a value", list(list(s("append"), s("x"))), "append needs a value", false},
		{"too long", list(list(s("w"), s("x"), i(1), i(2))), "want [f key value]", false},
		{"element not a list", list(s("w")), "want [f key value]", false},
	} {
		mops, err := txn.Parse(tc.value)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			parts := make([]string, len(mops))
			for k, m := range mops {
				parts[k] = m.String()
			}
			got = strings.Join(parts, " ")
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: Parse gives %q, want %q", tc.name, got, tc.want)
		}
		if l := txn.Looks(tc.value); l != tc.looks {
			t.Errorf("%s: Looks = %v, want %v", tc.name, l, tc.looks)
		}
	}
}

func TestWorkload(t *testing.T) {
	appends := []txn.Txn{{Mops: []txn.Mop{{Kind: txn.Read}}}, {Mops: []txn.Mop{{Kind: txn.Append}}}}
	registers := []txn.Txn{{Mops: []txn.Mop{{Kind: txn.Read}, {Kind: txn.Write}}}}
	if txn.Workload(appends) != txn.Append || txn.Workload(registers) != txn.Write {
		t.Error("Workload does not tell list-append from rw-register")
	}
}

// ExampleParse reads the micro-operations of one of Elle's list-append
// transactions.
func ExampleParse() {
	v := list(list(s("append"), s("x"), i(1)), list(s("r"), s("x"), list(i(1))))
	mops, err := txn.Parse(v)
	if err != nil {
		panic(err)
	}
	for _, m := range mops {
		fmt.Println(m.Kind, m.Key, m.Value)
	}
	// Output:
	// append x 1
	// r x [1]
}

// TestFromHistoryInParts reads a history long enough to be read in parts:
// the transactions come out in the history's order, and of two operations
// that are not transactions, in different parts, the first is reported.
func TestFromHistoryInParts(t *testing.T) {
	const n = 40_000
	value := func(k int) history.Value {
		switch k {
		case n / 8:
			return i(3) // not a list: the first bad operation
		case n - 2:
			return list(list(s("inc"), s("x"), i(1)))
		}
		return list(list(s("append"), i(int64(k%7)), i(int64(k))), list(s("r"), s("y"), history.NilValue))
	}
	read := func(bad bool) ([]txn.Txn, error) {
		var evs []history.Event
		for k := 0; k < n; k++ {
			v := value(k)
			if !bad && (k == n/8 || k == n-2) {
				v = list(list(s("r"), s("y"), history.NilValue))
			}
			evs = append(evs, history.Event{Process: "0", Type: history.Invoke, F: "txn", Value: v},
				history.Event{Process: "0", Type: history.OK, F: "txn", Value: v})
		}
		h, err := history.Pair(evs)
		if err != nil {
			t.Fatal(err)
		}
		return txn.FromHistory(h)
	}
	txns, err := read(false)
	if err != nil || len(txns) != n {
		t.Fatalf("%d transactions, %v", len(txns), err)
	}
	for k, tx := range txns {
		want := fmt.Sprintf("[append %d %d]", k%7, k)
		if k == n/8 || k == n-2 {
			want = "[r y nil]"
		}
		if tx.Op != k || len(tx.Mops) == 0 || tx.Mops[0].String() != want {
			t.Fatalf("transaction %d: %+v, want %s first", k, tx, want)
		}
	}
	if _, err := read(true); err == nil || !strings.Contains(err.Error(), "a transaction is a list of micro-operations") {
		t.Errorf("error %v, want the first bad operation's", err)
	}
}
