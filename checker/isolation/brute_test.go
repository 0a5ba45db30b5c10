package isolation_test

import (
	"context"
	"flag"
	"math/rand"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/isolation"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/isoref"
	"github.com/histcheck/histcheck/report"
)

// The full comparison, 10,000 histories, takes about ten minutes on two
// cores: run it with -isolation.brute 10000 before changing a level.
var bruteCount = flag.Int("isolation.brute", 0, "random histories to compare with the brute force (0: 2,000, or 300 with -short)")

// describe writes a history's transactions, one a line.
func describe(h *history.History) string {
	var sb strings.Builder
	for i, op := range h.Ops {
		sb.WriteString(op.Label())
		sb.WriteString(" ")
		sb.WriteString(op.Status.String())
		sb.WriteString(" ")
		sb.WriteString(op.Value.String())
		if i < len(h.Ops)-1 {
			sb.WriteString("\n")
		}
	}
	return sb.String()
}

// TestAgreesWithBruteForce compares every level with the brute force of
// package isoref on random histories with aborted writes, transactions
// of unknown outcome, repeated reads and several keys, re-checks every
// commit order given with Verify, and checks every implication between
// the levels on the brute force's verdicts.
func TestAgreesWithBruteForce(t *testing.T) {
	n := *bruteCount
	if n == 0 {
		n = 2_000
		if testing.Short() {
			n = 300
		}
	}
	rng := rand.New(rand.NewSource(34))
	tally := map[string][2]int{}
	separated := map[[2]string]int{}
	for i := 0; i < n; i++ {
		h := isoref.Random(rng)
		ref := compareWithReference(t, i, h)
		for level, holds := range ref {
			k := tally[level]
			if holds {
				k[0]++
			} else {
				k[1]++
			}
			tally[level] = k
		}
		for strong, weaks := range isolation.Implies {
			for _, weak := range weaks {
				if ref[strong] && !ref[weak] {
					t.Fatalf("history %d: %s holds but %s does not\n%s", i, strong, weak, describe(h))
				}
			}
		}
		for _, d := range distinctions {
			if ref[d[0]] && !ref[d[1]] {
				separated[d]++
			}
		}
		if ref[isolation.Serializable] && !ref[isolation.SnapshotIsolation] {
			t.Fatalf("history %d: serializable but not snapshot isolation\n%s", i, describe(h))
		}
	}
	for _, level := range isoref.Levels {
		k := tally[level]
		t.Logf("%-28s %5d true %5d false", level, k[0], k[1])
		if k[0] < n/50 || k[1] < n/50 {
			t.Errorf("%s: the random histories are unbalanced (%d true, %d false)", level, k[0], k[1])
		}
	}
	// The non-implications: each pair is separated by some history, so
	// that the agreement covers what tells the levels apart.
	for _, d := range distinctions {
		t.Logf("%s but not %s: %d histories", d[0], d[1], separated[d])
		if separated[d] == 0 && n >= 2000 {
			t.Errorf("no random history satisfies %s but not %s", d[0], d[1])
		}
	}
}

// compareWithReference decides every level on history i with the checker
// (its commit orders verified) and the brute force, fails on a
// difference, and returns the brute force's verdicts.
func compareWithReference(t *testing.T, i int, h *history.History) map[string]bool {
	t.Helper()
	ref := map[string]bool{}
	for _, level := range isoref.Levels {
		want, err := isoref.Decide(h, level, history.NilValue)
		if err != nil {
			t.Fatal(err)
		}
		ref[level] = want
		res, err := isolation.Check(context.Background(), h, level, isolation.Options{Verify: true})
		if err != nil {
			t.Fatalf("history %d, %s: %v\n%s", i, level, err, describe(h))
		}
		if got := res.Valid == checker.True; res.Valid == checker.Unknown || got != want {
			t.Fatalf("history %d, %s: checker says %s (%s), brute force %v\n%s\n%+v", i, level, res.Valid, res.Reason, want, describe(h), res.Violations)
		}
		if !want && len(res.Witness) > 0 {
			t.Fatalf("history %d, %s: false with a witness %v\n%s", i, level, res.Witness, describe(h))
		}
		if !want && (len(res.Violations) == 0 || res.Violations[0].Isolation == nil || res.Violations[0].Pattern == "" ||
			report.Explain(h, level, res.Violations[0]) == "") {
			t.Fatalf("history %d, %s: false without a violation's facts and words", i, level)
		}
		if !want {
			if err := violatesAlone(h, level, res); err != nil {
				t.Fatalf("history %d, %s: %v\n%s", i, level, err, describe(h))
			}
		}
	}
	return ref
}

// distinctions are pairs (A, B) with A ⇏ B.
var distinctions = [][2]string{
	{isolation.ReadCommitted, isolation.ReadAtomic},
	{isolation.ReadAtomic, isolation.Causal},
	{isolation.Causal, isolation.Prefix},
	{isolation.Causal, isolation.ParallelSnapshot},
	{isolation.Prefix, isolation.ParallelSnapshot},
	{isolation.ParallelSnapshot, isolation.Prefix},
	{isolation.Prefix, isolation.SnapshotIsolation},
	{isolation.ParallelSnapshot, isolation.SnapshotIsolation},
	{isolation.SnapshotIsolation, isolation.Serializable},
}
