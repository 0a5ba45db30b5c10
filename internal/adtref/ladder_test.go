package adtref

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// decidedEdges are the ladder's edges between criteria Decide knows.
func decidedEdges() []ladder.Edge {
	var out []ladder.Edge
	for _, e := range ladder.Implies() {
		if e.Strong != checker.Linearizable {
			out = append(out, e)
		}
	}
	return out
}

// verdicts decides every criterion on h.
func verdicts(t *testing.T, name string, opts model.Options, h *history.History) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, c := range Criteria {
		ok, err := DecideNamed(name, opts, h, c)
		if err != nil {
			t.Fatalf("%s %s: %v on %s", name, c, err, show(h))
		}
		out[c] = ok
	}
	return out
}

// edgeHistories sets how many random histories TestLadderEdges draws per
// model (0: 400, or 80 with -short).
var edgeHistories = flag.Int("adtref.edges", 0, "random histories per model for TestLadderEdges")

// TestLadderEdges checks each edge of the ladder on random histories of
// every model with weak criteria: an edge holds on every one, but an edge
// the ladder marks memory-only (ladder.Edge.MemoryOnly), which must hold
// on the read/write-register histories only. It logs, per model, the
// smallest history that breaks each memory-only edge.
func TestLadderEdges(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 80
	}
	if *edgeHistories > 0 {
		n = *edgeHistories
	}
	for _, name := range WeakModels {
		r := rand.New(rand.NewPCG(24, uint64(len(name))))
		broken := map[ladder.Edge]string{}
		count := map[ladder.Edge]int{}
		for range n {
			h, opts, err := Generate(r, name)
			if err != nil {
				t.Fatal(err)
			}
			v := verdicts(t, name, opts, h)
			memory := MemoryHistory(name, h)
			for _, e := range decidedEdges() {
				if !v[e.Strong] || v[e.Weak] {
					continue
				}
				s := fmt.Sprintf("%s (init %s, nil any %v)", show(h), opts.Init, opts.NilRead == model.NilIsAny)
				if !e.MemoryOnly || memory {
					t.Errorf("%s: %s ⇒ %s fails: %s", name, e.Strong, e.Weak, s)
				}
				count[e]++
				if old, ok := broken[e]; !ok || len(s) < len(old) {
					broken[e] = s
				}
			}
		}
		t.Logf("%s: %d histories", name, n)
		for _, e := range decidedEdges() {
			if s, ok := broken[e]; ok {
				t.Logf("%s: %s ⇒ %s fails on %d, as it may (memory only), the smallest: %s", name, e.Strong, e.Weak, count[e], s)
			}
		}
	}
}
