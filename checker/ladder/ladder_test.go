package ladder_test

import (
	"fmt"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/ladder"
)

func results(vs map[string]checker.Verdict) map[string]checker.Result {
	out := map[string]checker.Result{}
	for c, v := range vs {
		out[c] = checker.Result{Criterion: c, Valid: v}
	}
	return out
}

func TestBuild(t *testing.T) {
	T, F, U := checker.True, checker.False, checker.Unknown
	tests := []struct {
		name      string
		in        map[string]checker.Verdict
		want      map[string]checker.Verdict // expected verdicts after propagation
		derived   map[string]string          // criterion → derived from
		strongest string
		weakest   string
	}{
		{"a pass flows down", map[string]checker.Verdict{"linearizable": T},
			map[string]checker.Verdict{"sequential": T, "causal": T, "pram": T, "read-your-writes": T, "writes-follow-reads": T},
			map[string]string{"sequential": "linearizable"}, "[linearizable]", "[]"},
		{"a failure flows up", map[string]checker.Verdict{"read-your-writes": F},
			map[string]checker.Verdict{"causal-convergence": F, "sequential": F, "linearizable": F, "pram": U, "causal": U, "causal-memory": U},
			map[string]string{"causal-convergence": "read-your-writes"}, "[]", "[read-your-writes]"},
		{"unknown filled, computed kept", map[string]checker.Verdict{"sequential": U, "causal-memory": T, "causal-convergence": F, "pram": T, "monotonic-reads": T},
			map[string]checker.Verdict{"sequential": F, "causal": T, "linearizable": F, "writes-follow-reads": T},
			map[string]string{"sequential": "causal-convergence"}, "[causal-memory monotonic-reads]", "[causal-convergence]"},
		{"contradiction noted", map[string]checker.Verdict{"pram": T, "monotonic-writes": F},
			map[string]checker.Verdict{"pram": T, "monotonic-writes": F}, nil, "[pram]", "[monotonic-writes]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := ladder.Build(results(tc.in))
			rows := map[string]ladder.Row{}
			for _, r := range l.Table {
				rows[r.Criterion] = r
			}
			for c, v := range tc.want {
				if rows[c].Valid != v {
					t.Errorf("%s: got %s, want %s", c, rows[c].Valid, v)
				}
			}
			for c, from := range tc.derived {
				if rows[c].DerivedFrom != from || rows[c].Computed {
					t.Errorf("%s: derived from %q (computed %v), want %q", c, rows[c].DerivedFrom, rows[c].Computed, from)
				}
			}
			for c, v := range tc.in {
				if v != checker.Unknown && (!rows[c].Computed || rows[c].Valid != v) {
					t.Errorf("%s: computed verdict %s changed to %s", c, v, rows[c].Valid)
				}
			}
			if got := fmt.Sprint(l.Strongest); got != tc.strongest && tc.strongest != "" {
				t.Errorf("strongest %s, want %s", got, tc.strongest)
			}
			if got := fmt.Sprint(l.Weakest); got != tc.weakest {
				t.Errorf("weakest %s, want %s", got, tc.weakest)
			}
			if tc.name == "contradiction noted" && rows["monotonic-writes"].Note == "" {
				t.Error("contradiction not noted")
			}
		})
	}
}

// TestImpliesIsAcyclic guards the edge list: an implication cycle would make
// distinct criteria equivalent.
func TestImpliesIsAcyclic(t *testing.T) {
	next := map[string][]string{}
	for _, e := range ladder.Implies() {
		next[e.Strong] = append(next[e.Strong], e.Weak)
	}
	var visit func(c string, path map[string]bool)
	visit = func(c string, path map[string]bool) {
		if path[c] {
			t.Fatalf("implication cycle through %s", c)
		}
		path[c] = true
		for _, w := range next[c] {
			visit(w, path)
		}
		delete(path, c)
	}
	for _, c := range checker.AllCriteria {
		visit(c, map[string]bool{})
	}
}

// TestBuildAnyLeavesOutMemoryOnly checks that BuildAny propagates along
// every edge but those marked memory-only, and Build along all of them.
func TestBuildAnyLeavesOutMemoryOnly(t *testing.T) {
	var memoryOnly int
	for _, e := range ladder.Implies() {
		res := map[string]checker.Result{e.Strong: {Criterion: e.Strong, Valid: checker.True}}
		want := checker.True
		if e.MemoryOnly {
			memoryOnly++
			want = checker.Unknown
		}
		if got := rowOf(ladder.BuildAny(res), e.Weak); got != want {
			t.Errorf("BuildAny: %s holds, %s is %v, want %v", e.Strong, e.Weak, got, want)
		}
		if got := rowOf(ladder.Build(res), e.Weak); got != checker.True {
			t.Errorf("Build: %s holds, %s is %v", e.Strong, e.Weak, got)
		}
	}
	if memoryOnly != 2 {
		t.Errorf("%d memory-only edges, want 2 (causal ⇒ writes-follow-reads, PRAM ⇒ monotonic-writes)", memoryOnly)
	}
}

func rowOf(l ladder.Ladder, c string) checker.Verdict {
	for _, r := range l.Table {
		if r.Criterion == c {
			return r.Valid
		}
	}
	return checker.Unknown
}
