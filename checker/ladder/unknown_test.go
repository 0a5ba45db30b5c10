package ladder_test

import (
	"path/filepath"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/weakref"
)

// unknownOutcome lists, per history with writes of unknown outcome, the weak
// criteria it violates (all other weak criteria hold).
var unknownOutcome = map[string][]string{
	"unknown-outcome-own-later-write.txt":  {"causal-memory", "causal-convergence", "causal", "pram", "writes-follow-reads"},
	"unknown-outcome-sequential.txt":       nil,
	"unknown-outcome-pram.txt":             nil,
	"unknown-outcome-read-later-write.txt": {"causal-memory", "causal-convergence", "causal", "pram", "writes-follow-reads"},
	"unknown-outcome-observed.txt":         {"causal-memory", "causal-convergence", "causal", "pram", "monotonic-reads"},
}

// TestUnknownOutcomeHistories checks the weak criteria on the histories with
// writes of unknown outcome: the brute force and the checkers give the
// expected verdicts, and the ladder over the checkers' verdicts has no
// contradiction.
func TestUnknownOutcomeHistories(t *testing.T) {
	files, err := filepath.Glob("../../testdata/histories/weak/unknown-outcome-*.txt")
	if err != nil || len(files) != len(unknownOutcome) {
		t.Fatalf("want %d histories, found %d (%v)", len(unknownOutcome), len(files), err)
	}
	init := history.IntValue(0)
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			h, err := format.ReadFile(f, "")
			if err != nil {
				t.Fatal(err)
			}
			violated := map[string]bool{}
			for _, c := range unknownOutcome[name] {
				violated[c] = true
			}
			results := map[string]checker.Result{}
			for _, c := range weakref.Criteria {
				want := !violated[c]
				ref, err := weakref.Decide(h, init, c)
				if err != nil || ref != want {
					t.Errorf("%s: brute force says %v (%v), expected %v", c, ref, err, want)
				}
				res, err := engine(h, init, c)
				if err != nil {
					t.Fatalf("%s: %v", c, err)
				}
				if res.Valid != verdict(want) {
					t.Errorf("%s: checker says %s (%s), expected %v", c, res.Valid, res.Reason, want)
				}
				results[c] = res
			}
			for _, r := range ladder.Build(results).Table {
				if r.Note != "" {
					t.Errorf("ladder: %s: %s", r.Criterion, r.Note)
				}
			}
		})
	}
}
