package jepsen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
	"github.com/histcheck/histcheck/history"
)

// triples renders counter reads as Jepsen does: [lower value upper].
func triples(rs []checker.CounterRead) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("[%d %d %d]", r.Lower, r.Value, r.Upper)
	}
	return strings.Join(parts, " ")
}

// TestCounter holds the cases of Jepsen's counter-test.
func TestCounter(t *testing.T) {
	tests := []struct {
		name          string
		events        []string
		valid         checker.Verdict
		reads, errors string
	}{
		{"empty", nil, checker.True, "", ""},
		{"initial read", []string{"0 invoke read", "0 ok read 0"}, checker.True, "[0 0 0]", ""},
		{"ignore failed ops", []string{"0 invoke add 1", "0 fail add 1", "0 invoke read", "0 ok read 0"},
			checker.True, "[0 0 0]", ""},
		{"incomplete history", []string{"0 invoke add 1", "1 invoke read", "1 ok read 0", "1 invoke read", "1 ok read 1"},
			checker.True, "[0 0 1] [0 1 1]", ""},
		{"initial invalid read", []string{"0 invoke read", "0 ok read 1"}, checker.False, "[0 1 0]", "[0 1 0]"},
		{"interleaved concurrent reads and writes", []string{
			"0 invoke read", "1 invoke add 1", "2 invoke read", "3 invoke add 2", "4 invoke read",
			"5 invoke add 4", "6 invoke read", "7 invoke add 8", "8 invoke read",
			"0 ok read 6", "1 ok add 1", "2 ok read 0", "3 ok add 2", "4 ok read 3",
			"5 ok add 4", "6 ok read 100", "7 ok add 8", "8 ok read 15"},
			checker.False, "[0 6 15] [0 0 15] [0 3 15] [0 100 15] [0 15 15]", "[0 100 15]"},
		{"rolling reads and writes", []string{
			"0 invoke read", "1 invoke add 1", "0 ok read 0", "0 invoke read", "1 ok add 1",
			"1 invoke add 2", "0 ok read 3", "0 invoke read", "1 ok add 2", "0 ok read 5"},
			checker.False, "[0 0 1] [0 3 3] [1 5 3]", "[1 5 3]"},
		{"a crashed add may have happened", []string{"0 invoke add 5", "0 info add 5", "1 invoke read", "1 ok read 5",
			"1 invoke read", "1 ok read 0"}, checker.True, "[0 5 5] [0 0 5]", ""},
		{"other operations are ignored", []string{"0 invoke reset", "0 ok reset", "0 invoke read", "0 ok read 0"},
			checker.True, "[0 0 0]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var res checker.Result
			if len(tt.events) == 0 {
				res = run(t, jepsen.Counter, emptyHistory(t), nil)
			} else {
				res = run(t, jepsen.Counter, edn(t, tt.events...), nil)
			}
			c := res.Jepsen.Counter
			if res.Valid != tt.valid || triples(c.Reads) != tt.reads || triples(c.Errors) != tt.errors {
				t.Errorf("got %v reads %q errors %q; want %v %q %q", res.Valid, triples(c.Reads), triples(c.Errors),
					tt.valid, tt.reads, tt.errors)
			}
			if len(res.Violations) != len(c.Errors) {
				t.Errorf("%d violations for %d errors", len(res.Violations), len(c.Errors))
			}
		})
	}
}

// TestCounterOwnOrder: a client's read after its own add, recorded with
// the add's return and the read's call at one instant, follows the add,
// so the add bounds the read from below.
func TestCounterOwnOrder(t *testing.T) {
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "add", Value: history.IntValue(1), Call: 0, Return: 1, Status: history.OK},
		{Client: "A", F: "read", Value: history.IntValue(0), Call: 1, Return: 2, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, jepsen.Counter, h, nil)
	if c := res.Jepsen.Counter; res.Valid != checker.False || triples(c.Errors) != "[1 0 1]" {
		t.Errorf("got %v errors %q; want false [1 0 1]", res.Valid, triples(c.Errors))
	}
}
