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
