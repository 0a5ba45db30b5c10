package jepsen_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
	"github.com/histcheck/histcheck/history"
)

// TestRefusals: a value of a shape Jepsen's own checker throws on is
// refused, with an input error naming the operation's line and what was
// expected, never judged, and saying whether Jepsen fails an assertion
// on it (the counter's) rather than throwing an exception; the shapes
// Jepsen reads without complaint are judged (TestTolerated).
func TestRefusals(t *testing.T) {
	r3 := "0 invoke txn [[:r 0 nil] [:r 1 nil] [:r 2 nil]]"
	r3o := "0 ok txn [[:r 0 1] [:r 1 nil] [:r 2 nil]]"
	tests := []struct {
		name, checker string
		events        []string
		line          int    // the refused operation's line
		want          string // in the message
		assertion     bool
	}{
		{"counter: an add of a string", jepsen.Counter, []string{"0 invoke add \"x\"", "0 ok add \"x\""}, 1, `needs a whole number of at least 0, got x (a string)`, true},
		{"counter: a negative add", jepsen.Counter, []string{"0 invoke add -1", "0 ok add -1"}, 1, "at least 0, got -1", true},
		{"counter: a failed add of nil", jepsen.Counter, []string{"0 invoke add 1", "0 ok add 1", "1 invoke add nil", "1 fail add nil"}, 3, "got nil", false},
		{"counter: an ok read of nil", jepsen.Counter, []string{"0 invoke read", "0 ok read nil"}, 1, "read needs the whole number read, got nil", false},
		{"counter: an ok read of a keyword", jepsen.Counter, []string{"0 invoke read", "0 ok read :x"}, 1, "got x (a string)", true},
		{"set: a final read of a number", jepsen.Set, []string{"0 invoke add 1", "0 ok add 1", "1 invoke read", "1 ok read 7"}, 3, "needs the elements read, as a list or a set, got 7 (an int)", false},
		{"set: a final read of a map", jepsen.Set, []string{"0 invoke add 1", "0 ok add 1", "1 invoke read", "1 ok read {1 1}"}, 3, "as a list or a set, got", false},
		{"set-full: a read of a number", jepsen.SetFull, []string{"0 invoke add 1", "0 ok add 1", "1 invoke read", "1 ok read [1]", "1 invoke read", "1 ok read 7"}, 5, "got 7 (an int)", false},
		{"bank: a read of a number", jepsen.Bank, []string{"0 invoke read", "0 ok read {0 5 1 5}", "0 invoke read", "0 ok read 5"}, 3, "needs a map of accounts to balances, got 5 (an int)", false},
		{"bank: a read of a list", jepsen.Bank, []string{"0 invoke read", "0 ok read [[0 5] [1 5]]"}, 1, "needs a map of accounts to balances", false},
		{"bank: a balance of a string", jepsen.Bank, []string{"0 invoke read", "0 ok read {0 5 1 \"5\"}"}, 1, `whole-number balances, got 5 (a string) for account 1`, false},
		{"long-fork: a read of a number", jepsen.LongFork, []string{r3, r3o, "1 invoke txn nil", "1 ok txn 3"}, 3, "needs a transaction [[r k v] ...] or [[w k v]], got 3 (an int)", false},
		{"long-fork: an invocation of a number", jepsen.LongFork, []string{"1 invoke txn 3", "1 fail txn 3", r3, r3o}, 1, "got 3 (an int)", false},
		{"long-fork: a micro-operation of a number", jepsen.LongFork, []string{r3, r3o, "1 invoke txn [[:w 0 1] 5]", "1 ok txn [[:w 0 1] 5]"}, 3, "needs micro-operations [f k v], got 5", false},
		{"long-fork: a micro-operation without a key", jepsen.LongFork, []string{r3, r3o, "1 invoke txn [[:w]]", "1 ok txn [[:w]]"}, 3, "needs a key, [w k v]", false},
		{"long-fork: a read of another group size", jepsen.LongFork, []string{r3, r3o, "1 invoke txn [[:r 5 nil]]", "1 ok txn [[:r 5 nil]]"}, 3, "should read 3 keys (the group size), but this one read 1", false},
		{"long-fork: a read of nil", jepsen.LongFork, []string{r3, r3o, "1 invoke txn nil", "1 ok txn nil"}, 3, "but this one read 0", false},
		{"long-fork: two values of one key", jepsen.LongFork, []string{"0 invoke txn [[:r 0 nil]]", "0 ok txn [[:r 0 1]]",
			"1 invoke txn [[:r 0 nil]]", "1 ok txn [[:r 0 2]]"}, 3, "read different values of key 0 (2 and 1)", false},
		{"total-queue: a drain of a number", jepsen.TotalQueue, []string{"0 invoke enqueue 1", "0 ok enqueue 1", "1 invoke drain", "1 ok drain 1"}, 3, "a drain needs the elements it dequeued, as a list or a set, got 1 (an int)", false},
		{"unique-ids: identifiers of two kinds", jepsen.UniqueIDs, []string{"0 invoke generate", "0 ok generate 1", "0 invoke generate", "0 ok generate :a"}, 3,
			"cannot compare a (a string) with 1 (an int), returned by 0:generate", false},
		{"unique-ids: a map", jepsen.UniqueIDs, []string{"0 invoke generate", "0 ok generate {1 2}"}, 1, "cannot compare {1 2} (a map)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jepsen.Check(context.Background(), tt.checker, edn(t, tt.events...), nil, 0)
			var ie *history.InputError
			var re *jepsen.RefusedError
			if !errors.As(err, &ie) || ie.Line != tt.line || !strings.Contains(err.Error(), tt.want) ||
				!errors.As(err, &re) || re.Assertion != tt.assertion {
				t.Errorf("got %v (%T), want an input error at line %d with %q, assertion %v", err, err, tt.line, tt.want, tt.assertion)
			}
		})
	}
}

// TestTolerated: what Jepsen's checkers read without throwing is judged,
// not refused: nil where Jepsen takes nil for an empty collection, and
// the values of operations a checker does not look at.
func TestTolerated(t *testing.T) {
	r2 := "0 invoke txn [[:r 0 nil] [:r 1 nil]]"
	tests := []struct {
		name, checker string
		events        []string
		valid         checker.Verdict
	}{
		{"counter: a failed read of a string", jepsen.Counter, []string{"0 invoke read", "0 fail read :x"}, checker.True},
		{"counter: a read of unknown outcome", jepsen.Counter, []string{"0 invoke read", "0 info read"}, checker.True},
		{"counter: other operations", jepsen.Counter, []string{"0 invoke cas \"x\"", "0 ok cas \"x\""}, checker.True},
		{"set: an earlier read of a number", jepsen.Set, []string{"0 invoke add 1", "0 ok add 1", "1 invoke read", "1 ok read 7",
			"1 invoke read", "1 ok read #{1}"}, checker.True},
		{"set: a final read of nil", jepsen.Set, []string{"0 invoke add 1", "0 ok add 1", "1 invoke read", "1 ok read nil"}, checker.Unknown},
		{"set-full: a read of nil is empty", jepsen.SetFull, []string{"0 invoke add 1", "0 ok add 1", "1 invoke read", "1 ok read [1]",
			"1 invoke read", "1 ok read nil"}, checker.False},
		{"set-full: a failed read of a number", jepsen.SetFull, []string{"0 invoke add 1", "0 ok add 1", "1 invoke read", "1 fail read 7",
			"1 invoke read", "1 ok read [1]"}, checker.True},
		{"bank: a read of nil has no accounts", jepsen.Bank, []string{"0 invoke read", "0 ok read {0 5 1 5}", "0 invoke read", "0 ok read nil"}, checker.False},
		{"bank: a failed read of a number", jepsen.Bank, []string{"0 invoke read", "0 fail read 5", "0 invoke read", "0 ok read {0 5 1 5}"}, checker.True},
		{"bank: transfers are not read", jepsen.Bank, []string{"0 invoke transfer 5", "0 ok transfer 5", "0 invoke read", "0 ok read {0 5 1 5}"}, checker.True},
		{"long-fork: a micro-operation of nil", jepsen.LongFork, []string{r2, "0 ok txn [[:r 0 nil] [:r 1 nil]]", "1 invoke txn [nil]", "1 ok txn [nil]"}, checker.True},
		{"long-fork: a read without its value", jepsen.LongFork, []string{r2, "0 ok txn [[:r 0] [:r 1 1]]", "1 invoke txn [[:w 1 1]]", "1 ok txn [[:w 1 1]]"}, checker.True},
		{"long-fork: other micro-operations", jepsen.LongFork, []string{r2, "0 ok txn [[:r 0 nil] [:r 1 nil]]", "1 invoke txn [[:append 0 1]]", "1 ok txn [[:append 0 1]]"}, checker.True},
		{"total-queue: a drain of nil", jepsen.TotalQueue, []string{"0 invoke drain", "0 ok drain nil"}, checker.True},
		{"unique-ids: integers and floats", jepsen.UniqueIDs, []string{"0 invoke generate", "0 ok generate 1", "0 invoke generate", "0 ok generate 1.5"}, checker.True},
		{"unique-ids: nil among strings", jepsen.UniqueIDs, []string{"0 invoke generate", "0 ok generate :a", "0 invoke generate", "0 ok generate nil",
			"0 invoke generate", "0 ok generate :b"}, checker.True},
		{"unique-ids: a failed generate of another kind", jepsen.UniqueIDs, []string{"0 invoke generate", "0 ok generate 1", "0 invoke generate", "0 fail generate :a"}, checker.True},
		{"total-queue: a failed drain of a number", jepsen.TotalQueue, []string{"0 invoke drain", "0 fail drain 1"}, checker.True},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if res := run(t, tt.checker, edn(t, tt.events...), nil); res.Valid != tt.valid {
				t.Errorf("got %v (%s), want %v", res.Valid, res.Reason, tt.valid)
			}
		})
	}
}
