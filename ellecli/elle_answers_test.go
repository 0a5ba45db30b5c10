package ellecli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
)

// concurrentTxns writes a history of transactions, each on its own
// process and all invoked before any completes (no process or real-time
// order), from lines "TYPE VALUE" (ok, fail or info, then the
// completion's value; reads in the invocation are nil).
func concurrentTxns(lines ...string) string {
	var inv, done strings.Builder
	for i, l := range lines {
		typ, value, _ := strings.Cut(l, " ")
		p := string(rune('0' + i))
		invoke := value
		for _, r := range []string{"[:r :x ", "[:r :y "} {
			for strings.Contains(invoke, r) && !strings.Contains(invoke, r+"nil]") {
				j := strings.Index(invoke, r) + len(r)
				k := j + strings.Index(invoke[j:], "]")
				if invoke[j] == '[' {
					k = j + strings.Index(invoke[j:], "]]") + 1
				}
				invoke = invoke[:j] + "nil" + invoke[k:]
			}
		}
		if typ == "fail" {
			value = invoke
		}
		inv.WriteString("{:type :invoke, :f :txn, :process " + p + ", :value " + invoke + "}\n")
		if typ != "info" {
			done.WriteString("{:type :" + typ + ", :f :txn, :process " + p + ", :value " + value + "}\n")
		}
	}
	return inv.String() + done.String()
}

// TestElleEmptyTransactionGraph ports the assertions of Elle's own
// tests (list_append_test.clj, rw_register_test.clj) whose answer rests
// on the empty transaction graph: when no dependency between
// transactions can be inferred, Elle answers unknown, and lists
// empty-transaction-graph beside any anomaly that makes the history
// invalid.
func TestElleEmptyTransactionGraph(t *testing.T) {
	g1a := concurrentTxns("fail [[:append :x 1]]", "ok [[:r :x [1]]]")
	tests := []struct {
		name, model, levels, anomalies, history string
		verdict                                 checker.Verdict
		types                                   []string
	}{
		{"list-append G1a, read-uncommitted", "list-append", "read-uncommitted", "", g1a,
			checker.Unknown, []string{"empty-transaction-graph"}},
		{"list-append G1a, read-committed", "list-append", "read-committed", "", g1a,
			checker.False, []string{"G1a", "empty-transaction-graph"}},
		{"list-append G1a, anomalies G2", "list-append", "", "G2", g1a,
			checker.Unknown, []string{"empty-transaction-graph"}},
		{"list-append G1a, repeatable-read", "list-append", "repeatable-read", "", g1a,
			checker.False, []string{"G1a", "empty-transaction-graph"}},
		{"list-append no dirty update", "list-append", "", "dirty-update", concurrentTxns("fail [[:append :x 1]]"),
			checker.Unknown, []string{"empty-transaction-graph"}},
		{"list-append future read", "list-append", "read-committed", "", concurrentTxns("ok [[:r :x [1]] [:append :x 1]]"),
			checker.False, []string{"empty-transaction-graph", "future-read"}},
		{"rw-register G0 not yet visible", "rw-register", "", "G0", concurrentTxns("ok [[:w :x 1] [:w :y 2]]", "ok [[:w :x 2] [:w :y 1]]"),
			checker.Unknown, []string{"empty-transaction-graph"}},
		{"rw-register G1a", "rw-register", "", "G1", concurrentTxns("ok [[:r :x 1]]", "fail [[:w :x 1]]"),
			checker.False, []string{"G1a", "empty-transaction-graph"}},
		{"rw-register G1b, anomalies G0", "rw-register", "", "G0", concurrentTxns("ok [[:w :x 1] [:w :x 2]]", "ok [[:r :x 1]]"),
			checker.Unknown, []string{"empty-transaction-graph"}},
		{"rw-register G1b, anomalies G1", "rw-register", "", "G1", concurrentTxns("ok [[:w :x 1] [:w :x 2]]", "ok [[:r :x 1]]"),
			checker.False, []string{"G1b", "empty-transaction-graph"}},
		{"rw-register internal", "rw-register", "", "internal", concurrentTxns("ok [[:r :x 1] [:r :x 2]]"),
			checker.False, []string{"empty-transaction-graph", "internal"}},
		// A dependency is enough: Elle's answer is then the cycles'.
		{"list-append a read of a committed append", "list-append", "serializable", "", concurrentTxns("ok [[:append :x 1]]", "ok [[:r :x [1]]]"),
			checker.True, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "h.edn")
			write(t, file, tt.history)
			var out, errb bytes.Buffer
			o := &options{model: tt.model, consistency: tt.levels, anomalies: tt.anomalies, output: "json", plotFormat: "svg", cycleSearchTimeout: 1000}
			code := run(context.Background(), Env{Stdout: &out, Stderr: &errb, Models: suite.Builtin()}, o, []string{file})
			var got jsonResult
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("exit %d, %v: %s (stderr %q)", code, err, out.String(), errb.String())
			}
			wantCode := ExitOK
			if tt.verdict == checker.False {
				wantCode = ExitInvalid
			}
			if got.Valid != tt.verdict || code != wantCode || !slices.Equal(got.AnomalyTypes, tt.types) {
				t.Errorf("valid? %v, exit %d, anomaly-types %v; want %v, %d, %v\n%s", got.Valid, code, got.AnomalyTypes, tt.verdict, wantCode, tt.types, tt.history)
			}
		})
	}
}

// TestElleRaises checks that a history Elle refuses with an error (a
// value appended twice to one key) exits 255 as elle-cli does on an
// exception: an empty line on standard output, Elle's message on
// standard error, and no verdict line.
func TestElleRaises(t *testing.T) {
	file := filepath.Join(t.TempDir(), "dup.edn")
	write(t, file, concurrentTxns("ok [[:append :x 1]]", "ok [[:append :x 1]]"))
	var out, errb bytes.Buffer
	o := &options{model: "list-append", consistency: "strict-serializable", anomalies: "G0", output: "text", plotFormat: "svg", cycleSearchTimeout: 1000}
	code := run(context.Background(), Env{Stdout: &out, Stderr: &errb, Models: suite.Builtin()}, o, []string{file})
	if code != ExitException || out.String() != "\n" || !strings.Contains(errb.String(), "value 1 appended to key x multiple times!") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 255, an empty line and Elle's message", code, out.String(), errb.String())
	}
}

// TestElleLeavesOutFracturedReads checks that elle-cli's verdicts leave
// out the anomaly Elle does not look for: a fractured read breaks
// monotonic atomic view for histcheck check, while Elle checks that level
// as read committed and finds the history valid.
func TestElleLeavesOutFracturedReads(t *testing.T) {
	file := filepath.Join(t.TempDir(), "fractured.edn")
	write(t, file, concurrentTxns("ok [[:append :x 1] [:append :y 1]]", "ok [[:r :x [1]] [:r :y []]]"))
	for _, tt := range []struct {
		levels string
		want   checker.Verdict
		types  []string
	}{
		{"monotonic-atomic-view", checker.True, nil},
		{"snapshot-isolation", checker.False, []string{"G-single-item"}},
	} {
		var out, errb bytes.Buffer
		o := &options{model: "list-append", consistency: tt.levels, output: "json", plotFormat: "svg", cycleSearchTimeout: 1000}
		run(context.Background(), Env{Stdout: &out, Stderr: &errb, Models: suite.Builtin()}, o, []string{file})
		var got jsonResult
		if err := json.Unmarshal(out.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v: %s (stderr %q)", tt.levels, err, out.String(), errb.String())
		}
		if got.Valid != tt.want || !slices.Equal(got.AnomalyTypes, tt.types) {
			t.Errorf("%s: valid? %v, anomaly-types %v; want %v, %v", tt.levels, got.Valid, got.AnomalyTypes, tt.want, tt.types)
		}
	}
}

// TestElleOneGraph checks that the empty transaction graph is the whole
// check's, as Elle builds one graph for every model asked for: two
// transactions one after the other with no data dependency have an empty
// graph for serializability alone (data dependencies only), but not when
// strict serializability, whose graph has real-time order, is asked for
// too.
func TestElleOneGraph(t *testing.T) {
	file := filepath.Join(t.TempDir(), "h.edn")
	write(t, file, `{:type :invoke, :f :txn, :process 0, :value [[:append :x 1]]}
{:type :ok, :f :txn, :process 0, :value [[:append :x 1]]}
{:type :invoke, :f :txn, :process 1, :value [[:append :y 1]]}
{:type :ok, :f :txn, :process 1, :value [[:append :y 1]]}
`)
	for levels, want := range map[string]checker.Verdict{
		"serializable":                     checker.Unknown,
		"strict-serializable":              checker.True,
		"serializable,strict-serializable": checker.True,
	} {
		var out, errb bytes.Buffer
		o := &options{model: "list-append", consistency: levels, output: "text", plotFormat: "svg", cycleSearchTimeout: 1000}
		code := run(context.Background(), Env{Stdout: &out, Stderr: &errb, Models: suite.Builtin()}, o, []string{file})
		if out.String() != Line(file, want) || code != ExitOK {
			t.Errorf("-c %s: %q, exit %d (stderr %q); want %v", levels, out.String(), code, errb.String(), want)
		}
	}
}
