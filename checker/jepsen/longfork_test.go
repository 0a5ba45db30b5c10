package jepsen_test

import (
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
)

// TestLongFork holds the case of Jepsen's long-fork checker-test and the
// rules around it.
func TestLongFork(t *testing.T) {
	const (
		r1  = "0 invoke read [[:r 0 nil] [:r 1 nil] [:r 2 nil]]"
		r1o = "0 ok read [[:r 0 1] [:r 1 1] [:r 2 nil]]"
		r2  = "1 invoke read [[:r 2 nil] [:r 0 nil] [:r 1 nil]]"
		r2o = "1 ok read [[:r 2 1] [:r 0 1] [:r 1 nil]]"
	)
	tests := []struct {
		name               string
		events             []string
		settings           map[string]string
		valid              checker.Verdict
		groupSize, forks   int
		reads, early, late int
	}{
		{"Jepsen's fork", []string{r1, r2, r1o, r2o}, map[string]string{"group-size": "3"}, checker.False, 3, 1, 2, 0, 0},
		{"group size from the first read", []string{r1, r2, r1o, r2o}, nil, checker.False, 3, 1, 2, 0, 0},
		{"reads in one order", []string{"0 invoke txn [[:w 0 1]]", "0 ok txn [[:w 0 1]]",
			"1 invoke txn [[:r 0 nil] [:r 1 nil]]", "1 ok txn [[:r 0 nil] [:r 1 nil]]",
			"1 invoke txn [[:r 1 nil] [:r 0 nil]]", "1 ok txn [[:r 1 nil] [:r 0 1]]",
			"2 invoke txn [[:w 1 1]]", "2 ok txn [[:w 1 1]]",
			"1 invoke txn [[:r 0 nil] [:r 1 nil]]", "1 ok txn [[:r 0 1] [:r 1 1]]"},
			nil, checker.True, 2, 0, 3, 1, 1},
		{"groups are compared apart", []string{"0 invoke txn [[:r 0 nil] [:r 1 nil]]", "0 ok txn [[:r 0 1] [:r 1 nil]]",
			"1 invoke txn [[:r 2 nil] [:r 3 nil]]", "1 ok txn [[:r 2 nil] [:r 3 1]]"}, nil, checker.True, 2, 0, 2, 0, 0},
		{"a key written twice", []string{"0 invoke txn [[:w 0 1]]", "0 ok txn [[:w 0 1]]",
			"1 invoke txn [[:w 0 2]]", "1 fail txn [[:w 0 2]]", r1, r1o}, nil, checker.Unknown, 3, 0, 1, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, jepsen.LongFork, edn(t, tt.events...), tt.settings)
			l := res.Jepsen.LongFork
			if res.Valid != tt.valid || l.GroupSize != tt.groupSize || len(l.Forks) != tt.forks ||
				l.Reads != tt.reads || l.EarlyReads != tt.early || l.LateReads != tt.late {
				t.Errorf("got %v size %d forks %d reads %d early %d late %d (%s)", res.Valid, l.GroupSize, len(l.Forks),
					l.Reads, l.EarlyReads, l.LateReads, res.Reason)
			}
		})
	}
}

// TestLongForkFacts: the fork names what each read saw that the other
// did not.
func TestLongForkFacts(t *testing.T) {
	h := edn(t, "0 invoke read [[:r 0 nil] [:r 1 nil] [:r 2 nil]]", "1 invoke read [[:r 2 nil] [:r 0 nil] [:r 1 nil]]",
		"0 ok read [[:r 0 1] [:r 1 1] [:r 2 nil]]", "1 ok read [[:r 2 1] [:r 0 1] [:r 1 nil]]")
	f := run(t, jepsen.LongFork, h, nil).Jepsen.LongFork.Forks[0]
	if h.Ops[f.A].Client != "0" || vals(f.OnlyA) != "1" || vals(f.OnlyB) != "2" {
		t.Errorf("fork %+v", f)
	}
}
