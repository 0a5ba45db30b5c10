package ladder_test

import (
	"context"
	"math/rand"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/session"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
)

const randomHistories = 6000

// fast runs the polynomial checker of criterion c.
func fast(t *testing.T, h *history.History, c string) checker.Verdict {
	t.Helper()
	var res checker.Result
	var err error
	switch c {
	case checker.Causal, checker.CausalMemory, checker.CausalConvergence:
		res, err = causal.Check(context.Background(), h, c, causal.Options{Init: history.IntValue(0)})
	default:
		res, err = session.Check(context.Background(), h, c, session.Options{Init: history.IntValue(0)})
	}
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	if res.Valid == checker.False && len(res.Violations) == 0 {
		t.Fatalf("%s: false without a violation", c)
	}
	for _, v := range res.Violations {
		if len(v.Ops) == 0 || report.Explain(h, c, v) == "" || v.Pattern == "" {
			t.Fatalf("%s: incomplete violation %+v", c, v)
		}
	}
	return res.Valid
}

// distinctions are pairs (A, B) with A ⇏ B.
var distinctions = [][2]string{
	{checker.Sequential, checker.Linearizable},
	{checker.Causal, checker.Sequential},
	{checker.Causal, checker.CausalMemory},
	{checker.Causal, checker.CausalConvergence},
	{checker.CausalMemory, checker.CausalConvergence},
	{checker.Causal, checker.MonotonicReads},
	{checker.Causal, checker.ReadYourWrites},
	{checker.CausalMemory, checker.ReadYourWrites},
	{checker.Causal, checker.PRAM},
	{checker.PRAM, checker.Causal},
	{checker.PRAM, checker.WritesFollowReads},
	{checker.PRAM, checker.ReadYourWrites},
	{checker.MonotonicReads, checker.ReadYourWrites},
	{checker.ReadYourWrites, checker.MonotonicReads},
	{checker.MonotonicWrites, checker.MonotonicReads},
	{checker.MonotonicWrites, checker.ReadYourWrites},
	{checker.MonotonicReads, checker.WritesFollowReads},
	{checker.WritesFollowReads, checker.MonotonicReads},
	{checker.ReadYourWrites, checker.WritesFollowReads},
	{checker.WritesFollowReads, checker.ReadYourWrites},
	{checker.MonotonicWrites, checker.WritesFollowReads},
	{sessionGuarantees, checker.PRAM},
}

// sessionGuarantees stands for the four session guarantees together.
const sessionGuarantees = "all four session guarantees"

var sessionOnly = map[string]bool{checker.PRAM: true, checker.ReadYourWrites: true, checker.MonotonicReads: true,
	checker.MonotonicWrites: true, checker.WritesFollowReads: true}

var fastCriteria = []string{checker.Causal, checker.CausalMemory, checker.CausalConvergence, checker.PRAM,
	checker.ReadYourWrites, checker.MonotonicReads, checker.MonotonicWrites, checker.WritesFollowReads}

// TestFastCheckersAgreeWithReference compares every polynomial checker with
// its brute-force reference on seeded random differentiated histories,
// session checks both with explicit versions and without, and checks that
// every implication edge of the ladder holds on each of them.
func TestFastCheckersAgreeWithReference(t *testing.T) {
	rng := rand.New(rand.NewSource(20240611))
	counts := map[string][2]int{}
	separated := map[[2]string]int{}
	for i := 0; i < randomHistories; i++ {
		sh := gen(rng)
		register := sh.keys == 1 && i%2 == 0
		for _, versioned := range []bool{false, true} {
			ref := sh.reference(versioned)
			ref[sessionGuarantees] = ref[checker.ReadYourWrites] && ref[checker.MonotonicReads] &&
				ref[checker.MonotonicWrites] && ref[checker.WritesFollowReads]
			h := sh.history(versioned, register)
			for _, c := range fastCriteria {
				if versioned && (c == checker.Causal || c == checker.CausalMemory || c == checker.CausalConvergence) {
					continue
				}
				got := fast(t, h, c)
				want := checker.False
				if ref[c] {
					want = checker.True
				}
				if got != want {
					t.Fatalf("history %d (versions %v), %s: fast checker says %s, reference says %s\n%s", i, versioned, c, got, want, sh.String())
				}
				n := counts[c]
				if ref[c] {
					n[0]++
				} else {
					n[1]++
				}
				counts[c] = n
			}
			if !versioned {
				for _, d := range distinctions {
					if ref[d[0]] && !ref[d[1]] {
						separated[d]++
					}
				}
			}
			for _, e := range ladder.Implies() {
				if versioned && !sessionOnly[e.Strong] {
					continue // these references read no versions (versions_test.go has those that do)
				}
				if ref[e.Strong] && !ref[e.Weak] {
					t.Fatalf("history %d (versions %v): %s holds but %s does not, against the ladder\n%s", i, versioned, e.Strong, e.Weak, sh.String())
				}
			}
		}
	}
	for _, c := range fastCriteria {
		n := counts[c]
		_ = n
		t.Logf("%-20s %5d true %5d false", c, n[0], n[1])
		if n[0] < 200 || n[1] < 200 {
			t.Errorf("%s: the random histories are unbalanced (%d true, %d false)", c, n[0], n[1])
		}
	}
	// The non-edges: each pair is separated by some random history, so the
	// agreement above covers the differences between the criteria.
	for _, d := range distinctions {
		t.Logf("%s but not %s: %d histories", d[0], d[1], separated[d])
		if separated[d] == 0 {
			t.Errorf("no random history satisfies %s but violates %s", d[0], d[1])
		}
	}
}
