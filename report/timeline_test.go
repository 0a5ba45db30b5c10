package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/histcheck/histcheck/history"
)

// TestTimelineLanes: lanes are named as labels name processes (quoted when
// the name does not print), and bars line up in columns whatever bytes the
// names take.
func TestTimelineLanes(t *testing.T) {
	h, err := history.FromOps([]history.Op{
		storyOp("élan", "write", history.IntValue(1), 0, 10),
		storyOp("bob", "read", history.IntValue(1), 0, 10),
		storyOp("x\ny", "read", history.IntValue(1), 0, 10),
	})
	if err != nil {
		t.Fatal(err)
	}
	tl := Timeline(h, []int{0, 1, 2})
	lines := strings.Split(strings.TrimSuffix(tl, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want three lanes:\n%s", tl)
	}
	col := -1
	for i, l := range lines {
		bar := strings.IndexByte(l, '|')
		if bar < 0 {
			t.Fatalf("lane without a bar: %q", l)
		}
		c := utf8.RuneCountInString(l[:bar])
		if col >= 0 && c != col {
			t.Errorf("lane %d's bar starts at column %d, the first's at %d:\n%s", i, c, col, tl)
		}
		col = c
	}
	if !strings.HasPrefix(lines[2], `"x\ny" `) {
		t.Errorf("a name with a newline is not quoted:\n%s", tl)
	}
}
