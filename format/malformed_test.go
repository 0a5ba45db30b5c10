package format_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// TestMalformed checks that bad input gives an *history.InputError naming
// the file and the exact line, with a message saying what was expected.
func TestMalformed(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		forced string
		input  string
		line   int
		msg    string // a part of the message
	}{
		{"truncated JSON array", "h.json", "", "[{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"},\n {\"process\": 0,", 2,
			"unexpected end of input; the '{' opened at line 2 is not closed"},
		{"JSON syntax error", "h.json", "", "[{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"},\n\n {\"process\" 0}]", 3,
			"invalid JSON: invalid character '0' after object key"},
		{"unknown type", "h.json", "", "[{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"},\n {\"process\": 0, \"type\": \"done\", \"f\": \"read\"}]", 2,
			`"type" must be one of invoke, ok, fail, info; got "done"`},
		{"type of the wrong kind", "h.json", "", "[\n{\"process\": 0, \"type\": 3, \"f\": \"read\"}]", 2,
			`"type" must be one of invoke, ok, fail, info; got 3`},
		{"two open operations in one process, ambiguous", "h.jsonl", "", "{\"process\": 1, \"type\": \"invoke\", \"f\": \"read\"}\n{\"process\": 2, \"type\": \"invoke\", \"f\": \"read\"}\n{\"process\": 1, \"type\": \"invoke\", \"f\": \"read\"}\n{\"process\": 1, \"type\": \"ok\", \"f\": \"read\", \"value\": 4}\n", 4,
			"process 1 completes a read that could close its invocation from line 1 or from line 3: the pairing is ambiguous"},
		{"completion of another operation", "h.edn", "", "[{:process 0 :type :invoke :f :read}\n {:process 0 :type :ok :f :write :value 1}]", 2,
			"process 0 completes a write but its open invocation (line 1) is a read"},
		{"return before call (events), by times", "h.jsonl", "", "{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\", \"time\": 50}\n{\"process\": 0, \"type\": \"ok\", \"f\": \"read\", \"value\": 1, \"time\": 40}\n", 2,
			"completion time 40 is before its invocation's time 50 (line 1)"},
		{"return before call (ops)", "h.json", "", "[{\"process\": \"A\", \"f\": \"w\", \"value\": 1, \"call\": 0, \"return\": 10},\n {\"process\": \"B\", \"f\": \"r\", \"value\": 1, \"call\": 9, \"return\": 3}]", 2,
			"return time 3 is before call time 9"},
		{"overlap in one process (tuples)", "h.json", "", "[[\"A\", \"w\", 1, 0, 10],\n [\"B\", \"r\", 1, 2, 4],\n [\"A\", \"r\", 1, 5, 12]]", 3,
			"process A has two operations open at once: lines 1 and 3"},
		{"unterminated EDN string", "h.edn", "", "[{:process 0, :type :invoke, :f :read}\n {:process 0, :type :ok, :f :read, :value \"abc}\n]", 2,
			"unterminated string starting at line 2"},
		{"unclosed EDN vector", "h.edn", "", "[{:process 0, :type :invoke, :f :read}\n {:process 0, :type :ok, :f :read, :value [1 2}]\n", 2,
			"unexpected '}'; expected ']' to close the '[' opened at line 2"},
		{"EDN ratio", "h.edn", "", "{:process 0, :type :invoke, :f :write, :value 1}\n{:process 0, :type :ok, :f :write, :value 1/2}\n", 2,
			"ratio 1/2 is not supported"},
		{"EDN tag without a value", "h.edn", "", "; a comment\n{:process 0, :type :invoke, :f :write, :value 1}\n#jepsen.history.Op", 3,
			"a tagged literal needs a value after its tag"},
		{"EDN map with odd entries", "h.edn", "", "[{:process 0, :type :invoke, :f :write, :value 1}\n {:process 0, :type}]", 2,
			"map has a key without a value"},
		{"EDN not a map", "h.edn", "", "[{:process 0, :type :invoke, :f :write, :value 1}\n\n :oops]", 3,
			"expected an op map {:process … :type … :f …}, got :oops"},
		{"missing process", "h.edn", "", "{:process 0, :type :invoke, :f :write, :value 1}\n{:type :ok, :f :write, :value 1}\n", 2,
			"event has no :process field"},
		{"missing f", "h.json", "", "[\n {\"process\": 0, \"type\": \"invoke\", \"value\": 1}]", 2,
			`event has no "f" field naming the operation`},
		{"missing type", "h.jsonl", "", "\n{\"process\": 0, \"f\": \"read\"}\n", 2,
			`event has no "type" field`},
		{"process of the wrong kind", "h.json", "", "[{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"},\n {\"process\": [0], \"type\": \"ok\", \"f\": \"read\"}]", 2,
			`"process" must be an integer or a name, got an array`},
		{"f of the wrong kind", "h.edn", "", "{:process 0, :type :invoke, :f 12}", 1,
			":f must be an operation name, got 12"},
		{"bad JSON line in JSONL", "h.jsonl", "", "{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"}\n\n{\"process\": 0, \"type\": \"ok\", \"f\": \"read\", \"value\": 1}\n{\"process\": 1, \"type\": invoke}\n", 4,
			"invalid JSON"},
		{"two objects on one JSONL line", "h.jsonl", "", "{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"}\n{\"process\": 0, \"type\": \"ok\", \"f\": \"read\"} {}\n", 2,
			"expected one JSON object on the line, found 2 values"},
		{"invalid UTF-8", "h.json", "", "[{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\"},\n {\"process\": 0, \"type\": \"ok\", \"f\": \"re\xffad\"}]", 2,
			"invalid UTF-8 (byte 0xff)"},
		{"invalid UTF-8 in a log", "h.log", "", "INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:ok\t:read\t\"\xc3\"\n", 2,
			"invalid UTF-8"},
		{"time overflows", "h.json", "", "[{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\", \"time\": 1},\n {\"process\": 0, \"type\": \"ok\", \"f\": \"read\",\n  \"time\": 99999999999999999999}]", 3,
			`"time" 99999999999999999999 does not fit in a 64-bit integer`},
		{"time not an integer", "h.edn", "", "{:process 0, :type :invoke, :f :read, :time 1.5}", 1,
			":time must be an integer, got 1.5"},
		{"time in some events only, by times", "h.jsonl", "", "{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\", \"time\": 1}\n{\"process\": 0, \"type\": \"ok\", \"f\": \"read\"}\n", 2,
			"event has no time but the events before it do, so the events cannot be ordered by their times"},
		{"duplicate field", "h.json", "", "[{\"process\": 0, \"type\": \"invoke\",\n \"f\": \"read\", \"type\": \"ok\"}]", 2,
			`field "type" appears twice (also at line 1)`},
		{"number out of range", "h.json", "", "[{\"process\": 0, \"type\": \"invoke\", \"f\": \"read\",\n\"value\": 1e999}]", 2,
			"number 1e999 is out of range"},
		{"ops without return", "h.json", "ops", "[{\"process\": \"A\", \"f\": \"w\", \"value\": 1, \"call\": 0, \"return\": 10},\n {\"process\": \"B\", \"f\": \"r\", \"value\": 1, \"call\": 9}]", 2,
			`operation has no "return" time (write null if the outcome is unknown)`},
		{"ok op with null return", "h.json", "", "[{\"process\": \"A\", \"f\": \"w\", \"value\": 1, \"call\": 0, \"return\": null, \"type\": \"ok\"}]", 1,
			"an ok operation needs a return time"},
		{"short tuple", "h.json", "", "[[\"A\", \"w\", 1, 0, 10],\n [\"B\", \"r\", 1, 2]]", 2,
			"expected a tuple [process, f, value, call, return], got an array of 4 elements"},
		{"tuple call not a number", "h.json", "tuples", "[[\"A\", \"w\", 1, \"zero\", 10]]", 1,
			`"call" must be an integer, got "zero"`},
		{"bad notation line", "h.hist", "", "# H1\nA: w(1) [0, 10]\nB r(0) [2, 4]\n", 3,
			`expected an operation such as A: w(1) [0, 10], got "B r(0) [2, 4]"`},
		{"notation without interval", "h.hist", "", "A: w(1) [0, 10]\nB: r(0)\n", 2,
			"expected the interval [call, return] after the operation"},
		{"notation bad time", "h.hist", "", "A: w(1) [0, 10]\nB: r(0) [2, x]\n", 2,
			"return time must be an integer, got x"},
		{"notation overlap", "h.hist", "", "A: w(1) [0, 10]\nB: r(0) [2, 4]\nA: r(1) [6, 8]\n", 3,
			"process A has two operations open at once: lines 1 and 3"},
		{"notation bad status", "h.hist", "", "A: w(1) [0, 10] done\n", 1,
			`expected ok, fail or info after the interval, got "done"`},
		{"notation cas arity", "h.hist", "", "\n\nA: cas(1) [0, 10]\n", 3,
			"cas takes (from, to) or (key, from, to), got 1 argument"},
		{"log value unparseable", "h.log", "", "INFO  jepsen.util - 0\t:invoke\t:read\tnil\nsomething else\nINFO  jepsen.util - 0\t:ok\t:read\t[1 2\n", 3,
			"unexpected end of input; the '[' opened at line 3 is not closed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := format.ReadWith(tc.file, strings.NewReader(tc.input), format.Options{Format: tc.forced, Order: orderOf(tc.name)})
			var ie *history.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *history.InputError", err)
			}
			if ie.File != tc.file || ie.Line != tc.line || !strings.Contains(ie.Msg, tc.msg) {
				t.Errorf("got %s:%d %q\nwant %s:%d …%q…", ie.File, ie.Line, ie.Msg, tc.file, tc.line, tc.msg)
			}
			if want := tc.file + ":" + strconv.Itoa(tc.line) + ": "; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Error() = %q, want it to start with %q", err.Error(), want)
			}
		})
	}
}

// TestMalformedWithoutLine covers errors that have no line to name.
func TestMalformedWithoutLine(t *testing.T) {
	tests := []struct {
		name, file, forced, input, msg string
	}{
		{"log without history lines", "h.log", "", "INFO  jepsen.core - starting\nnothing here\n", "no history lines"},
		{"empty JSON", "h.json", "", "  \n", "empty input"},
		{"undetectable", "h.txt", "", "hello world\n", "cannot tell the format"},
		{"empty, no extension", "-", "", "\n  \n", "empty input"},
		{"unknown forced format", "h.txt", "yaml", "[]", `unknown format "yaml"`},
		{"notation without operations", "h.hist", "", "# nothing\nmodel: register\n", "no operations"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := format.Read(tc.file, strings.NewReader(tc.input), tc.forced)
			var ie *history.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *history.InputError", err)
			}
			if ie.File != tc.file || !strings.Contains(ie.Msg, tc.msg) || !strings.HasPrefix(err.Error(), tc.file+": ") {
				t.Errorf("got %q, want %s: …%q…", err.Error(), tc.file, tc.msg)
			}
		})
	}
}
