package check_test

import (
	"context"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
)

// TestCycleBudget checks that Limits.CycleBudget reaches the cycle search:
// with the default budget the search finds the G2-item cycle; with a
// budget too small to search, the verdict still follows from the strongly
// connected component, which proves some cycle serializability rules out
// (cycle-exists), not from a cycle found.
func TestCycleBudget(t *testing.T) {
	h := readTxnHistory(t, "si-without-g-single.edn")
	run := func(budget int64) check.Result {
		out, err := check.Run(context.Background(), h, check.Request{Model: "list-append",
			Criteria: []string{"serializable"}, Limits: check.Limits{CycleBudget: budget}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Results[0]
	}
	pattern := func(r check.Result) string {
		if len(r.Violations) == 0 {
			return ""
		}
		return r.Violations[0].Pattern
	}
	if r := run(0); r.Valid != checker.False || pattern(r) != "G2-item" {
		t.Fatalf("default budget: %v (%s), want false (G2-item)", r.Valid, pattern(r))
	}
	if r := run(1); r.Valid != checker.False || pattern(r) != "cycle-exists" {
		t.Errorf("budget of 1 node: %v (%s), want false (cycle-exists)", r.Valid, pattern(r))
	}
}
