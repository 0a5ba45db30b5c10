package report

import (
	"bytes"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// TestTextOnlyWritesTheSameText checks that a report built for text only
// reads as the full report, for witnesses shorter than, as long as and
// longer than the text shows, positions out of range included, and that
// it builds only the steps shown.
func TestTextOnlyWritesTheSameText(t *testing.T) {
	var ops []history.Op
	for i := 0; i < 3*MaxWitnessSteps; i++ {
		ops = append(ops, history.Op{Client: "c", F: "write", Value: history.IntValue(int64(i)),
			Call: int64(2 * i), Return: int64(2*i + 1), Status: history.OK})
	}
	h := &history.History{Ops: ops}
	for _, n := range []int{1, MaxWitnessSteps, MaxWitnessSteps + 1, 3 * MaxWitnessSteps} {
		w := make([]int, 0, n+2)
		for i := 0; i < n; i++ {
			w = append(w, i)
			if i == MaxWitnessSteps-1 {
				w = append(w, -1, len(ops)) // skipped, as NewResult skips them
			}
		}
		out := check.Outcome{Results: []check.Result{{Result: checker.Result{Criterion: checker.Linearizable, Valid: checker.True, Witness: w}}}}
		full, brief := NewHistoryOf("h", h, out), NewHistoryOf("h", h, out, TextOnly(true))
		var a, b bytes.Buffer
		if err := WriteText(&a, &Report{Histories: []History{full}}, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := WriteText(&b, &Report{Histories: []History{brief}}, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("witness of %d: text only reads\n%s\nwant\n%s", n, b.String(), a.String())
		}
		if got := len(brief.Results[0].Witness); got != min(n, MaxWitnessSteps) {
			t.Errorf("witness of %d: %d steps built, want %d", n, got, min(n, MaxWitnessSteps))
		}
	}
}
