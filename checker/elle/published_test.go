package elle_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// readHistory reads a history from EDN text.
func readHistory(t *testing.T, name string, src string) *history.History {
	t.Helper()
	r, err := format.ReadResult(name, strings.NewReader(src), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r.History
}

// TestSIWithoutGSingle reads Elle's si-without-g-single history: its only
// cycles under snapshot isolation's rules have two adjacent rw edges, so
// snapshot isolation holds, while repeatable read, which rules out every
// rw cycle on single keys, is broken by a G2-item.
func TestSIWithoutGSingle(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "histories", "txn", "si-without-g-single.edn")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := readHistory(t, path, string(src))
	a := analyze(t, h, elle.ListAppend)
	if res := verdict(t, a, h, si); res.Valid != checker.True {
		t.Errorf("snapshot-isolation: %v %+v", res.Valid, res.Violations)
	}
	res := verdict(t, a, h, rr)
	if res.Valid != checker.False {
		t.Fatalf("repeatable-read: %v, want false", res.Valid)
	}
	var patterns []string
	for _, v := range res.Violations {
		patterns = append(patterns, v.Pattern)
	}
	if !slices.Equal(patterns, []string{"G2-item"}) {
		t.Errorf("repeatable-read violations %v, want [G2-item]", patterns)
	}
	for _, l := range []string{rc, ru, "monotonic-atomic-view"} {
		if res := verdict(t, a, h, l); res.Valid != checker.True {
			t.Errorf("%s: %v, want true", l, res.Valid)
		}
	}
	if res := verdict(t, a, h, ser); res.Valid != checker.False {
		t.Errorf("serializable: %v, want false", res.Valid)
	}
}

// sccRing builds Elle's "unfindable G-single" history, the shape of its
// huge-scc case: a ring of n transactions chained by appends to one key,
// whose last fails to see the first's append to another (one G-single
// cycle through all n), drowned in noise chains of appends that close
// G2 cycles through the ring, so that the whole history is one huge
// strongly connected component.
func sccRing(n, noise int) string {
	var b strings.Builder
	idx := 0
	op := func(process int, mops string) {
		for _, typ := range []string{"invoke", "ok"} {
			fmt.Fprintf(&b, "{:index %d, :type :%s, :process %d, :f :txn, :value [%s]}\n", idx, typ, process, mops)
			idx++
		}
	}
	for i := 0; i < n; i++ {
		switch i {
		case 0:
			op(0, fmt.Sprintf("[:append :ring %d] [:append :anti 0]", i))
		case n - 1:
			op(0, fmt.Sprintf("[:append :ring %d] [:r :anti nil]", i))
		default:
			op(0, fmt.Sprintf("[:append :ring %d] [:append %d 0]", i, i))
		}
	}
	ring := make([]string, n)
	for i := range ring {
		ring[i] = fmt.Sprint(i)
	}
	op(1, "[:r :ring ["+strings.Join(ring, " ")+"]]")
	for i := 1; i < n-1; i++ {
		for j := 1; j < noise; j++ {
			switch j {
			case noise - 2:
				read := make([]string, noise-1)
				for k := range read {
					read[k] = fmt.Sprint(k)
				}
				op(2, fmt.Sprintf("[:r %d [%s]] [:r :anti%d nil]", i, strings.Join(read[:noise-2], " "), i))
			case noise - 1:
				op(2, fmt.Sprintf("[:append :anti%d 0] [:r :ring nil]", i))
			default:
				op(2, fmt.Sprintf("[:append %d %d]", i, j))
			}
		}
	}
	return b.String()
}

// TestHugeSCC ports Elle's test of a single G-single cycle in a sea of
// spurious G2-item cycles (the case its huge-scc history stands for): the
// history is decided, not snapshot-isolated nor strict-serializable,
// whether or not the smallest cycle is found within the budget.
func TestHugeSCC(t *testing.T) {
	n, noise := 1000, 30
	if testing.Short() {
		n, noise = 200, 10
	}
	h := readHistory(t, "huge-scc.edn", sccRing(n, noise))
	a := analyze(t, h, elle.ListAppend)
	for _, l := range []string{si, rr, ss} {
		if res := verdict(t, a, h, l); res.Valid != checker.False {
			t.Errorf("%s: %v, want false (%s)", l, res.Valid, res.Reason)
		}
	}
	if res := verdict(t, a, h, rc); res.Valid != checker.True {
		t.Errorf("read-committed: %v, want true", res.Valid)
	}
}

// TestHugeSCCOutOfBudget gives the cycle search far too small a budget:
// the strongly connected components still prove that cycles of the
// classes snapshot isolation and strict serializability rule out exist.
func TestHugeSCCOutOfBudget(t *testing.T) {
	h := readHistory(t, "huge-scc.edn", sccRing(200, 10))
	a, err := elle.Analyze(context.Background(), h, elle.ListAppend, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{si, ss} {
		res := verdict(t, a, h, l)
		if res.Valid != checker.False {
			t.Errorf("%s: %v, want false (%s)", l, res.Valid, res.Reason)
		}
		t.Logf("%s: %s %v", l, res.Reason, res.Violations[0].Pattern)
	}
}

// TestResultAnomalies asks for anomalies by name: an anomaly is reported
// when it is one of them or an instance of one.
func TestResultAnomalies(t *testing.T) {
	h := concurrent(t, false, "ax1ay1", "ax2ay2", "rx12ry21")
	a := analyze(t, h, elle.ListAppend)
	for _, c := range []struct {
		ask   []string
		valid checker.Verdict
	}{
		{[]string{"G0"}, checker.False},
		{[]string{"G1c"}, checker.False}, // a G0 is a G1c
		{[]string{"G1"}, checker.False},
		{[]string{"G2-item", "G1a"}, checker.True}, // a G0 is no instance of either
		{[]string{"G1a", "lost-update"}, checker.True},
	} {
		res, err := a.ResultAnomalies(h, c.ask)
		if err != nil {
			t.Fatal(err)
		}
		if res.Criterion != elle.AnomaliesCriterion {
			t.Errorf("criterion %q", res.Criterion)
		}
		if res.Valid != c.valid {
			t.Errorf("%v: %v, want %v", c.ask, res.Valid, c.valid)
		}
	}
	if _, err := a.ResultAnomalies(h, []string{"G3"}); err == nil || !strings.Contains(err.Error(), "accepted") {
		t.Errorf("G3: %v", err)
	}
}
