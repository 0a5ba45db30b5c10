package elle_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/history"
)

// TestDuplicateAppend names, of the elements appended twice, the one whose
// second append comes first in the history, with both transactions,
// whichever key it is on.
func TestDuplicateAppend(t *testing.T) {
	for _, c := range []struct {
		txns       []string
		key, value string
		first, dup int // positions of the transactions in txns
	}{
		{[]string{"ax1", "ay5", "ax1", "ay5"}, "x", "1", 0, 2},
		{[]string{"ay5", "ax1", "ay5", "ax1"}, "y", "5", 0, 2},
		{[]string{"ax1ay5", "ay6", "ay6ax1"}, "y", "6", 1, 2},
		{[]string{"fail:ax1", "ax2", "rx2", "ax1"}, "x", "1", 0, 3},
	} {
		h := concurrent(t, false, c.txns...)
		_, err := elle.Analyze(context.Background(), h, elle.ListAppend, 0)
		want := fmt.Sprintf("%s is appended to key %s twice (transactions at operations %d and %d)", c.value, c.key, opOf(t, h.Ops, c.first), opOf(t, h.Ops, c.dup))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", c.txns, err, want)
		}
	}
}

// opOf is the position of the operation of the i-th transaction given to
// concurrent, whose client is A, B, ….
func opOf(t *testing.T, ops []history.Op, i int) int {
	t.Helper()
	for p := range ops {
		if ops[p].Client == string(rune('A'+i)) {
			return p
		}
	}
	t.Fatalf("no operation of transaction %d", i)
	return -1
}
