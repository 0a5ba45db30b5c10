package format

import (
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/history"
)

// TestReadWithinBudget checks that a document read whole stops, with an
// error that says why, when the memory budget leaves no room for it, and
// that a stream or a document within the budget reads as without one.
func TestReadWithinBudget(t *testing.T) {
	// Longer than the first buffer, so that reading it asks the budget.
	ops := strings.Repeat(`{"process": 0, "type": "invoke", "f": "write", "value": 1}, {"process": 0, "type": "ok", "f": "write", "value": 1}, `, 1000)
	doc := "[" + strings.TrimSuffix(ops, ", ") + "]"
	edn := strings.Repeat("{:process 0, :type :invoke, :f :write, :value 1}\n{:process 0, :type :ok, :f :write, :value 1}\n", 1000)
	tight := budget.New(1) // smaller than any process
	for _, tc := range []struct {
		name, src, format string
		mem               *budget.Memory
		want              string // "" for no error
	}{
		{"document, no room", doc, "json", tight, "the input does not fit in memory"},
		{"document, ample", doc, "json", budget.New(1 << 40), ""},
		{"document, no budget", doc, "json", nil, ""},
		{"EDN, no room", edn, "edn", tight, "the input does not fit in memory"},
		{"stream", `{"process": 0, "type": "invoke", "f": "write", "value": 1}` + "\n", "jsonl", budget.New(1 << 40), ""},
	} {
		_, err := ReadResult("h", strings.NewReader(tc.src), Options{Format: tc.format, Memory: tc.mem})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestValueSizes checks that a value longer than its share of the budget
// is refused with the operation named, and that no budget refuses none.
func TestValueSizes(t *testing.T) {
	big := history.StringValue(strings.Repeat("x", 2000))
	h := &history.History{Ops: []history.Op{
		{Client: "A", F: "write", Value: history.IntValue(1)},
		{Client: "B", F: "write", Value: history.ListValue(history.IntValue(2), big)},
	}}
	err := valueSizes(h, 1000)
	if err == nil || !strings.Contains(err.Error(), "operation 1 (process B, write): its value takes 20") {
		t.Errorf("got %v, want operation 1's value refused", err)
	}
	if err := valueSizes(h, 0); err != nil {
		t.Errorf("no limit refused: %v", err)
	}
	if err := valueSizes(h, 4000); err != nil {
		t.Errorf("a value within the limit refused: %v", err)
	}
}

// failingReader fails with the budget's error, as the reader the command
// line wraps the input in does when the memory watch cancels it.
type failingReader struct{ err error }

func (r failingReader) Read([]byte) (int, error) { return 0, r.err }

// TestReadStoppedByBudget checks that a read the memory watch stops says
// the input does not fit, whichever reader was reading, as a read that
// asked the budget itself does.
func TestReadStoppedByBudget(t *testing.T) {
	ex := &budget.ExceededError{Limit: 1 << 20, InUse: 6 << 20}
	for _, name := range []string{"", EDN, JSON, JSONL} {
		_, err := ReadResult("h", failingReader{fmt.Errorf("wrapped: %w", ex)}, Options{Format: name})
		if err == nil || !strings.Contains(err.Error(), "the input does not fit in memory") {
			t.Errorf("format %q: %v", name, err)
		}
	}
}
