package check_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestRunImplied checks that -c all reports every criterion: those the
// causal and session checkers do not apply to (kv's append, for a kv
// bound to the register checkers alone) follow from the sequential
// verdict, named as implied, and no "not checked" note is left.
func TestRunImplied(t *testing.T) {
	x, a, b := history.StringValue("x"), history.StringValue("a"), history.StringValue("b")
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "write", Key: x, Value: a, Call: 0, Return: 1, Status: history.OK},
		{Client: "B", F: "append", Key: x, Value: b, Call: 2, Return: 3, Status: history.OK},
		{Client: "C", F: "read", Key: x, Value: a, Call: 4, Return: 5, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	note := func(n check.Note) { notes = append(notes, n.Text) }
	kv := suite.ReadWrite(suite.Bind(model.NewKV), history.NilValue)
	out, err := check.Run(context.Background(), h, check.Request{Model: "kv", Models: []suite.Model{kv},
		Criteria: []string{check.All}, NoCore: true, Note: note})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range out.Results {
		names = append(names, r.Criterion)
		want, by := checker.True, "sequential"
		switch r.Criterion {
		case checker.Linearizable:
			want, by = checker.False, ""
		case checker.Sequential:
			by = ""
		}
		if r.Valid != want || r.ImpliedBy != by {
			t.Errorf("%s: %v implied by %q, want %v implied by %q", r.Criterion, r.Valid, r.ImpliedBy, want, by)
		}
	}
	if !slices.Equal(names, checker.AllCriteria) {
		t.Errorf("criteria %v, want %v", names, checker.AllCriteria)
	}
	for _, n := range notes {
		if strings.Contains(n, "not checked") {
			t.Errorf("note %q", n)
		}
	}
}
