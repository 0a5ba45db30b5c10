package report

import "testing"

// TestElideNamed: a long list keeps every label the story names, wherever
// it falls, and elides others past the limit.
func TestElideNamed(t *testing.T) {
	ls := []string{"A:w(1)", "A:w(2)", "A:w(3)", "A:w(4)", "B:r(4)"}
	tests := []struct {
		story, want string
	}{
		{"", "A:w(1), A:w(2), … (3 more)"},
		{"B:r(4) read 4", "A:w(1), B:r(4), … (3 more)"},
		{"A:w(3) and B:r(4)", "A:w(3), B:r(4), … (3 more)"},
	}
	for _, tt := range tests {
		if got := elideNamed(ls, ls, tt.story, 2, ", "); got != tt.want {
			t.Errorf("story %q: %q, want %q", tt.story, got, tt.want)
		}
	}
	if got := elideNamed(ls[:2], ls[:2], "", 2, ", "); got != "A:w(1), A:w(2)" {
		t.Errorf("short list: %q", got)
	}
}
