package check_test

import (
	"context"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// longFork is Cerone et al.'s long fork over rw-register: two writers of
// different keys, and two readers that each see one write and not the
// other. Parallel snapshot isolation (and causal consistency) allow it;
// prefix consistency, snapshot isolation and serializability do not.
func longFork(t *testing.T) *history.History {
	t.Helper()
	tx := func(proc string, mops ...[3]any) []history.Event {
		var inv, done []history.Value
		for _, m := range mops {
			v := history.NilValue
			if m[2] != nil {
				v = history.IntValue(int64(m[2].(int)))
			}
			iv := v
			if m[0] == "r" {
				iv = history.NilValue
			}
			f, k := history.StringValue(m[0].(string)), history.StringValue(m[1].(string))
			inv = append(inv, history.ListValue(f, k, iv))
			done = append(done, history.ListValue(f, k, v))
		}
		return []history.Event{{Process: proc, Type: history.Invoke, F: "txn", Value: history.ListValue(inv...)},
			{Process: proc, Type: history.OK, F: "txn", Value: history.ListValue(done...)}}
	}
	var evs []history.Event
	evs = append(evs, tx("a", [3]any{"w", "x", 1})...)
	evs = append(evs, tx("b", [3]any{"w", "y", 1})...)
	evs = append(evs, tx("c", [3]any{"r", "x", 1}, [3]any{"r", "y", nil})...)
	evs = append(evs, tx("d", [3]any{"r", "y", 1}, [3]any{"r", "x", nil})...)
	h, err := history.Pair(evs)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestIsolationLevels checks that -c all on an rw-register history decides
// the levels of checker/isolation with their commit orders verified, and
// places them on the ladder beside Elle's; where Elle finds an anomaly
// (here the long fork's G-nonadjacent-item, the initial state ordering
// each key's writes) its violation is the one reported.
func TestIsolationLevels(t *testing.T) {
	h := longFork(t)
	out, err := check.Run(context.Background(), h, check.Request{Model: "rw-register", Criteria: []string{check.All}, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]checker.Verdict{}
	for _, r := range out.Results {
		got[r.Criterion] = r.Valid
	}
	want := map[string]checker.Verdict{
		"read-committed-biswas-enea": checker.True, "read-atomic": checker.True, "causal-cerone": checker.True,
		"parallel-snapshot-isolation": checker.True, "prefix": checker.False,
		"snapshot-isolation": checker.False, "serializable": checker.False, "strict-serializable": checker.False,
	}
	for c, v := range want {
		if got[c] != v {
			t.Errorf("%s: %s, want %s", c, got[c], v)
		}
	}
	if out.Ladder == nil {
		t.Fatal("no ladder")
	}
	for _, r := range out.Results {
		if r.Criterion == "parallel-snapshot-isolation" && len(r.Witness) != 4 {
			t.Errorf("PSI witness %v", r.Witness)
		}
	}
	for _, elleOnly := range []bool{false, true} {
		ser, err := check.Run(context.Background(), h, check.Request{Model: "rw-register", Criteria: []string{"serializable"}, ElleOnly: elleOnly})
		if err != nil || ser.Results[0].Valid != checker.False || ser.Results[0].Violations[0].Pattern != "G-nonadjacent-item" {
			t.Errorf("Elle only %v: %v %+v", elleOnly, err, ser.Results)
		}
	}
}

// TestSessionsOnlyDefault checks the default level of a history read from
// a research checker's format, which records sessions but no real time:
// serializable, not strict serializability, whose real-time order would
// be the layout's. Laid out, session 1's read of x (key 1) ends before
// session 0's write of the value it read begins, so the strict level
// fails on an order the file never recorded; serializable holds.
func TestSessionsOnlyDefault(t *testing.T) {
	const plume = "w(2,1,0,0)\nw(2,2,0,1)\nw(2,3,0,2)\nw(1,1,0,3)\nr(1,1,1,4)\n"
	h, err := format.Read("h.txt", strings.NewReader(plume), format.Plume)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		criteria []string
		want     string
		valid    checker.Verdict
	}{
		{nil, "serializable", checker.True},
		{[]string{"strict-serializable"}, "strict-serializable", checker.False},
	} {
		out, err := check.Run(context.Background(), h, check.Request{Criteria: c.criteria, NoCore: true})
		if err != nil || len(out.Results) != 1 {
			t.Fatalf("%v: %v, %d results", c.criteria, err, len(out.Results))
		}
		if r := out.Results[0]; r.Criterion != c.want || r.Valid != c.valid {
			t.Errorf("criteria %v: %s %s, want %s %s", c.criteria, r.Criterion, r.Valid, c.want, c.valid)
		}
	}
}
