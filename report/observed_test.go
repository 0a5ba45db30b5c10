package report

import (
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// txnOp is a committed transaction of process c over [call, call+1] whose
// micro-operations are given as (kind, key, value) triples; a read's
// value is a list of ints, or nil.
func txnOp(c string, call int64, mops ...[]any) history.Op {
	vs := make([]history.Value, len(mops))
	for i, m := range mops {
		v := history.NilValue
		switch x := m[2].(type) {
		case int:
			v = history.IntValue(int64(x))
		case []int:
			els := make([]history.Value, len(x))
			for j, e := range x {
				els[j] = history.IntValue(int64(e))
			}
			v = history.ListValue(els...)
		}
		vs[i] = history.ListValue(history.StringValue(m[0].(string)), history.StringValue(m[1].(string)), v)
	}
	return history.Op{Client: c, F: "txn", Value: history.ListValue(vs...), Call: call, Return: call + 1, Status: history.OK}
}

// TestObservedOrInferred: a step of a cycle that rests on the order of a
// key's appends says whether a read shows that order or it was inferred;
// a lost update of atomic appends says none was lost when a later read
// holds every one of them.
func TestObservedOrInferred(t *testing.T) {
	x := history.StringValue("x")
	ww := checker.Dependency{From: 0, To: 1, Type: "ww", Key: x, Value: history.IntValue(1), Next: history.IntValue(2)}
	rw := checker.Dependency{From: 0, To: 1, Type: "rw", Key: x, Value: history.IntValue(1), Next: history.IntValue(2)}
	appendThenRead := txnOp("A", 0, []any{"append", "x", 1}, []any{"r", "x", []int{1}})
	appendTwo := txnOp("B", 2, []any{"append", "x", 2})
	shows := txnOp("C", 4, []any{"r", "x", []int{1, 2}})
	showsApart := txnOp("C", 4, []any{"r", "x", []int{1, 3, 2}})
	tests := []struct {
		name    string
		ops     []history.Op
		v       checker.Violation
		want    string
		notWant string
	}{
		{"ww observed", []history.Op{appendThenRead, appendTwo, shows},
			checker.Violation{Pattern: "G0", Cycle: []checker.Dependency{ww}, Anomaly: &checker.Anomaly{Appends: true}},
			"(observed: a committed read of x shows 1 before 2)", "inferred"},
		{"ww inferred", []history.Op{appendThenRead, appendTwo},
			checker.Violation{Pattern: "G0", Cycle: []checker.Dependency{ww}, Anomaly: &checker.Anomaly{Appends: true}},
			"(inferred from the order of x's appends that its reads imply: no read shows 1 and 2 together)", "observed"},
		{"rw observed", []history.Op{appendThenRead, appendTwo, shows},
			checker.Violation{Pattern: "G-single", Cycle: []checker.Dependency{rw}, Anomaly: &checker.Anomaly{Appends: true}},
			"(observed: a committed read of x shows 2 right after it)", "inferred"},
		{"rw inferred", []history.Op{appendThenRead, appendTwo, showsApart},
			checker.Violation{Pattern: "G-single", Cycle: []checker.Dependency{rw}, Anomaly: &checker.Anomaly{Appends: true}},
			"(inferred: no read shows 2 right after it", "observed"},
		{"lost update, both appends read later", []history.Op{
			txnOp("A", 0, []any{"r", "x", []int{1}}, []any{"append", "x", 2}),
			txnOp("B", 0, []any{"r", "x", []int{1}}, []any{"append", "x", 3}), txnOp("C", 4, []any{"r", "x", []int{1, 2, 3}})},
			checker.Violation{Pattern: "lost-update", Ops: []int{0, 1}, Anomaly: &checker.Anomaly{Appends: true, Key: x, Values: []history.Value{history.ListValue(history.IntValue(1))}}},
			"a later read of x holds all their appends ([2 3]), so none was lost", "lost the others' updates"},
		{"lost update, an append never read", []history.Op{
			txnOp("A", 0, []any{"r", "x", []int{1}}, []any{"append", "x", 2}),
			txnOp("B", 0, []any{"r", "x", []int{1}}, []any{"append", "x", 3}), txnOp("C", 4, []any{"r", "x", []int{1, 2}})},
			checker.Violation{Pattern: "lost-update", Ops: []int{0, 1}, Anomaly: &checker.Anomaly{Appends: true, Key: x, Values: []history.Value{history.ListValue(history.IntValue(1))}}},
			"each wrote after a read that the others' appends made stale", "none was lost"},
	}
	for _, tt := range tests {
		h, err := history.FromOps(tt.ops)
		if err != nil {
			t.Fatal(err)
		}
		got := Explain(h, "serializable", tt.v)
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.notWant) {
			t.Errorf("%s: %q, want %q and not %q", tt.name, got, tt.want, tt.notWant)
		}
	}
}
