package jepsen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
)

func quantiles(qs []checker.Quantile) string {
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = fmt.Sprintf("%g:%d", q.Point, q.MS)
	}
	return strings.Join(parts, " ")
}

// setFullWant is what a set-full check is expected to find.
type setFullWant struct {
	valid                          checker.Verdict
	stable, lost, neverRead, stale string
	stableLatencies, lostLatencies string
}

func checkSetFull(t *testing.T, res checker.Result, want setFullWant) {
	t.Helper()
	s := res.Jepsen.SetFull
	got := setFullWant{res.Valid, vals(s.Stable), vals(s.Lost), vals(s.NeverRead), vals(s.Stale),
		quantiles(s.StableLatencies), quantiles(s.LostLatencies)}
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if s.Attempts != len(s.Stable)+len(s.Lost)+len(s.NeverRead) {
		t.Errorf("%d attempts, but %d outcomes", s.Attempts, len(s.Stable)+len(s.Lost)+len(s.NeverRead))
	}
}

// TestSetFull holds the cases of Jepsen's set-full-test, and a few more.
func TestSetFull(t *testing.T) {
	const (
		a, a1   = "0 invoke add 0", "0 ok add 0"
		r       = "1 invoke read"
		rp, rm  = "1 ok read #{0}", "1 ok read #{}"
		zeros   = "0:0 0.5:0 0.95:0 0.99:0 1:0"
		unknown = checker.Unknown
	)
	never := setFullWant{valid: unknown, neverRead: "0"}
	stable := setFullWant{valid: checker.True, stable: "0", stableLatencies: zeros}
	tests := []struct {
		name   string
		events []string
		want   setFullWant
	}{
		{"never read", []string{a, a1}, never},
		{"never confirmed, never read", []string{a, r, rm}, never},
		{"concurrent read before", []string{r, a, rp, a1}, stable},
		{"concurrent read outside", []string{r, a, a1, rp}, stable},
		{"concurrent read inside", []string{a, r, rp, a1}, stable},
		{"concurrent read after", []string{a, r, a1, rp}, stable},
		{"subsequent read", []string{a, a1, r, rp}, stable},
		{"absent read after", []string{a, a1, r, rm}, setFullWant{valid: checker.False, lost: "0", lostLatencies: zeros}},
		{"absent read before", []string{r, a, rm, a1}, never},
		{"absent read outside", []string{r, a, a1, rm}, never},
		{"absent read inside", []string{a, r, rm, a1}, never},
		{"absent read concurrently after", []string{a, r, a1, rm}, never},
		{"write, present, missing", []string{"0 invoke add 0", "1 invoke add 1", "2 invoke read", "2 ok read #{1}",
			"0 ok add 0", "1 ok add 1", "2 invoke read", "2 ok read #{0 1}", "2 invoke read", "2 ok read #{0}",
			"2 invoke read", "2 ok read #{}"},
			setFullWant{valid: checker.False, lost: "0 1", lostLatencies: "0:3 0.5:4 0.95:4 0.99:4 1:4"}},
		{"write, flutter, stable/lost", []string{"0 invoke add 0", "0 ok add 0", "1 invoke add 1", "2 invoke read",
			"2 ok read #{1}", "1 ok add 1", "2 invoke read", "3 invoke read", "3 ok read #{1}", "2 ok read #{0}"},
			setFullWant{valid: checker.False, stable: "1", lost: "0", stale: "1",
				stableLatencies: "0:2 0.5:2 0.95:2 0.99:2 1:2", lostLatencies: "0:5 0.5:5 0.95:5 0.99:5 1:5"}},
		{"a read that completed before the add began does not count", []string{r, rm, a, a1}, never},
		{"adding again starts the element afresh", []string{a, a1, r, rm, a, a1, r, rp},
			setFullWant{valid: checker.True, stable: "0", stableLatencies: zeros}},
		{"stale but stable", []string{a, a1, r, rm, r, rp},
			setFullWant{valid: checker.True, stable: "0", stale: "0", stableLatencies: "0:1 0.5:1 0.95:1 0.99:1 1:1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkSetFull(t, run(t, jepsen.SetFull, edn(t, tt.events...), nil), tt.want)
		})
	}
}

// TestSetFullWorstStale checks the stalest element's timeline, as in
// Jepsen's flutter case: known by the read that saw it before its add
// completed, missed by a read begun two milliseconds later.
func TestSetFullWorstStale(t *testing.T) {
	h := edn(t, "0 invoke add 0", "0 ok add 0", "1 invoke add 1", "2 invoke read",
		"2 ok read #{1}", "1 ok add 1", "2 invoke read", "3 invoke read", "3 ok read #{1}", "2 ok read #{0}")
	s := run(t, jepsen.SetFull, h, nil).Jepsen.SetFull
	if len(s.WorstStale) != 1 {
		t.Fatalf("worst stale %+v", s.WorstStale)
	}
	w := s.WorstStale[0]
	if w.Element.String() != "1" || w.Outcome != checker.Stable || w.StableLatency != 2 || w.LostLatency != -1 {
		t.Errorf("worst stale %+v", w)
	}
	// Known from the first read (invoked at event 3), missed last by the
	// read invoked at event 6, seen last by the read invoked at event 7.
	if h.Ops[w.Known].Call != 3 || h.Ops[w.LastAbsent].Call != 6 || h.Ops[w.LastPresent].Call != 7 {
		t.Errorf("known %d, last absent %d, last present %d", h.Ops[w.Known].Call, h.Ops[w.LastAbsent].Call, h.Ops[w.LastPresent].Call)
	}
}

// TestSetFullOptions: with linearizable=true stale elements fail; a read
// that returns an element twice fails.
func TestSetFullOptions(t *testing.T) {
	stale := edn(t, "0 invoke add 0", "0 ok add 0", "1 invoke read", "1 ok read #{}", "1 invoke read", "1 ok read #{0}")
	res := run(t, jepsen.SetFull, stale, map[string]string{"linearizable": "true"})
	if res.Valid != checker.False || len(res.Violations) != 1 || res.Violations[0].Pattern != "set-full-stale" {
		t.Errorf("linearizable: got %v %+v", res.Valid, res.Violations)
	}
	dup := edn(t, "0 invoke add 0", "0 ok add 0", "1 invoke read", "1 ok read [0 0 0]")
	res = run(t, jepsen.SetFull, dup, nil)
	d := res.Jepsen.SetFull.Duplicated
	if res.Valid != checker.False || len(d) != 1 || d[0].Element.String() != "0" || d[0].Count != 3 {
		t.Errorf("duplicates: got %v %+v", res.Valid, d)
	}
}
