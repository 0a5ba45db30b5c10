package check_test

import (
	"context"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
)

// TestCycleBudget checks that Limits.CycleBudget reaches the cycle search:
// with a budget too small to search a cycle class, the verdict that rests
// on it is unknown, and the default budget decides it.
func TestCycleBudget(t *testing.T) {
	h := readTxnHistory(t, "si-without-g-single.edn")
	run := func(budget int64) checker.Verdict {
		out, err := check.Run(context.Background(), h, check.Request{Model: "list-append",
			Criteria: []string{"serializable"}, Limits: check.Limits{CycleBudget: budget}})
		if err != nil {
			t.Fatal(err)
		}
		return out.Results[0].Valid
	}
	if v := run(0); v != checker.False {
		t.Fatalf("default budget: %v, want false (G2-item)", v)
	}
	if v := run(1); v != checker.Unknown {
		t.Errorf("budget of 1 node: %v, want unknown", v)
	}
}
