package report

import (
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// explainHistory is the history the words of TestExplain name: A writes x
// twice, B reads x's first value and then its initial value, C reads a
// value of the register nobody wrote.
func explainHistory(t *testing.T) *history.History {
	t.Helper()
	x := history.StringValue("x")
	op := func(c, f string, key history.Value, v, call, ret int64) history.Op {
		return history.Op{Client: c, F: f, Key: key, Value: history.IntValue(v), Call: call, Return: ret, Status: history.OK}
	}
	h, err := history.FromOps([]history.Op{
		op("A", "write", x, 1, 0, 2),
		op("B", "read", x, 1, 3, 4),
		op("A", "write", x, 2, 5, 6),
		op("B", "read", x, 0, 7, 8),
		op("C", "read", history.Value{}, 5, 1, 9),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// step is a checker.Step with no read, write or session named.
func step(from, to int, rel checker.Relation) checker.Step {
	return checker.Step{From: from, To: to, Rel: rel, Via: checker.None, Source: checker.None, Seen: checker.None}
}

// via is step with the read it rests on.
func via(s checker.Step, rd int) checker.Step { s.Via = rd; return s }

// TestExplain says the facts of a violation of each pattern, and of each
// way its checker tells them, in words.
func TestExplain(t *testing.T) {
	h := explainHistory(t)
	const (
		w1, c5, r1, w2, r0 = 0, 1, 2, 3, 4 // in call order, as FromOps orders them
		none, initial      = checker.None, checker.Initial
	)
	versions := func(vs ...int) []checker.Version {
		var out []checker.Version
		for i := 0; i+1 < len(vs); i += 2 {
			out = append(out, checker.Version{Op: vs[i], Version: int64(vs[i+1])})
		}
		return out
	}
	replaced := func(from, to, source int) checker.Step {
		s := step(from, to, checker.RelReplaced)
		s.Source = source
		return s
	}
	known := func(from, to, seen, rd int) checker.Step {
		s := step(from, to, checker.RelKnown)
		s.Seen, s.Via = seen, rd
		return s
	}
	tests := []struct {
		name string
		crit string
		v    checker.Violation
		want string
	}{
		// The searches, and the reference.
		{"search without a failing operation", checker.Linearizable, checker.Violation{Prefix: []int{w1}},
			"no order of the operations is legal"},
		{"search in the initial state", checker.Linearizable,
			checker.Violation{Stuck: []checker.Stuck{{Op: r0, Said: "read 0 but the register holds 1"}}},
			"B:r(x, 0) cannot take effect: read 0 but the register holds 1 (in the initial state)"},
		{"search after a long order, by the state", checker.Linearizable,
			checker.Violation{Prefix: []int{w1, r1, w2, c5}, Stuck: []checker.Stuck{{Op: r0, Said: "2", State: true}}},
			"B:r(x, 0) cannot take effect: illegal in state 2 (after … -> B:r(x, 1) -> A:w(x, 2) -> C:r(5))"},
		{"reference without a failing operation", checker.Sequential, checker.Violation{Model: "register"},
			"No order of the operations respects each process's order and the register model."},
		{"reference at the start", checker.Linearizable,
			checker.Violation{Model: "register", Stuck: []checker.Stuck{{Op: r0, Said: "read 0 but the register holds 1"}}},
			"No order of the operations respects real time and the register model: no operation can come first (B:r(x, 0): read 0 but the register holds 1)."},
		{"reference after an order, by the state", checker.Linearizable,
			checker.Violation{Model: "register", Prefix: []int{w1, r1}, Stuck: []checker.Stuck{{Op: r0, Said: "1", State: true}}},
			"No order of the operations respects real time and the register model: the longest legal order found is A:w(x, 1), B:r(x, 1), and B:r(x, 0) cannot follow it: it is illegal in state 1."},
		{"sequential search", checker.Sequential,
			checker.Violation{Pattern: "no-sequential-order", Searched: 5, Prefix: []int{w1},
				Stuck: []checker.Stuck{{Op: r1, Legal: true}, {Op: r0, Said: "1", State: true}, {Op: c5, Said: "read 5 but the register holds nil"}}},
			"no order of the 5 operations keeps each process's order and is legal: the longest legal order found places 1 of them, and then no process can go on " +
				"(B:r(x, 1) is legal there, but every order continuing with it fails later; B:r(x, 0) cannot: illegal in state 1; C:r(5) cannot: read 5 but the register holds nil)"},

		// Counting a lock's holders.
		{"count at the end, too many holders", checker.Sequential,
			checker.Violation{Pattern: "count", Ops: []int{w1, w2}, Count: &checker.Count{Upto: none, Up: 3, Down: 1, MayDown: 0, Capacity: 1}},
			"counting alone refutes it, whatever the order: 3 operations took the lock and 1 released it, so every order ends with at least 2 holders, and the lock allows 1; " +
				"these took it and no later operation of their own process released it: A:w(x, 1), A:w(x, 2)"},
		{"count at the end, too many releases", checker.Sequential,
			checker.Violation{Pattern: "count", Ops: []int{r1}, Count: &checker.Count{Upto: none, Down: 2, MayUp: 1, Capacity: 1}},
			"counting alone refutes it, whatever the order: 0 operations took the lock and 2 released it (and of unknown outcome, 1 may have taken it and 0 released it), " +
				"so every order releases it at least 1 more times than it was taken; these released it with no earlier acquire of their own process: B:r(x, 1)"},
		{"count along one process", checker.Sequential,
			checker.Violation{Pattern: "count", Ops: []int{r1, r0}, Count: &checker.Count{Upto: r0, Down: 3, OthersMost: 1, Capacity: 1}},
			"counting alone refutes it, whatever the order: up to B:r(x, 0), its process released the lock at least 3 more times than it took it, " +
				"and the other processes can together hold it at most 1 times at once, so it would be released more often than it was taken (operations: B:r(x, 1), B:r(x, 0))"},

		{"count of one client", checker.Sequential,
			checker.Violation{Pattern: "count", Ops: []int{w1, w2}, Count: &checker.Count{Upto: none, Up: 2, Capacity: 1, OneClient: true}},
			"the operations of A alone have no order (a lock that records its holder orders each client's operations on their own): " +
				"counting alone refutes it, whatever the order: 2 operations took the lock and 0 released it, so every order ends with at least 2 holders, and the lock allows 1; " +
				"these took it and no later operation of their own process released it: A:w(x, 1), A:w(x, 2)"},
		{"count in order", checker.Sequential,
			checker.Violation{Pattern: "count", Ops: []int{r1, r0}, Count: &checker.Count{Upto: r0, Down: 1, Up: 1, Capacity: 1, InOrder: true}},
			"counting in order refutes it: B's operations up to B:r(x, 0) (B:r(x, 1), B:r(x, 0)) take and release the lock in an order " +
				"that no interleaving with the other processes' operations, each process's in its own order, keeps between 0 and 1 holders " +
				"at every step, whichever of the others' operations take and which release it"},
		{"clients that each end holding", checker.Sequential,
			checker.Violation{Pattern: "owners-held", Ops: []int{w1, r1}},
			"each of A, B ends holding the lock in every order of its own operations, " +
				"but the lock has one holder at a time (their last acquires: A:w(x, 1), B:r(x, 1))"},

		// Reads of values nobody wrote, and the versions.
		{"thin air, by the versions", checker.Sequential, checker.Violation{Pattern: "thin-air-read", Op: r0, Versions: versions(r0, 4)},
			"B:r(x, 0) carries version 4 but returned neither the value the write of that version wrote nor, when no write has it, the initial value, so no order can make it legal"},
		{"thin air, by the saturation", checker.Sequential, checker.Violation{Pattern: "thin-air-read", Op: c5},
			"C:r(5) returns a value that no operation wrote and that is not the initial value, so no order can make it legal"},
		{"thin air, by the zones", checker.Linearizable, checker.Violation{Pattern: "thin-air-read", Op: c5, Value: "5"},
			"C:r(5) read 5, which no operation wrote and which is not the initial value"},
		{"version cycle in real time", checker.Linearizable,
			checker.Violation{Pattern: "version-cycle", Versions: versions(w1, 1, w2, 2),
				Steps: []checker.Step{step(w1, r1, checker.RelReadsFrom), step(r1, w2, checker.RelReplaced), step(w2, w1, checker.RelVersion)}},
			"no order of the operations keeps the versions and real time: B:r(x, 1) read what A:w(x, 1) (version 1) wrote; " +
				"B:r(x, 1) read a version that A:w(x, 2) (version 2) replaces; A:w(x, 2) (version 2) is older than A:w(x, 1) (version 1); " +
				"so A:w(x, 1) (version 1) would precede itself"},
		{"version cycle in process order", checker.Sequential,
			checker.Violation{Pattern: "version-cycle", Steps: []checker.Step{step(w1, w2, checker.RelProcess), step(w2, w1, checker.RelRealTime)}},
			"no order of the operations keeps the versions and each process's order: A:w(x, 1) precedes A:w(x, 2) in its process; " +
				"A:w(x, 2) returned before A:w(x, 1) was called; so A:w(x, 1) would precede itself"},

		// The saturation of sequential consistency.
		{"saturation through the initial value", checker.Sequential,
			checker.Violation{Pattern: "saturation-cycle", Steps: []checker.Step{
				step(initial, r0, checker.RelReadsFrom), replaced(r0, w1, initial), via(step(w1, initial, checker.RelBeforeSource), r0)}},
			"no single order keeps each process's order and gives every read the value it returned: B:r(x, 0) reads the initial value, so it comes after it; " +
				"B:r(x, 0) reads the initial value, so it must come before every write, A:w(x, 1) included; " +
				"A:w(x, 1) would have to come before the initial value, since B:r(x, 0) comes after it and reads the initial value; these orders form a cycle"},
		{"saturation through writes", checker.Sequential,
			checker.Violation{Pattern: "saturation-cycle", Steps: []checker.Step{
				step(initial, w1, checker.RelInitial), step(w1, r1, checker.RelReadsFrom), replaced(r1, w2, w1),
				via(step(w2, w1, checker.RelBeforeSource), r1), step(w1, w2, checker.RelProcess)}},
			"no single order keeps each process's order and gives every read the value it returned: the initial value comes before every write, A:w(x, 1) included; " +
				"B:r(x, 1) reads A:w(x, 1)'s value, so it comes after it; B:r(x, 1) must come before A:w(x, 2), since it reads A:w(x, 1)'s value and A:w(x, 2) comes after that write; " +
				"A:w(x, 2) must come before A:w(x, 1), since B:r(x, 1) comes after A:w(x, 2) and reads A:w(x, 1)'s value; " +
				"A:w(x, 1) comes before A:w(x, 2) in A's own order; these orders form a cycle"},

		// The register sweep and the zones.
		{"stale read of a value written", checker.Linearizable,
			checker.Violation{Pattern: "stale-read", Op: r1, Value: "1", Writes: []int{w2, w1}},
			"B:r(x, 1) cannot take effect: no order of the operations lets the register hold 1 at any moment between its call (at 3) and its return (at 4); " +
				"the writes of it (latest first: A:w(x, 2), A:w(x, 1)) all take effect too early or too late, or are overwritten in between"},
		{"stale read of a value nobody writes", checker.Linearizable,
			checker.Violation{Pattern: "stale-read", Op: c5, Value: "5"},
			"C:r(5) cannot take effect: no order of the operations lets the register hold 5 at any moment between its call (at 1) and its return (at 9); no operation writes it"},
		{"stale read of the initial value", checker.Linearizable,
			checker.Violation{Pattern: "stale-read", Op: r0, Value: "0", Initial: true},
			"B:r(x, 0) cannot take effect: no order of the operations lets the register hold 0 at any moment between its call (at 7) and its return (at 8); " +
				"it is the initial value and is never written again, and it was overwritten before the read was called"},
		{"read before write", checker.Linearizable,
			checker.Violation{Pattern: "read-before-write", Op: r1, Value: "1", Source: w1},
			"B:r(x, 1) read 1 but returned before A:w(x, 1), the only write of 1, was called"},
		{"overlapping zones", checker.Linearizable,
			checker.Violation{Pattern: "overlapping-zones", Zones: []checker.Zone{
				{Value: "0", Initial: true, Write: none, FromOp: none, ToOp: r0, To: 7},
				{Value: "1", Write: w1, FromOp: w1, ToOp: r1, From: 2, To: 3}}},
			"The initial value 0 must stay in the register until B:r(x, 0) was called (at 7), since it reads it; " +
				"and 1, written only by A:w(x, 1), must be in the register from when A:w(x, 1) returned (at 2) until B:r(x, 1) was called (at 3), since B:r(x, 1) reads it; " +
				"the two spans overlap, and the register cannot hold both values at once"},
		{"zone inside a zone", checker.Linearizable,
			checker.Violation{Pattern: "zone-inside-zone", Zones: []checker.Zone{
				{Value: "1", Write: w1, FromOp: w1, ToOp: r1, From: 2, To: 3},
				{Value: "2", Write: w2, FromOp: w2, ToOp: w2, From: 5, To: 6}}},
			"1, written only by A:w(x, 1), must be in the register from when A:w(x, 1) returned (at 2) until B:r(x, 1) was called (at 3), since B:r(x, 1) reads it; " +
				"but 2, written only by A:w(x, 2), can be in the register only at some instant from 5 to 6 (after A:w(x, 2) was called, before A:w(x, 2) returned), which is within that span"},
		{"zones of an unknown kind", checker.Linearizable, checker.Violation{Pattern: "unknown"},
			"no order of the operations is legal"},

		// The causal criteria.
		{"thin air, causally, by the versions", checker.Causal,
			checker.Violation{Pattern: "ThinAirRead", Op: c5, Versions: versions(c5, 3)},
			"C:r(5) returned 5 at version 3, which is neither what the write of the register with that version wrote nor the initial value"},
		{"thin air, causally", checker.Causal, checker.Violation{Pattern: "ThinAirRead", Op: r0},
			"B:r(x, 0) returned 0, which no write of x wrote and which is not the initial value"},
		{"causal past that the versions cannot order", checker.Causal,
			checker.Violation{Pattern: "CyclicCO", Op: r0, Versions: versions(w1, 2, w2, 1), Steps: []checker.Step{
				step(w1, w2, checker.RelProcess), step(w2, w1, checker.RelVersion)}},
			"the causal past of B:r(x, 0) cannot be ordered with the writes' versions: A:w(x, 1) precedes A:w(x, 2) in process A's order; " +
				"A:w(x, 2) has version 1, older than A:w(x, 1)'s version 2, so it takes effect first; so A:w(x, 1) precedes itself"},
		{"overwritten by the versions", checker.Causal,
			checker.Violation{Pattern: "WriteCORead", Op: r1, Source: w1, Newer: w2, Versions: versions(w1, 1, w2, 2), Steps: []checker.Step{
				step(w1, w2, checker.RelVersion), step(w2, r0, checker.RelReadsFrom), step(r0, r1, checker.RelProcess)}},
			"B:r(x, 1) returned the value of A:w(x, 1) (version 1) although A:w(x, 2), version 2, precedes it causally: " +
				"B:r(x, 0) read the value A:w(x, 2) wrote, so the write precedes the read causally, and B:r(x, 0) precedes B:r(x, 1) in process B's order"},
		{"overwritten in the causal past", checker.Causal,
			checker.Violation{Pattern: "WriteCORead", Op: r0, Source: w1, Newer: w2, Steps: []checker.Step{
				step(w1, r1, checker.RelProcess), step(r1, w2, checker.RelProcess), step(w2, r0, checker.RelProcess)}},
			"B:r(x, 0) returned the value of A:w(x, 1) although A:w(x, 2) overwrote it in the read's causal past: " +
				"A:w(x, 1) precedes A:w(x, 2) in process A's order; A:w(x, 2) precedes B:r(x, 0) in process A's order"},
		{"no single order of the writes", checker.CausalConvergence,
			checker.Violation{Pattern: "CyclicCF", Op: none, Steps: []checker.Step{
				via(step(w1, w2, checker.RelBeforeSource), r1), via(step(w2, w1, checker.RelBeforeSource), r0)}},
			"no single order of the writes explains every read: B:r(x, 1) read A:w(x, 2) although A:w(x, 1) precedes it causally, so A:w(x, 1) must be ordered before A:w(x, 2); " +
				"B:r(x, 0) read A:w(x, 1) although A:w(x, 2) precedes it causally, so A:w(x, 2) must be ordered before A:w(x, 1); so A:w(x, 1) precedes itself"},
		{"a view that cannot be ordered", checker.CausalMemory,
			checker.Violation{Pattern: "CyclicHB", Op: none, Session: r1, Steps: []checker.Step{
				via(step(w1, w2, checker.RelBeforeSource), r1), step(w2, w1, checker.RelNone)}},
			"process B cannot order what it has seen: B:r(x, 1) read A:w(x, 2) although A:w(x, 1) precedes it in B's view, so B must see A:w(x, 1) before A:w(x, 2); so A:w(x, 1) precedes itself"},
		{"initial value after a write in a view", checker.CausalMemory,
			checker.Violation{Pattern: "WriteHBInitRead", Op: r0, Newer: w1, Steps: []checker.Step{step(w1, r0, checker.RelReadsFrom)}},
			"B:r(x, 0) returned the initial value of x although A:w(x, 1) precedes it in B's view: B:r(x, 0) read the value A:w(x, 1) wrote, so the write precedes the read causally"},

		// The session guarantees and PRAM.
		{"a read of its own later write", checker.WritesFollowReads,
			checker.Violation{Pattern: "writes-follow-reads", Op: r1, Source: w2},
			"B:r(x, 1) read the value of A:w(x, 2), which its own process issued only afterwards, so that write would follow itself"},
		{"an older version than the session wrote", checker.ReadYourWrites,
			checker.Violation{Pattern: "read-your-writes", Op: r0, Versions: versions(r0, 1, w2, 2), Steps: []checker.Step{known(w2, r0, none, none)}},
			"B wrote A:w(x, 2) itself; then B:r(x, 0) returned version 1 of x, older than A:w(x, 2)'s version 2"},
		{"the initial value after the session saw a write", checker.MonotonicReads,
			checker.Violation{Pattern: "monotonic-reads", Op: r0, Steps: []checker.Step{known(w1, r0, r1, none)}},
			"B had read A:w(x, 1) with B:r(x, 1); then B:r(x, 0) returned the initial value of x, as if A:w(x, 1) had not happened"},
		{"no single order of the writes for every session", checker.WritesFollowReads,
			checker.Violation{Pattern: "writes-follow-reads", Op: none, Versions: versions(w1, 1, w2, 2), Steps: []checker.Step{
				step(w1, w2, checker.RelVersion), via(step(w2, w1, checker.RelIssued), r1), step(w1, w2, checker.RelProcess),
				known(w2, w1, r1, r0), known(w1, w2, none, none), step(w1, w2, checker.RelNone)}},
			"no single order of the writes, shared by every session, explains these reads: A:w(x, 1) has version 1, older than A:w(x, 2)'s version 2; " +
				"B read A:w(x, 2) before it issued A:w(x, 1), so A:w(x, 2) is older than A:w(x, 1); " +
				"A:w(x, 1) precedes A:w(x, 2) in process A's order, and monotonic writes keeps that order; " +
				"B had read A:w(x, 2) with B:r(x, 1), and later B:r(x, 0) returned A:w(x, 1), so A:w(x, 2) is older than A:w(x, 1); " +
				"A wrote A:w(x, 1) itself; ; so A:w(x, 1) would be older than itself"},
		{"a PRAM view that cannot be ordered", checker.PRAM,
			checker.Violation{Pattern: "pram", Op: none, Session: r1, Versions: versions(w1, 1, w2, 2), Steps: []checker.Step{
				via(step(w1, w2, checker.RelBeforeSource), r1), replaced(r1, w2, w1), replaced(r0, w1, initial),
				step(w1, r1, checker.RelReadsFrom), step(r1, r0, checker.RelProcess), step(w1, w2, checker.RelVersion), step(w2, w1, checker.RelNone)}},
			"session B has no view of the writes that keeps every session's order: " +
				"B:r(x, 1) returned A:w(x, 2) although A:w(x, 1) comes before it in B's view, so A:w(x, 1) must come before A:w(x, 2); " +
				"B:r(x, 1) returned A:w(x, 1) and A:w(x, 2) comes after that write in B's view, so the read must come before A:w(x, 2); " +
				"B:r(x, 0) returned the initial value of x, so it comes before A:w(x, 1); B:r(x, 1) read the value A:w(x, 1) wrote; " +
				"B:r(x, 1) precedes B:r(x, 0) in process B's order; A:w(x, 1) has version 1, older than A:w(x, 2)'s version 2; " +
				"A:w(x, 2) comes before A:w(x, 1); so A:w(x, 1) would precede itself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Explain(h, tt.crit, tt.v); got != tt.want {
				t.Errorf("Explain:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestImplication checks the words for a verdict derived along the
// ladder, in both directions.
func TestImplication(t *testing.T) {
	for _, c := range []struct {
		criterion, by string
		v             checker.Verdict
		want          string
	}{
		{"causal", "sequential", checker.True, "follows from sequential = true: sequential implies causal; not checked on its own"},
		{"sequential", "pram", checker.False, "follows from pram = false: sequential implies pram; not checked on its own"},
	} {
		if got := Implication(c.criterion, c.by, c.v); got != c.want {
			t.Errorf("%s by %s: %q, want %q", c.criterion, c.by, got, c.want)
		}
	}
}
