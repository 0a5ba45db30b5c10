package ladder_test

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/session"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/weakref"
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

var fastCriteria = []string{checker.Causal, checker.CausalMemory, checker.CausalConvergence, checker.PRAM,
	checker.ReadYourWrites, checker.MonotonicReads, checker.MonotonicWrites, checker.WritesFollowReads}

// reference returns the verdict of the brute force of package weakref on
// every criterion, with initial value 0; it reads versions when h carries
// them.
func reference(t *testing.T, h *history.History, what string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, c := range checker.AllCriteria {
		holds, err := weakref.Decide(h, history.IntValue(0), c)
		if err != nil {
			t.Fatalf("%s, %s: brute force: %v\n%s", what, c, err, describe(h))
		}
		out[c] = holds
	}
	out[sessionGuarantees] = out[checker.ReadYourWrites] && out[checker.MonotonicReads] &&
		out[checker.MonotonicWrites] && out[checker.WritesFollowReads]
	return out
}

// tally counts, per criterion, the random histories that satisfy it and
// those that violate it.
type tally map[string][2]int

func (tl tally) add(c string, holds bool) {
	k := tl[c]
	if holds {
		k[0]++
	} else {
		k[1]++
	}
	tl[c] = k
}

// balanced logs the counts of criteria and fails the test for a criterion
// that fewer than least histories satisfy or violate: the agreement would
// then say little.
func (tl tally) balanced(t *testing.T, criteria []string, least int) {
	t.Helper()
	for _, c := range criteria {
		k := tl[c]
		t.Logf("%-20s %5d true %5d false", c, k[0], k[1])
		if k[0] < least || k[1] < least {
			t.Errorf("%s: the random histories are unbalanced (%d true, %d false)", c, k[0], k[1])
		}
	}
}

// agreesWithLadder fails the test when the brute force's verdicts ref
// break an implication edge of the ladder.
func agreesWithLadder(t *testing.T, ref map[string]bool, what string, h *history.History) {
	t.Helper()
	for _, e := range ladder.Implies() {
		if ref[e.Strong] && !ref[e.Weak] {
			t.Fatalf("%s: %s holds but %s does not, against the ladder\n%s", what, e.Strong, e.Weak, describe(h))
		}
	}
}

// TestFastCheckersAgreeWithReference compares every polynomial checker with
// the brute force of package weakref on seeded random differentiated
// histories, each both with explicit versions and without, and checks that
// every implication edge of the ladder holds on each of them.
func TestFastCheckersAgreeWithReference(t *testing.T) {
	rng := rand.New(rand.NewSource(20240611))
	counts := tally{}
	separated := map[[2]string]int{}
	for i := 0; i < randomHistories; i++ {
		sh := gen(rng)
		register := sh.keys == 1 && i%2 == 0
		for _, versioned := range []bool{false, true} {
			h := sh.history(versioned, register)
			what := fmt.Sprintf("history %d (versions %v)", i, versioned)
			ref := reference(t, h, what)
			for _, c := range fastCriteria {
				if got := fast(t, h, c); got != verdict(ref[c]) {
					t.Fatalf("%s, %s: fast checker says %s, reference says %v\n%s", what, c, got, ref[c], describe(h))
				}
				counts.add(c, ref[c])
			}
			if !versioned {
				for _, d := range distinctions {
					if ref[d[0]] && !ref[d[1]] {
						separated[d]++
					}
				}
			}
			agreesWithLadder(t, ref, what, h)
		}
	}
	counts.balanced(t, fastCriteria, 200)
	// The non-edges: each pair is separated by some random history, so the
	// agreement above covers the differences between the criteria.
	for _, d := range distinctions {
		t.Logf("%s but not %s: %d histories", d[0], d[1], separated[d])
		if separated[d] == 0 {
			t.Errorf("no random history satisfies %s but violates %s", d[0], d[1])
		}
	}
}
