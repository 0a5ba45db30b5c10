package check_test

import (
	"context"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
	"github.com/histcheck/histcheck/history"
)

func TestParseModelOptions(t *testing.T) {
	got, err := check.ParseModelOptions([]string{"total-amount=10, negative-balances = true", "total-amount=20"})
	if err != nil || len(got) != 2 || got["total-amount"] != "20" || got["negative-balances"] != "true" {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"total-amount", "=3"} {
		if _, err := check.ParseModelOptions([]string{bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if got, err := check.ParseModelOptions(nil); got != nil || err != nil {
		t.Errorf("none: %v, %v", got, err)
	}
}

// TestJepsenModelsThroughRun checks a Jepsen model by name, with its
// options, as other front ends do; its criterion is its default.
func TestJepsenModelsThroughRun(t *testing.T) {
	rec := history.NewRecorder()
	c := rec.Invoke("0", "read", history.Value{})
	if err := rec.Complete(c, history.OK, mustValue(t, map[string]any{"a": 10, "b": 10})); err != nil {
		t.Fatal(err)
	}
	h, err := rec.History()
	if err != nil {
		t.Fatal(err)
	}
	run := func(req check.Request) (check.Outcome, error) { return check.Run(context.Background(), h, req) }
	out, err := run(check.Request{Model: jepsen.Bank})
	if err != nil || len(out.Results) != 1 || out.Results[0].Criterion != jepsen.Criterion || out.Results[0].Valid != checker.True {
		t.Fatalf("bank: %+v, %v", out.Results, err)
	}
	out, err = run(check.Request{Model: jepsen.Bank, Criteria: []string{"jepsen"}, ModelOptions: []string{"total-amount=30"}})
	if err != nil || out.Results[0].Valid != checker.False || out.Results[0].Jepsen.Bank.Total != 30 {
		t.Fatalf("bank with a total: %+v, %v", out.Results, err)
	}
	for _, tc := range []struct {
		req  check.Request
		want string
	}{
		{check.Request{Model: jepsen.Bank, ModelOptions: []string{"group-size=3"}}, "model bank has no option"},
		{check.Request{Model: "register", ModelOptions: []string{"group-size=3"}}, "model register takes no options"},
		{check.Request{Model: jepsen.Bank, ModelOptions: []string{"total-amount=lots"}}, "want a whole number"},
		{check.Request{Model: jepsen.Bank, Criteria: []string{"linearizable"}}, "it supports: jepsen"},
	} {
		if _, err := run(tc.req); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.req, err, tc.want)
		}
	}
}

func mustValue(t *testing.T, x any) history.Value {
	t.Helper()
	v, err := history.ValueOf(x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
