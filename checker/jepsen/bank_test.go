package jepsen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
)

// bankErrors renders a bank tally's errors as "TYPE@CALL total [accounts]".
func bankErrors(h interface{ call(int) int64 }, t *checker.BankTally) string {
	parts := make([]string, len(t.Errors))
	for i, e := range t.Errors {
		parts[i] = fmt.Sprintf("%s@%d %d [%s]", e.Type, h.call(e.Op), e.Total, vals(e.Accounts))
	}
	return strings.Join(parts, "; ")
}

type calls []int64

func (c calls) call(op int) int64 { return c[op] }

// TestBank checks the bank's rules, read by read.
func TestBank(t *testing.T) {
	const first = "0 invoke read"
	tests := []struct {
		name     string
		events   []string
		settings map[string]string
		valid    checker.Verdict
		total    int64
		errors   string
	}{
		{"no reads", []string{"0 invoke transfer {:from 0 :to 1 :amount 5}", "0 ok transfer {:from 0 :to 1 :amount 5}"},
			nil, checker.True, 0, ""},
		{"the total kept", []string{first, "0 ok read {0 10 1 10}", "1 invoke transfer {:from 0 :to 1 :amount 5}",
			"1 ok transfer {:from 0 :to 1 :amount 5}", "0 invoke read", "0 ok read {0 5 1 15}"}, nil, checker.True, 20, ""},
		{"wrong total", []string{first, "0 ok read {0 10 1 10}", "0 invoke read", "0 ok read {0 5 1 10}"},
			nil, checker.False, 20, "wrong-total@2 15 []"},
		{"negative balance", []string{first, "0 ok read {0 10 1 10}", "0 invoke read", "0 ok read {0 -5 1 25}"},
			nil, checker.False, 20, "negative-value@2 20 [0]"},
		{"negative balances allowed", []string{first, "0 ok read {0 10 1 10}", "0 invoke read", "0 ok read {0 -5 1 25}"},
			map[string]string{"negative-balances": "true"}, checker.True, 20, ""},
		{"unexpected account", []string{first, "0 ok read {0 10 1 10}", "0 invoke read", "0 ok read {0 10 1 5 2 5}"},
			nil, checker.False, 20, "unexpected-key@2 0 [2]"},
		{"nil balance", []string{first, "0 ok read {0 10 1 10}", "0 invoke read", "0 ok read {0 20 1 nil}"},
			nil, checker.False, 20, "nil-balance@2 0 [1]"},
		{"total given", []string{first, "0 ok read {0 10 1 10}"}, map[string]string{"total-amount": "30"},
			checker.False, 30, "wrong-total@0 20 []"},
		{"first read with a nil balance and no total", []string{first, "0 ok read {0 10 1 nil}", "0 invoke read",
			"0 ok read {0 5 1 10}"}, nil, checker.Unknown, 0, ""},
		{"first read with a nil balance, total given", []string{first, "0 ok read {0 20 1 nil}"},
			map[string]string{"total-amount": "20"}, checker.False, 20, "nil-balance@0 0 [1]"},
		{"failed and crashed reads are not judged", []string{first, "0 ok read {0 10 1 10}", "0 invoke read",
			"0 fail read {0 1 1 1}", "1 invoke read", "1 info read"}, nil, checker.True, 20, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := edn(t, tt.events...)
			c := make(calls, len(h.Ops))
			for i := range h.Ops {
				c[i] = h.Ops[i].Call
			}
			res := run(t, jepsen.Bank, h, tt.settings)
			b := res.Jepsen.Bank
			if got := bankErrors(c, b); res.Valid != tt.valid || b.Total != tt.total || got != tt.errors {
				t.Errorf("got %v total %d errors %q; want %v %d %q", res.Valid, b.Total, got, tt.valid, tt.total, tt.errors)
			}
		})
	}
}

// TestBankGroups counts errors by kind with Jepsen's first, worst and
// last, and the first error overall.
func TestBankGroups(t *testing.T) {
	h := edn(t, "0 invoke read", "0 ok read {0 10 1 10}",
		"0 invoke read", "0 ok read {0 5 1 10}", // wrong total 15
		"0 invoke read", "0 ok read {0 -1 1 21}", // negative 1
		"0 invoke read", "0 ok read {0 30 1 10}", // wrong total 40
		"0 invoke read", "0 ok read {0 -9 1 29}", // negative 9
		"0 invoke read", "0 ok read {0 19 1 0}") // wrong total 19
	b := run(t, jepsen.Bank, h, nil).Jepsen.Bank
	if len(b.Groups) != 2 || b.FirstError != 0 {
		t.Fatalf("groups %+v, first error %d", b.Groups, b.FirstError)
	}
	wrong, neg := b.Groups[0], b.Groups[1]
	total := func(i int) int64 { return b.Errors[i].Total }
	if wrong.Type != checker.BankWrongTotal || wrong.Count != 3 || total(wrong.First) != 15 || total(wrong.Worst) != 40 ||
		total(wrong.Last) != 19 || total(wrong.Lowest) != 15 || total(wrong.Highest) != 40 {
		t.Errorf("wrong totals %+v", wrong)
	}
	if neg.Type != checker.BankNegativeValue || neg.Count != 2 || b.Errors[neg.Worst].Balances[0] != -9 ||
		neg.Lowest != checker.None {
		t.Errorf("negative values %+v", neg)
	}
}

func TestBankOptions(t *testing.T) {
	h := edn(t, "0 invoke read", "0 ok read {0 10}")
	for _, s := range []map[string]string{{"total-amount": "x"}, {"negative-balances": "maybe"}, {"group-size": "3"}} {
		if _, err := jepsen.Check(t.Context(), jepsen.Bank, h, s, 0); err == nil {
			t.Errorf("%v: no error", s)
		}
	}
	if _, err := jepsen.Check(t.Context(), jepsen.Counter, h, map[string]string{"total-amount": "3"}, 0); err == nil ||
		!strings.Contains(err.Error(), "takes no options") {
		t.Errorf("counter with an option: %v", err)
	}
}
