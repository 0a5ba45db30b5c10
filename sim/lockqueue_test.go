package sim

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

func TestLockQueue(t *testing.T) {
	res := LockQueue(LockQueueSeed)
	if want := []string{"C3", "C1", "C4", "C2", "C5"}; !reflect.DeepEqual(res.Arrival, want) {
		t.Errorf("arrival %v, want %v", res.Arrival, want)
	}
	if res.Recipe != 4 || res.Naive != 10 {
		t.Errorf("notifications: recipe %d naive %d, want 4 and 10", res.Recipe, res.Naive)
	}
	want := []QueueEvent{
		{Node: 2, Client: "C4", Expired: true, Recipe: 1, Naive: 4, Holder: "C3"},
		{Node: 0, Client: "C3", Recipe: 1, Naive: 3, Holder: "C1"},
		{Node: 1, Client: "C1", Recipe: 1, Naive: 2, Holder: "C2"},
		{Node: 3, Client: "C2", Recipe: 1, Naive: 1, Holder: "C5"},
		{Node: 4, Client: "C5", Recipe: 0, Naive: 0},
	}
	if !reflect.DeepEqual(res.Events, want) {
		t.Errorf("events:\n got %+v\nwant %+v", res.Events, want)
	}
	table := res.Table()
	for _, line := range []string{
		"Arrival order: C3, C1, C4, C2, C5.",
		"| lock-0000000002 | C4 |",
		"| C4's session expires, lock-0000000002 deleted | C3 | 1 | 4 |",
		"| total |  | 4 | 10 |",
		"| 5 | 4 | 10 |",
		"| 100 | 99 | 4,950 |",
		"| 1,000 | 999 | 499,500 |",
	} {
		if !strings.Contains(table, line+"\n") {
			t.Errorf("table lacks %q:\n%s", line, table)
		}
	}
}

func TestHerdNotifications(t *testing.T) {
	tests := []struct{ n, recipe, naive int64 }{
		{0, 0, 0}, {1, 0, 0}, {5, 4, 10}, {100, 99, 4950}, {1000, 999, 499500},
	}
	for _, tc := range tests {
		if r, n := HerdNotifications(tc.n); r != tc.recipe || n != tc.naive {
			t.Errorf("HerdNotifications(%d) = %d, %d; want %d, %d", tc.n, r, n, tc.recipe, tc.naive)
		}
	}
}

func TestLockQueueHistory(t *testing.T) {
	h, err := LockQueue(LockQueueSeed).History()
	if err != nil {
		t.Fatal(err)
	}
	if c := h.Counts(); len(h.Ops) != 9 || c.OK != 8 || c.Info != 1 {
		t.Fatalf("%d ops, %+v; want 9 ops, 1 info", len(h.Ops), c)
	}
	var acquires []history.Op
	for _, o := range h.Ops {
		if k, _ := o.Key.Str(); k != "lock" {
			t.Fatalf("%s has key %v", o.Label(), o.Key)
		}
		switch {
		case o.F == "acquire" && o.Status == history.Info:
			if o.Client != "C4" || o.Return != history.Infinity {
				t.Errorf("pending acquire %s returns at %d", o.Label(), o.Return)
			}
		case o.F == "acquire":
			if o.Value != o.Token {
				t.Errorf("%s: value %v, token %v", o.Label(), o.Value, o.Token)
			}
			acquires = append(acquires, o)
		}
	}
	sort.Slice(acquires, func(i, j int) bool { return acquires[i].Return < acquires[j].Return })
	var holders []string
	last := int64(-1)
	for _, o := range acquires {
		holders = append(holders, o.Client)
		tok, _ := o.Token.Int()
		if tok <= last {
			t.Errorf("%s: token %d after %d; tokens must grow with each new holder", o.Label(), tok, last)
		}
		last = tok
	}
	if want := []string{"C3", "C1", "C2", "C5"}; !reflect.DeepEqual(holders, want) {
		t.Errorf("holders %v, want %v", holders, want)
	}
	if r := linearizable(t, model.NewMutex(model.Options{}), h); r.Valid != checker.True {
		t.Errorf("lock queue history is not linearizable for the mutex: %+v", r.Violations)
	}
}

// TestLockQueueClients checks the queue for other sizes against the counts
// worked out by hand: the expiry at position 2 wakes the next node (if any)
// with the recipe and every remaining node naively; then each of the n−1
// releases wakes the next node, or every remaining one.
func TestLockQueueClients(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 5, 10, 100} {
		r := LockQueueN(LockQueueSeed, n)
		wantRecipe, wantNaive := 0, 0
		rest := n
		if n > 2 {
			rest--
			if n > 3 {
				wantRecipe++
			}
			wantNaive += rest
		}
		for rest > 0 {
			rest--
			if rest > 0 {
				wantRecipe++
			}
			wantNaive += rest
		}
		if r.Recipe != wantRecipe || r.Naive != wantNaive {
			t.Errorf("%d clients: recipe %d naive %d, want %d and %d", n, r.Recipe, r.Naive, wantRecipe, wantNaive)
		}
		if len(r.Arrival) != n {
			t.Errorf("%d clients: arrival %v", n, r.Arrival)
		}
		if _, err := r.History(); err != nil {
			t.Errorf("%d clients: %v", n, err)
		}
	}
	if a, b := LockQueueN(LockQueueSeed, LockQueueClients), LockQueue(LockQueueSeed); a.Table() != b.Table() {
		t.Error("LockQueueN with the chapter's five clients differs from LockQueue")
	}
}
