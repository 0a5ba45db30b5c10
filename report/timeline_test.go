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
	var ops []history.Op
	for _, c := range []struct{ client, f string }{{"élan", "write"}, {"bob", "read"}, {"x\ny", "read"}} {
		ops = append(ops, history.Op{Client: c.client, F: c.f, Value: history.IntValue(1), Call: 0, Return: 10, Status: history.OK})
	}
	h, err := history.FromOps(ops)
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
