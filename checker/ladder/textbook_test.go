package ladder_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/session"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
)

// textbook lists, per file, the criteria each history violates (all others
// hold). The README beside the files says the same.
var textbook = map[string][]string{
	"reply-before-question.txt":         {"linearizable", "sequential", "causal-memory", "causal-convergence", "causal"},
	"causal-not-sequential.txt":         {"linearizable", "sequential"},
	"causal-not-causal-memory.txt":      {"linearizable", "sequential", "causal-memory", "causal-convergence", "pram"},
	"causal-not-convergence.txt":        {"linearizable", "sequential", "causal-convergence", "read-your-writes"},
	"convergence-not-causal-memory.txt": {"linearizable", "sequential", "causal-memory", "pram"},
	"read-your-writes-violation.txt":    {"linearizable", "sequential", "causal-memory", "causal-convergence", "causal", "pram", "read-your-writes"},
	"monotonic-reads-violation.txt":     {"linearizable", "sequential", "causal-memory", "causal-convergence", "pram", "monotonic-reads"},
	"pram-keeps-session-guarantees.txt": {"linearizable", "sequential", "causal-memory", "causal-convergence", "causal", "pram"},
	"causal-not-pram.txt":               {"linearizable", "sequential", "causal-memory", "causal-convergence", "pram"},
	"load-buffering.txt":                {"linearizable", "sequential", "causal-memory", "causal-convergence", "causal", "writes-follow-reads"},
	"ryw-one-write-order.txt":           {"linearizable", "sequential", "causal-memory", "causal-convergence", "causal", "pram", "read-your-writes"},
	"monotonic-reads-not-writes.txt":    {"linearizable", "sequential", "causal-memory", "causal-convergence", "causal", "pram", "monotonic-reads"},
	"writes-follow-reads-cycle.txt":     {"linearizable", "sequential", "causal-memory", "causal-convergence", "causal", "writes-follow-reads"},
	"pram-not-monotonic-reads.txt":      {"linearizable", "sequential", "causal-convergence", "monotonic-reads"},
}

// TestTextbookHistories reads each textbook history and checks that the
// brute force, the fast checkers and the ladder give the expected verdicts.
func TestTextbookHistories(t *testing.T) {
	all, err := filepath.Glob("../../testdata/histories/weak/*.txt")
	var files []string
	for _, f := range all {
		if _, ok := unknownOutcome[filepath.Base(f)]; !ok {
			files = append(files, f)
		}
	}
	if err != nil || len(files) != len(textbook) {
		t.Fatalf("want %d textbook files, found %d (%v)", len(textbook), len(files), err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			h, err := format.ReadFile(f, "")
			if err != nil {
				t.Fatal(err)
			}
			violated := map[string]bool{}
			for _, c := range textbook[name] {
				violated[c] = true
			}
			ref := reference(t, h, name)
			results := map[string]checker.Result{}
			for _, c := range checker.AllCriteria {
				if ref[c] == violated[c] {
					t.Errorf("%s: brute force says %v, expected %v", c, ref[c], !violated[c])
				}
				var res checker.Result
				switch c {
				case checker.Linearizable, checker.Sequential:
					res = checker.Result{Criterion: c, Valid: verdict(ref[c])}
				case checker.Causal, checker.CausalMemory, checker.CausalConvergence:
					res, err = causal.Check(context.Background(), h, c, causal.Options{Init: history.IntValue(0)})
				default:
					res, err = session.Check(context.Background(), h, c, session.Options{Init: history.IntValue(0)})
				}
				if err != nil {
					t.Fatal(err)
				}
				if res.Valid != verdict(!violated[c]) {
					t.Errorf("%s: checker says %s, expected %v", c, res.Valid, !violated[c])
				}
				for _, v := range res.Violations {
					t.Logf("%s %s: %s", c, v.Pattern, report.Explain(h, c, v))
				}
				results[c] = res
			}
			l := ladder.Build(results)
			for _, c := range l.Strongest {
				if violated[c] {
					t.Errorf("ladder lists %s as satisfied", c)
				}
			}
			for _, c := range l.Weakest {
				if !violated[c] {
					t.Errorf("ladder lists %s as violated", c)
				}
			}
			if len(l.Weakest) == 0 {
				t.Errorf("ladder lists no violated criterion")
			}
			t.Logf("strongest %v, weakest %v", l.Strongest, l.Weakest)
		})
	}
}

func verdict(b bool) checker.Verdict {
	if b {
		return checker.True
	}
	return checker.False
}
