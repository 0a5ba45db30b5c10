package zones_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/zones"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

var i64 = history.IntValue

// op writes one operation; ret < 0 means unknown outcome.
func op(client, f string, v int64, call, ret int64) history.Op {
	o := history.Op{Client: client, F: f, Value: i64(v), Call: call, Return: ret, Status: history.OK}
	if ret < 0 {
		o.Status, o.Return = history.Info, history.Infinity
	}
	return o
}

func mustHistory(t *testing.T, ops ...history.Op) *history.History {
	t.Helper()
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func labels(h *history.History, pos []int) string {
	var s []string
	for _, i := range pos {
		s = append(s, h.Ops[i].Label())
	}
	return strings.Join(s, " ")
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		ops     []history.Op
		want    checker.Verdict
		witness string // labels, when valid
		dropped string
		pattern string // when invalid
		vops    string // labels of the violation's operations
		expl    string
	}{
		{name: "empty", want: checker.True},
		{
			name:    "sequential",
			ops:     []history.Op{op("A", "write", 1, 0, 1), op("B", "read", 1, 2, 3), op("A", "write", 2, 4, 5), op("B", "read", 2, 6, 7)},
			want:    checker.True,
			witness: "A:w(1) B:r(1) A:w(2) B:r(2)",
		},
		{
			name:    "initial value read late, write concurrent",
			ops:     []history.Op{op("A", "write", 1, 0, 10), op("B", "read", 0, 1, 2), op("C", "read", 1, 3, 4)},
			want:    checker.True,
			witness: "B:r(0) A:w(1) C:r(1)",
		},
		{
			name:    "closed intervals touch",
			ops:     []history.Op{op("A", "write", 1, 0, 5), op("B", "read", 0, 5, 6)},
			want:    checker.True,
			witness: "B:r(0) A:w(1)",
		},
		{
			name:    "crashed write observed, unobserved one dropped",
			ops:     []history.Op{op("A", "write", 1, 0, -1), op("B", "write", 2, 1, -1), op("C", "read", 1, 5, 6)},
			want:    checker.True,
			witness: "A:w(1) C:r(1)",
			dropped: "B:w(2)",
		},
		{
			name:    "thin air",
			ops:     []history.Op{op("A", "write", 1, 0, 1), op("B", "read", 3, 2, 3)},
			want:    checker.False,
			pattern: "thin-air-read",
			vops:    "B:r(3)",
			expl:    "B:r(3) read 3, which no operation wrote and which is not the initial value",
		},
		{
			name:    "read before its write",
			ops:     []history.Op{op("B", "read", 1, 0, 1), op("A", "write", 1, 2, 3)},
			want:    checker.False,
			pattern: "read-before-write",
			vops:    "B:r(1) A:w(1)",
			expl:    "B:r(1) read 1 but returned before A:w(1), the only write of 1, was called",
		},
		{
			name:    "stale read",
			ops:     []history.Op{op("A", "write", 1, 0, 1), op("A", "write", 2, 2, 3), op("B", "read", 1, 4, 5)},
			want:    checker.False,
			pattern: "zone-inside-zone",
			vops:    "B:r(1) A:w(1) A:w(2)",
			expl: "1, written only by A:w(1), must be in the register from when A:w(1) returned (at 1) until B:r(1) was called (at 4), since B:r(1) reads it; " +
				"but 2, written only by A:w(2), can be in the register only at some instant from 2 to 3 (after A:w(2) was called, before A:w(2) returned), which is within that span",
		},
		{
			name: "two values each read across the other's write",
			ops: []history.Op{op("A", "write", 1, 0, 1), op("A", "write", 2, 2, 3), op("B", "read", 1, 4, 5),
				op("C", "read", 2, 6, 7)},
			want:    checker.False,
			pattern: "overlapping-zones",
			vops:    "B:r(1) A:w(1) A:w(2) C:r(2)",
			expl: "1, written only by A:w(1), must be in the register from when A:w(1) returned (at 1) until B:r(1) was called (at 4), since B:r(1) reads it; " +
				"and 2, written only by A:w(2), must be in the register from when A:w(2) returned (at 3) until C:r(2) was called (at 6), since C:r(2) reads it; " +
				"the two spans overlap, and the register cannot hold both values at once",
		},
		{
			name:    "value held only inside another's span",
			ops:     []history.Op{op("A", "write", 1, 0, 10), op("B", "read", 1, 2, 4), op("C", "read", 0, 5, 7)},
			want:    checker.False,
			pattern: "zone-inside-zone",
			vops:    "C:r(0) A:w(1) B:r(1)",
			expl: "The initial value 0 must stay in the register until C:r(0) was called (at 5), since it reads it; " +
				"but 1, written only by A:w(1), can be in the register only at some instant from 2 to 4 (after B:r(1) was called, before B:r(1) returned), which is within that span",
		},
	}
	m := model.NewRegister(model.Options{Init: i64(0)})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := mustHistory(t, tc.ops...)
			if !zones.Applies(h, i64(0)) {
				t.Fatal("does not apply")
			}
			res, err := zones.Check(context.Background(), h, i64(0), false)
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid != tc.want || res.Method != "zones" {
				t.Fatalf("verdict %v by %s, want %v (%+v)", res.Valid, res.Method, tc.want, res)
			}
			if tc.want == checker.True {
				if got := labels(h, res.Witness); got != tc.witness {
					t.Errorf("witness %q, want %q", got, tc.witness)
				}
				if got := labels(h, res.Dropped); got != tc.dropped {
					t.Errorf("dropped %q, want %q", got, tc.dropped)
				}
				if err := checker.VerifyWitness(m, h, res.Witness, checker.RealTime); err != nil {
					t.Error(err)
				}
				return
			}
			v := res.Violations[0]
			if v.Pattern != tc.pattern || labels(h, v.Ops) != tc.vops {
				t.Errorf("violation %s %q, want %s %q", v.Pattern, labels(h, v.Ops), tc.pattern, tc.vops)
			}
			if got := report.Explain(h, checker.Linearizable, v); tc.expl != "" && got != tc.expl {
				t.Errorf("explanation\n%q\nwant\n%q", got, tc.expl)
			}
		})
	}
}

func TestApplies(t *testing.T) {
	tests := []struct {
		name string
		ops  []history.Op
		want bool
	}{
		{"reads and unique writes", []history.Op{op("A", "write", 1, 0, 1), op("B", "read", 1, 2, 3)}, true},
		{"a value written twice", []history.Op{op("A", "write", 1, 0, 1), op("B", "write", 1, 2, 3)}, false},
		{"the initial value written", []history.Op{op("A", "write", 0, 0, 1)}, false},
		{"a failed duplicate does not count", []history.Op{op("A", "write", 1, 0, 1),
			{Client: "B", F: "write", Value: i64(1), Call: 2, Return: 3, Status: history.Fail}}, true},
		{"a cas", []history.Op{{Client: "A", F: "cas", Value: history.ListValue(i64(0), i64(1)), Call: 0, Return: 1, Status: history.OK}}, false},
		{"an unknown operation", []history.Op{{Client: "A", F: "incr", Call: 0, Return: 1, Status: history.OK}}, false},
	}
	for _, tc := range tests {
		h := mustHistory(t, tc.ops...)
		if got := zones.Applies(h, i64(0)); got != tc.want {
			t.Errorf("%s: Applies = %v", tc.name, got)
		}
	}
	h := mustHistory(t, op("A", "write", 1, 0, 1), op("B", "write", 1, 2, 3))
	if _, err := zones.Check(context.Background(), h, i64(0), false); !errors.Is(err, zones.ErrNotApplicable) {
		t.Errorf("error %v, want ErrNotApplicable", err)
	}
}

// TestCheckKeyed checks keys apart and merges their orders by real time.
func TestCheckKeyed(t *testing.T) {
	k := func(o history.Op, key string) history.Op { o.Key = history.StringValue(key); return o }
	ops := []history.Op{
		k(op("A", "put", 1, 0, 10), "x"),
		k(op("B", "put", 1, 1, 2), "y"), // the same value on another key
		k(op("C", "get", 1, 3, 4), "y"),
		k(op("D", "get", 1, 11, 12), "x"),
		k(op("B", "get", 0, 5, 6), "x"),
	}
	h := mustHistory(t, ops...)
	res, err := zones.Check(context.Background(), h, i64(0), false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != checker.True || res.Stats.Partitions != 2 {
		t.Fatalf("%+v", res)
	}
	kv := model.NewKV(model.Options{Init: i64(0)})
	if err := checker.VerifyWitness(kv, h, res.Witness, checker.RealTime); err != nil {
		t.Fatal(err)
	}
	// A read of nil is a value, or any value under the nil-is-any rule.
	h = mustHistory(t, append(ops, history.Op{Client: "E", F: "get", Key: history.StringValue("y"), Value: history.NilValue, Call: 20, Return: 21, Status: history.OK})...)
	res, _ = zones.Check(context.Background(), h, i64(0), false)
	if res.Valid != checker.False || res.Violations[0].Key != "y" {
		t.Fatalf("nil as a value: %+v", res)
	}
	res, _ = zones.Check(context.Background(), h, i64(0), true)
	if res.Valid != checker.True {
		t.Fatalf("nil is any: %+v", res)
	}
}
