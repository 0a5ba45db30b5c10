package check

import (
	"testing"

	"github.com/histcheck/histcheck/checker"
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
