package suite

import (
	"context"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestWeakFromSteps checks the models bound with BindWeak, and kv's
// appends, which the register checkers reject and the model's own steps
// decide: real verdicts, every witness verified.
func TestWeakFromSteps(t *testing.T) {
	x, s := history.StringValue("x"), history.StringValue
	appends, err := history.FromOps([]history.Op{
		{Client: "A", F: "append", Key: x, Value: s("a"), Call: 0, Return: 1, Status: history.OK},
		{Client: "B", F: "append", Key: x, Value: s("b"), Call: 2, Return: 3, Status: history.OK},
		{Client: "B", F: "read", Key: x, Value: s("ba"), Call: 4, Return: 5, Status: history.OK},
		{Client: "A", F: "read", Key: x, Value: s("a"), Call: 6, Return: 7, Status: history.OK},
		{Client: "A", F: "read", Key: x, Value: s("ab"), Call: 8, Return: 9, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	queue, err := history.FromOps([]history.Op{
		{Client: "A", F: "enqueue", Value: history.IntValue(1), Call: 0, Return: 1, Status: history.OK},
		{Client: "A", F: "enqueue", Value: history.IntValue(2), Call: 2, Return: 3, Status: history.OK},
		{Client: "B", F: "dequeue", Value: history.IntValue(2), Call: 4, Return: 5, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model     string
		h         *history.History
		criterion string
		want      checker.Verdict
	}{
		{"kv", appends, checker.Causal, checker.True},
		{"kv", appends, checker.CausalConvergence, checker.False},
		{"kv", appends, checker.PRAM, checker.True},
		{"fifo-queue", queue, checker.Causal, checker.False},
		{"fifo-queue", queue, checker.PRAM, checker.False},
		{"fifo-queue", queue, checker.MonotonicWrites, checker.True},
	}
	for _, tt := range tests {
		m, err := Lookup(Builtin(), tt.model)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), m, tt.h, tt.criterion, model.Options{}, Options{Verify: true})
		if err != nil {
			t.Fatalf("%s %s: %v", tt.model, tt.criterion, err)
		}
		if res.Valid != tt.want || res.Criterion != tt.criterion {
			t.Errorf("%s %s: %v (%s), want %v", tt.model, tt.criterion, res.Valid, res.Reason, tt.want)
		}
		if res.Valid == checker.False && len(res.Violations) == 0 {
			t.Errorf("%s %s: false without a violation", tt.model, tt.criterion)
		}
	}
	// A deadline already passed is an unknown verdict that says so.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, _ := Lookup(Builtin(), "set")
	res, err := Run(ctx, m, queue, checker.Causal, model.Options{}, Options{})
	if err != nil || res.Valid != checker.Unknown || res.Reason != ReasonCancelled {
		t.Errorf("cancelled: %v (%q), %v", res.Valid, res.Reason, err)
	}
}
