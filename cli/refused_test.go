package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// refusedInputs are small histories that each phase refuses, by name.
var refusedInputs = map[string]string{
	"good.hist":  "A: w(1) [0, 10]\nB: r -> 1 [12, 14]\n",
	"bad.hist":   "A: w(1) [0, 10]\nB: r -> 1 [2, 4\n",
	"cas5.edn":   "[{:process 0 :type :invoke :f :cas :value 5}\n{:process 0 :type :ok :f :cas :value 5}]\n",
	"write5.edn": "{:process 0 :type :invoke :f :write :value 5}\n{:process 0 :type :ok :f :write :value 5}\n",
	"dup.edn": "{:process 0 :type :invoke :f :txn :value [[:append :x 1]]}\n{:process 0 :type :ok :f :txn :value [[:append :x 1]]}\n" +
		"{:process 1 :type :invoke :f :txn :value [[:append :x 1]]}\n{:process 1 :type :ok :f :txn :value [[:append :x 1]]}\n",
	"queue.hist":  "A: enq(1) [0, 1]\nB: deq -> 1 [2, 3]\n",
	"badnil.json": `{"nil_read": "sometimes", "history": [{"process": "A", "f": "write", "value": 1, "call": 0, "return": 10}]}`,
	"nounit.json": `[{"process": "A", "f": "acquire", "call": 0, "return": 5}, {"process": "B", "f": "acquire", "call": 6000, "return": 6005}]`,
	"stock.json": `[{"process": "A", "f": "acquire", "key": "lock", "call": 0, "return": 5},
		{"process": "A", "f": "write", "key": "stock", "value": 1, "call": 6, "return": 7}]`,
	"counter.edn": "{:process 0 :type :invoke :f :add :value 2}\n{:process 0 :type :ok :f :add :value 2}\n",
	"addx.edn":    "{:process 0 :type :invoke :f :add :value \"x\"}\n{:process 0 :type :ok :f :add :value \"x\"}\n",
	"read7.edn": "{:process 0 :type :invoke :f :add :value 1}\n{:process 0 :type :ok :f :add :value 1}\n" +
		"{:process 1 :type :invoke :f :read :value nil}\n{:process 1 :type :ok :f :read :value 7}\n",
	"bank5.edn": "{:process 0 :type :invoke :f :read :value nil}\n{:process 0 :type :ok :f :read :value {0 5 1 5}}\n" +
		"{:process 0 :type :invoke :f :read :value nil}\n{:process 0 :type :ok :f :read :value 5}\n",
	"fork3.edn": "{:process 0 :type :invoke :f :txn :value [[:r 0 nil] [:r 1 nil]]}\n{:process 0 :type :ok :f :txn :value 3}\n",
	"forkkeys.edn": "{:process 0 :type :invoke :f :txn :value [[:r 0 nil] [:r 1 nil]]}\n{:process 0 :type :ok :f :txn :value [[:r 0 1] [:r 1 nil]]}\n" +
		"{:process 1 :type :invoke :f :txn :value [[:r 0 nil]]}\n{:process 1 :type :ok :f :txn :value [[:r 0 1]]}\n",
	"bankesc.edn": "{:process 0 :type :invoke :f :read :value nil}\n{:process 0 :type :ok :f :read :value \"\x1b[31mred\"}\n",
	"drain1.edn": "{:process 0 :type :invoke :f :enqueue :value 1}\n{:process 0 :type :ok :f :enqueue :value 1}\n" +
		"{:process 1 :type :invoke :f :drain :value nil}\n{:process 1 :type :ok :f :drain :value 1}\n",
}

// TestRefusedEverywhere checks that a file refused in any phase (reading,
// the model's compilation of its operations, the transaction checker's
// validation, the model's detection, a setting from the command line or
// the file, a criterion that does not apply) is reported the same way in
// every form: a verdict line per criterion asked, unknown, "not checked:"
// and the reason, in text; "valid": "unknown" with the file's "error" in
// JSON; an error case per criterion in JUnit; exit status 3. The criteria
// are those the run would have checked: the model's default when none is
// asked (strict-serializable for list-append, not linearizable).
func TestRefusedEverywhere(t *testing.T) {
	dir := t.TempDir()
	for name, text := range refusedInputs {
		writeFile(t, filepath.Join(dir, name), text)
	}
	for _, tc := range []struct {
		site     string
		args     []string
		file     string
		criteria []string
		reason   string
	}{
		{"reader: malformed", nil, "bad.hist", []string{"linearizable"}, "bad.hist:2: expected"},
		{"reader: missing", []string{"-m", "list-append"}, "missing.edn", []string{"strict-serializable"}, "missing.edn: cannot open"},
		{"reader: independent keys", []string{"--independent"}, "write5.edn", []string{"linearizable"}, "expected a value [key value]"},
		{"model compile", []string{"-m", "cas-register"}, "cas5.edn", []string{"linearizable"}, "cas5.edn:1: operation 0:cas(5): cas needs a value [from to], got 5"},
		{"model compile, -c", []string{"-m", "mutex", "-c", "linearizable,sequential"}, "good.hist", []string{"linearizable", "sequential"}, `model mutex has no operation "write"`},
		{"transactions", []string{"-m", "list-append"}, "dup.edn", []string{"strict-serializable"}, "1 is appended to key x twice"},
		{"transactions, detected", nil, "dup.edn", []string{"strict-serializable"}, "1 is appended to key x twice"},
		{"transactions, anomalies", []string{"--anomalies", "G1c"}, "dup.edn", []string{"anomalies"}, "1 is appended to key x twice"},
		{"transactions, -c and anomalies", []string{"-c", "serializable", "--anomalies", "G0"}, "dup.edn", []string{"serializable", "anomalies"}, "appended to key x twice"},
		{"detection", nil, "queue.hist", []string{"linearizable"}, "cannot tell the model from the operation names deq, enq"},
		{"settings: criterion of another model", []string{"-m", "register", "-c", "serializable"}, "good.hist", []string{"serializable"}, "model register cannot be checked for serializable"},
		{"settings: criterion of the detected model", []string{"-c", "serializable"}, "good.hist", []string{"serializable"}, "model register cannot be checked for serializable"},
		{"settings: unknown criterion", []string{"-c", "strict-linearizable"}, "good.hist", []string{"strict-linearizable"}, `unknown consistency criterion "strict-linearizable"`},
		{"settings: unknown model", []string{"-m", "queue"}, "good.hist", []string{"linearizable"}, `unknown model "queue"`},
		{"settings: nil-read", []string{"--nil-read", "maybe"}, "good.hist", []string{"linearizable"}, `unknown --nil-read "maybe"`},
		{"settings: the file's nil-read", nil, "badnil.json", []string{"linearizable"}, "the file's nil_read is"},
		{"settings: ttl", []string{"-m", "lease", "--ttl", "soon"}, "nounit.json", []string{"linearizable"}, "want a positive number"},
		{"settings: ttl without a time unit", []string{"-m", "lease", "--ttl", "5s"}, "nounit.json", []string{"linearizable"}, "does not say its time unit"},
		{"settings: no lease length", []string{"-m", "lease"}, "nounit.json", []string{"linearizable"}, "acquire needs a lease length"},
		{"settings: init", []string{"-m", "counter", "--init", `"x"`}, "counter.edn", []string{"linearizable"}, "the counter model's initial value must be a 64-bit integer"},
		{"settings: model option", []string{"-m", "jepsen-counter", "--model-option", "group-size=2"}, "counter.edn", []string{"jepsen"}, "model jepsen-counter takes no options"},
		{"settings: anomalies of a register", []string{"--anomalies", "G0"}, "good.hist", []string{"anomalies"}, "model register has no anomalies"},
		{"settings: unknown anomaly", []string{"-m", "list-append", "--anomalies", "G9"}, "dup.edn", []string{"anomalies"}, `unknown anomaly "G9"`},
		{"settings: assumptions", []string{"--assume", "wfr-keys"}, "good.hist", []string{"linearizable"}, "--assume applies to rw-register"},
		{"settings: per key, not local", []string{"-m", "lock=mutex,stock=register", "-c", "sequential"}, "stock.json", []string{"sequential"}, "sequential is not compositional"},
		{"settings: per key, a key without a model", []string{"-m", "lock=mutex"}, "stock.json", []string{"linearizable"}, "names no model for stock"},
		{"settings: per key, detection", nil, "stock.json", []string{"linearizable"}, "hold objects of different kinds"},
		{"Jepsen's counter", []string{"-m", "jepsen-counter"}, "addx.edn", []string{"jepsen"}, "addx.edn:1: operation 0:add(x): a counter's add needs a whole number of at least 0, got x (a string)"},
		{"Jepsen's set", []string{"-m", "jepsen-set"}, "read7.edn", []string{"jepsen"}, "read7.edn:3: operation 1:r(7): a set's read needs the elements read, as a list or a set, got 7 (an int)"},
		{"Jepsen's set-full", []string{"-m", "set-full"}, "read7.edn", []string{"jepsen"}, "read7.edn:3: operation 1:r(7): a set's read needs the elements read"},
		{"Jepsen's bank", []string{"-m", "bank"}, "bank5.edn", []string{"jepsen"}, "bank5.edn:3: operation 0:r(5): a bank read needs a map of accounts to balances, got 5 (an int)"},
		{"Jepsen's bank, escaped", []string{"-m", "bank"}, "bankesc.edn", []string{"jepsen"}, `bankesc.edn:1: operation 0:r("\x1b[31mred"): a bank read needs a map of accounts to balances, got "\x1b[31mred" (a string)`},
		{"Jepsen's long-fork", []string{"-m", "long-fork"}, "fork3.edn", []string{"jepsen"}, "fork3.edn:1: operation 0:txn(3): a long-fork operation needs a transaction"},
		{"Jepsen's long-fork, reads of different keys", []string{"-m", "long-fork"}, "forkkeys.edn", []string{"jepsen"}, "forkkeys.edn:3: operation 1:txn([[r 0 1]]): every long-fork read should read 2 keys"},
		{"Jepsen's total-queue", []string{"-m", "total-queue"}, "drain1.edn", []string{"jepsen"}, "drain1.edn:3: operation 1:drain(1): a drain needs the elements it dequeued"},
		{"per-key compile", []string{"-m", "lock=lease,stock=register"}, "stock.json", []string{"linearizable"}, "acquire needs a lease length"},
	} {
		t.Run(tc.site, func(t *testing.T) {
			file := filepath.Join(dir, tc.file)
			args := append(append([]string{"check"}, tc.args...), file)
			assertRefusedText(t, args, file, tc.criteria, tc.reason)
			assertRefusedJSON(t, args, file, tc.criteria, tc.reason)
			assertRefusedJUnit(t, args, tc.criteria, tc.reason)
		})
	}
}

func assertRefusedText(t *testing.T, args []string, file string, criteria []string, reason string) {
	t.Helper()
	code, out, errs := run(t, nil, args...)
	if code != ExitError || !strings.Contains(errs, reason) {
		t.Errorf("text: exit %d, stderr %q, want 3 and %q", code, errs, reason)
	}
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Split(l, "\t"); len(f) == 3 && f[0] == file {
			got = append(got, f[1])
			if f[2] != "unknown" {
				t.Errorf("text: %q", l)
			}
		}
	}
	if !slices.Equal(got, criteria) || strings.Count(out, "reason: not checked: ") != len(criteria) || !strings.Contains(out, reason) {
		t.Errorf("text: criteria %v, want %v with the reason %q\n%s", got, criteria, reason, out)
	}
}

// refusalJSON is the part of the JSON report the refusal tests read.
type refusalJSON struct {
	Valid     any `json:"valid"`
	Histories []struct {
		File    string `json:"file"`
		Error   string `json:"error"`
		Results []struct {
			Consistency, Reason string
			Valid               any
		} `json:"results"`
	} `json:"histories"`
}

func assertRefusedJSON(t *testing.T, args []string, file string, criteria []string, reason string) {
	t.Helper()
	code, out, _ := run(t, nil, append(args, "-o", "json")...)
	var rep refusalJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if code != ExitError || rep.Valid != "unknown" || len(rep.Histories) != 1 {
		t.Fatalf("json: exit %d, valid %v, %d histories", code, rep.Valid, len(rep.Histories))
	}
	h := rep.Histories[0]
	var got []string
	for _, r := range h.Results {
		got = append(got, r.Consistency)
		if r.Valid != "unknown" || r.Reason != "not checked: "+h.Error {
			t.Errorf("json: %s is %v, %q", r.Consistency, r.Valid, r.Reason)
		}
	}
	if h.File != file || !strings.Contains(h.Error, reason) || !slices.Equal(got, criteria) {
		t.Errorf("json: file %q, error %q, criteria %v; want %v and %q", h.File, h.Error, got, criteria, reason)
	}
}

func assertRefusedJUnit(t *testing.T, args []string, criteria []string, reason string) {
	t.Helper()
	code, out, _ := run(t, nil, append(args, "-o", "junit")...)
	if code != ExitError || strings.Count(out, "<testcase ") != len(criteria) ||
		strings.Count(out, `<error message="not checked: `) != len(criteria) ||
		!strings.Contains(out, `<testsuites name="histcheck" tests="`+strconv.Itoa(len(criteria))+`" failures="0" errors="`+strconv.Itoa(len(criteria))+`"`) {
		t.Errorf("junit: exit %d\n%s", code, out)
	}
	for _, c := range criteria {
		if !strings.Contains(out, `<testcase name="`+c+`"`) {
			t.Errorf("junit: no case %s\n%s", c, out)
		}
	}
	_ = reason // escaped for XML; the text and JSON forms check its words
}

// TestRefusedInSummaryAndPage checks that --summary and the web page say
// why a file was not checked, and that --summary --no-check still reports a
// file refused before its check: a verdict line, unknown.
func TestRefusedInSummaryAndPage(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"dup.edn", "good.hist", "queue.hist"} {
		writeFile(t, filepath.Join(dir, name), refusedInputs[name])
	}
	dup, good, queue := filepath.Join(dir, "dup.edn"), filepath.Join(dir, "good.hist"), filepath.Join(dir, "queue.hist")
	missing := filepath.Join(dir, "missing.edn")
	page := filepath.Join(dir, "page.html")
	code, out, _ := run(t, nil, "check", "--summary", "--html", page, dup, good, missing)
	if code != ExitError ||
		!strings.Contains(out, dup+": 2 ops (2 ok, 0 failed, 0 unknown)") ||
		!strings.Contains(out, "    not checked: "+dup+": 1 is appended to key x twice") ||
		!strings.Contains(out, missing+": not read: "+missing+": cannot open") ||
		!strings.Contains(out, good+"\tlinearizable\ttrue\n") {
		t.Errorf("summary: exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	if !strings.Contains(html, `"error":"`+dup+`: 1 is appended to key x twice`) ||
		!strings.Contains(html, `"error":"`+missing+`: cannot open`) ||
		!strings.Contains(html, `"reason":"not checked: `+dup+`: 1 is appended`) ||
		!strings.Contains(html, `"summary":"not read"`) {
		t.Errorf("the page does not say why the files were not checked")
	}
	code, out, _ = run(t, nil, "check", "--summary", "--no-check", queue, good)
	if code != ExitError || !strings.Contains(out, queue+"\tlinearizable\tunknown\n") ||
		strings.Contains(out, good+"\tlinearizable") {
		t.Errorf("--no-check: exit %d\n%s", code, out)
	}
}
