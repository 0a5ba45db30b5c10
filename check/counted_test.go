package check

import (
	"context"
	"slices"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// A refutation by counting is not shrunk; any other violation is.
func TestCounted(t *testing.T) {
	count := checker.Violation{Pattern: "count", Count: &checker.Count{Upto: checker.None, Up: 2, Capacity: 1}}
	held := checker.Violation{Pattern: "owners-held", Ops: []int{0, 1}}
	search := checker.Violation{Pattern: "no-sequential-order"}
	tests := []struct {
		name string
		vs   []checker.Violation
		want bool
	}{
		{"count", []checker.Violation{count}, true},
		{"clients that end holding", []checker.Violation{held}, true},
		{"search", []checker.Violation{search}, false},
		{"count and search", []checker.Violation{count, search}, false},
	}
	for _, tc := range tests {
		if got := counted(checker.Result{Valid: checker.False, Violations: tc.vs}); got != tc.want {
			t.Errorf("%s: counted %t, want %t", tc.name, got, tc.want)
		}
	}
}

// A lock whose acquires and releases counting alone refutes gives that
// count as the reason of its linearizability violation, naming the
// acquires no release of their process follows, and has no core; a lock
// that only real time refutes keeps the search's violation and its core.
func TestCountInstead(t *testing.T) {
	acq := func(c string, call, ret int64) history.Op {
		return history.Op{Client: c, F: "acquire", Call: call, Return: ret, Status: history.OK}
	}
	rel := func(c string, call, ret int64) history.Op {
		return history.Op{Client: c, F: "release", Call: call, Return: ret, Status: history.OK}
	}
	tests := []struct {
		name    string
		ops     []history.Op
		pattern string
		core    bool
	}{
		{"two holders at the end", []history.Op{acq("A", 0, 1), acq("B", 2, 3), acq("C", 4, 5), rel("C", 6, 7)}, "count", false},
		{"held in real time only", []history.Op{acq("A", 0, 1), acq("B", 2, 3), rel("B", 4, 5)}, "", true},
	}
	for _, tt := range tests {
		h, err := history.FromOps(tt.ops)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Run(context.Background(), h, Request{Model: "mutex"})
		if err != nil {
			t.Fatal(err)
		}
		r := out.Results[0]
		if r.Valid != checker.False || len(r.Violations) != 1 {
			t.Fatalf("%s: %+v", tt.name, r.Result)
		}
		if got := r.Violations[0].Pattern; got != tt.pattern {
			t.Errorf("%s: pattern %q, want %q", tt.name, got, tt.pattern)
		}
		if (r.Core != nil) != tt.core {
			t.Errorf("%s: core %v, want one: %t", tt.name, r.Core, tt.core)
		}
		if tt.pattern == "count" && !slices.Equal(r.Violations[0].Ops, []int{0, 1}) {
			t.Errorf("%s: the count names %v, want the acquires of A and B", tt.name, r.Violations[0].Ops)
		}
	}
}
