package format

import (
	"errors"
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

// TestJSONValuesFit checks the scan that refuses a JSON value longer than
// its share of the budget before the document is parsed: the value is
// named by the line it starts on; the containers of the history (the top
// level, a wrapper's "history") are not values, so a long history of
// short values reads.
func TestJSONValuesFit(t *testing.T) {
	const limit = 1000
	mem := budget.New(limit * MaxValueShare)
	long := strings.Repeat("7,", limit/2) + "7"
	event := func(v string) string { return `{"process": 0, "type": "ok", "f": "read", "value": ` + v + `}` }
	many := strings.TrimSuffix(strings.Repeat(event("1")+",\n", 100), ",\n")
	for _, tc := range []struct {
		name, src string
		line      int // 0: accepted
	}{
		{"short values, long history", "[" + many + "]", 0},
		{"short values in a wrapper", `{"model": "register", "history": [` + many + "]}", 0},
		{"short values one after another", strings.ReplaceAll(many, ",\n", "\n"), 0},
		{"a value just within", "[" + event("["+long[:limit-100]+"]") + "]", 0},
		{"a long list", "[\n" + event("1") + ",\n" + event("["+long+"]") + "]", 3},
		{"a long string", "[\n\n" + event(`"`+strings.Repeat(`x\"`, limit)+`"`) + "]", 3},
		{"a long map", "[" + event(`{"a": [`+long+`]}`) + "]", 1},
		{"a long value in a wrapper", "{\"history\": [\n" + event("["+long+"]") + "]}", 2},
		{"a long setting in a wrapper", "{\"init\": [\n" + long + "], \"history\": []}", 1},
		{"a long tuple", `[["A", "w", 1, 0, 1],` + "\n" + `["A", "w", [` + long + `], 2, 3]]`, 2},
		{"an unclosed long list", "[" + event("["+long), 1},
	} {
		err := jsonValuesFit([]byte(tc.src), limit, mem)
		switch {
		case tc.line == 0 && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.line != 0 && err == nil:
			t.Errorf("%s: accepted", tc.name)
		case tc.line != 0:
			var ie *history.InputError
			want := "the value starting here is longer than 1000 bytes, more than the memory budget allows for one value (16000 bytes, a 16th of it)"
			if !errors.As(err, &ie) || ie.Line != tc.line || ie.Msg != want {
				t.Errorf("%s: got %v, want line %d: %s", tc.name, err, tc.line, want)
			}
		}
	}
	if err := jsonValuesFit([]byte("["+event("["+long+"]")+"]"), 0, nil); err != nil {
		t.Errorf("no budget refused: %v", err)
	}
}

// TestLineWithinShare checks that a line longer than a value's share of
// the budget is refused as it is read, naming the line and the budget, in
// each format read line by line.
func TestLineWithinShare(t *testing.T) {
	mem := budget.New(1000 * MaxValueShare)
	long := strings.Repeat("7 ", 600)
	for _, tc := range []struct{ format, src string }{
		{JSONL, `{"process": 0, "type": "invoke", "f": "read", "value": null}` + "\n" +
			`{"process": 0, "type": "ok", "f": "read", "value": [` + strings.ReplaceAll(strings.TrimSpace(long), " ", ",") + "]}\n"},
		{JepsenLog, "INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:ok\t:read\t[" + long + "]\n"},
		{Notation, "A: w(1) [0, 1]\nB: r -> " + strings.Repeat("7", 1200) + " [2, 3]\n"},
	} {
		_, err := ReadResult("h", strings.NewReader(tc.src), Options{Format: tc.format, Memory: mem})
		want := "h:2: the line is longer than 1000 bytes, more than the memory budget allows for one value (16000 bytes, a 16th of it)"
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", tc.format, err, want)
		}
		if _, err := ReadResult("h", strings.NewReader(tc.src), Options{Format: tc.format, Memory: budget.New(1 << 40)}); err != nil {
			t.Errorf("%s, ample budget: %v", tc.format, err)
		}
	}
}
