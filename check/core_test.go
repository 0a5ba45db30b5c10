package check_test

import (
	"context"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/corpus"
)

// kvHistory builds a kv history in which keys first and second both fail,
// first's violation (the one the check reports: its key comes first)
// ending long after second's. With own, each read misses its own client's
// earlier append, which sequential consistency refutes too; otherwise a
// third client reads stale values.
func kvHistory(t *testing.T, first, second string, own bool) *history.History {
	t.Helper()
	str := history.StringValue
	op := func(client, f, key, v string, call, ret int64) history.Op {
		return history.Op{Client: client, F: f, Key: str(key), Value: str(v), Call: call, Return: ret, Status: history.OK}
	}
	r1, r2 := "C", "C"
	if own {
		r1, r2 = "B", "A"
	}
	h, err := history.FromOps([]history.Op{
		op("A", "append", first, "x", 0, 10),
		op("B", "append", second, "y", 1, 11),
		op(r1, "get", second, "", 20, 30),
		op(r2, "get", first, "", 100, 110),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// assertCoreOfKey checks that each false result of out has a core, that
// the core holds only operations of the key its violation names, and that
// the core cut out on its own fails the criterion.
func assertCoreOfKey(t *testing.T, name string, h *history.History, req check.Request, out check.Outcome) {
	t.Helper()
	cores := 0
	for _, r := range out.Results {
		if r.Valid != checker.False {
			continue
		}
		if r.Core == nil || len(r.Violations) == 0 {
			t.Errorf("%s %s: no core (%d violations)", name, r.Criterion, len(r.Violations))
			continue
		}
		cores++
		key := r.Violations[0].Key
		if key == "" || r.Core.Violation.Key != key {
			t.Errorf("%s %s: the violation is of key %q, the core's of key %q", name, r.Criterion, key, r.Core.Violation.Key)
		}
		for _, p := range append(append([]int(nil), r.Core.Ops...), r.Core.Weakened...) {
			if k := h.Ops[p].Key.String(); k != key {
				t.Errorf("%s %s: the core holds %s, of key %s; the violation is of key %s", name, r.Criterion, h.Ops[p].Label(), k, key)
			}
		}
		alone, err := r.Core.Standalone(h)
		if err != nil {
			t.Fatalf("%s %s: %v", name, r.Criterion, err)
		}
		req.Criteria = []string{r.Criterion}
		res, err := check.Run(context.Background(), alone, req)
		if err != nil || len(res.Results) != 1 || res.Results[0].Valid != checker.False {
			t.Errorf("%s %s: the core on its own: %+v, %v", name, r.Criterion, res.Results, err)
		}
	}
	if cores == 0 {
		t.Errorf("%s: no false verdict", name)
	}
}

// TestCoreOfViolationKey checks that under a keyed model (kv) the core of
// each violation is of the key the violation names, which the report
// prints: shrinking starts from that key, not from the whole history nor
// from another key that fails, even one whose violation ends earlier.
func TestCoreOfViolationKey(t *testing.T) {
	req := check.Request{Model: "kv", Init: history.StringValue("")}
	tests := []struct {
		name     string
		h        *history.History
		criteria []string
	}{
		{"stale reads, a first", kvHistory(t, "a", "b", false), []string{checker.Linearizable}},
		{"stale reads, b first", kvHistory(t, "b", "a", false), []string{checker.Linearizable}},
		{"own appends missed, a first", kvHistory(t, "a", "b", true), []string{checker.Linearizable, checker.Sequential}},
		{"own appends missed, b first", kvHistory(t, "b", "a", true), []string{checker.Linearizable, checker.Sequential}},
	}
	for _, tt := range tests {
		r := req
		r.Criteria = tt.criteria
		out, err := check.Run(context.Background(), tt.h, r)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		assertCoreOfKey(t, tt.name, tt.h, r, out)
	}
}

// TestCoreOfViolationKeyCorpus is TestCoreOfViolationKey on the corpus's
// invalid kv histories (Porcupine's), where several keys fail.
func TestCoreOfViolationKeyCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	n := 0
	for _, row := range corpus.Expected(t, dir) {
		if row.Model != "kv" || row.Expected != "invalid" {
			continue
		}
		n++
		h, err := format.ReadFile(row.Path(dir), "")
		if err != nil {
			t.Fatal(err)
		}
		o, err := row.Options()
		if err != nil {
			t.Fatal(err)
		}
		req := check.Request{Model: "kv", Init: o.Init}
		out, err := check.Run(context.Background(), h, req)
		if err != nil {
			t.Fatalf("%s: %v", row.File, err)
		}
		assertCoreOfKey(t, row.File, h, req, out)
	}
	if n == 0 {
		t.Fatal("no invalid kv history in the corpus")
	}
}
