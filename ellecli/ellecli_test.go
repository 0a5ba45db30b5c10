package ellecli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
)

// TestLine checks elle-cli's line byte for byte, and that a file name that
// does not print as itself is quoted.
func TestLine(t *testing.T) {
	tests := []struct {
		file string
		v    checker.Verdict
		want string
	}{
		{"histories/elle/rw-register.edn", checker.True, "histories/elle/rw-register.edn \t true\n"},
		{"a.json", checker.False, "a.json \t false\n"},
		{"a.edn", checker.Unknown, "a.edn \t unknown\n"},
		{"a\x1b[2Jb.edn", checker.False, `"a\x1b[2Jb.edn"` + " \t false\n"},
		{"two\nlines.edn", checker.True, `"two\nlines.edn"` + " \t true\n"},
	}
	for _, tt := range tests {
		if got := Line(tt.file, tt.v); got != tt.want {
			t.Errorf("Line(%q, %v) = %q, want %q", tt.file, tt.v, got, tt.want)
		}
	}
}

// TestPlan checks how -c and -a map onto histcheck's criteria and
// anomalies, and the flags elle-cli refuses.
func TestPlan(t *testing.T) {
	tests := []struct {
		name, model, levels, anomalies string
		criteria, anoms                []string
		nothing                        bool
		msg                            string
		// unknown are the consistency models Elle does not know, raised
		// when a history is checked, not as a flag's complaint.
		unknown []string
	}{
		{name: "defaults: G0 is ruled out by strict serializability", model: "list-append", levels: "strict-serializable", anomalies: "G0",
			criteria: []string{elle.StrictSerializable}},
		{name: "anomalies only", model: "list-append", anomalies: "G-single-process", anoms: []string{"G-single-process"}},
		{name: "nothing", model: "rw-register", nothing: true},
		{name: "alias with anomalies", model: "list-append", levels: "consistent-view", anomalies: "G0",
			criteria: []string{elle.CursorStability}, anoms: []string{"G-single", "G0"}},
		{name: "alias", model: "list-append", levels: "strong-serializable,conflict-serializable",
			criteria: []string{elle.StrictSerializable, elle.Serializable}},
		{name: "unknown level", model: "list-append", levels: "sometimes", unknown: []string{"sometimes"}},
		{name: "unknown levels beside known ones", model: "rw-register", levels: "serializable,all,pram,PL-3", anomalies: "",
			criteria: []string{elle.Serializable, elle.Serializable}, unknown: []string{"all", "pram"}},
		{name: "unknown level, nothing else", model: "list-append", levels: "often", anomalies: "", unknown: []string{"often"}},
		{name: "unknown anomaly", model: "list-append", anomalies: "G9", msg: "unknown anomaly"},
		{name: "unknown model", model: "nope", msg: `Failed to validate "--model nope"`},
		{name: "knossos ignores -c", model: "cas-register", levels: "sometimes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &options{model: tt.model, consistency: tt.levels, anomalies: tt.anomalies, output: "text", plotFormat: "svg", cycleSearchTimeout: 1000}
			p, msg := plan(o, suite.Builtin())
			if tt.msg != "" || msg != "" {
				if !strings.Contains(msg, tt.msg) || tt.msg == "" {
					t.Fatalf("message %q, want one with %q", msg, tt.msg)
				}
				return
			}
			slices.Sort(p.anoms)
			slices.Sort(tt.anoms)
			if !slices.Equal(p.criteria, tt.criteria) || !slices.Equal(p.anoms, tt.anoms) || p.nothing != tt.nothing {
				t.Errorf("criteria %v, anomalies %v, nothing %v; want %v, %v, %v", p.criteria, p.anoms, p.nothing, tt.criteria, tt.anoms, tt.nothing)
			}
			if !slices.Equal(p.unknownLevels, tt.unknown) {
				t.Errorf("unknown consistency models %v, want %v", p.unknownLevels, tt.unknown)
			}
		})
	}
}

// TestCycleBudget checks that --cycle-search-timeout's default is the
// cycle search's default budget, and scales with it.
func TestCycleBudget(t *testing.T) {
	for ms, want := range map[int]int64{1000: elle.DefaultBudget, 10: elle.DefaultBudget / 100} {
		o := &options{model: "list-append", consistency: "serializable", output: "text", plotFormat: "svg", cycleSearchTimeout: ms}
		p, msg := plan(o, suite.Builtin())
		if msg != "" || p.limits.CycleBudget != want {
			t.Errorf("-s %d: budget %d (%q), want %d", ms, p.limits.CycleBudget, msg, want)
		}
	}
}

// TestRunExitCodes runs the command on small histories: 0 when valid, 1
// when invalid, and the worst of several files.
func TestRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	valid := filepath.Join(dir, "valid.edn")
	invalid := filepath.Join(dir, "invalid.edn")
	write(t, valid, `{:type :invoke, :f :txn, :value [[:append :x 1]], :process 0}
{:type :ok, :f :txn, :value [[:append :x 1]], :process 0}
{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1}
{:type :ok, :f :txn, :value [[:r :x [1]]], :process 1}
`)
	// A read of a failed transaction's append: G1a, invalid.
	write(t, invalid, `{:type :invoke, :f :txn, :value [[:append :x 1]], :process 0}
{:type :fail, :f :txn, :value [[:append :x 1]], :process 0}
{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1}
{:type :ok, :f :txn, :value [[:r :x [1]]], :process 1}
`)
	tests := []struct {
		files []string
		code  int
		out   string
	}{
		{[]string{valid}, ExitOK, Line(valid, checker.True)},
		{[]string{invalid}, ExitInvalid, Line(invalid, checker.False)},
		{[]string{invalid, valid}, ExitInvalid, Line(invalid, checker.False) + Line(valid, checker.True)},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		o := &options{model: "list-append", consistency: "strict-serializable", anomalies: "G0", output: "text", plotFormat: "svg", cycleSearchTimeout: 1000}
		code := run(context.Background(), Env{Stdout: &out, Stderr: &errb, Models: suite.Builtin()}, o, tt.files)
		if code != tt.code || out.String() != tt.out {
			t.Errorf("%v: exit %d, %q (stderr %q); want %d, %q", tt.files, code, out.String(), errb.String(), tt.code, tt.out)
		}
	}
}

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{"G1c": "G1c", "G-single-item": "G-single-item", "../x y": "___x_y"} {
		if got := fileName(in); got != want {
			t.Errorf("fileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportable checks which anomalies elle-cli counts when asked for
// some by name: the expansions of those asked for, then the worse ones.
func TestReportable(t *testing.T) {
	for _, c := range []struct {
		asked   []string
		in, out []string
	}{
		{[]string{"G-single-process"}, []string{"G-single-process", "G1c-process", "G0-process", "G2"}, []string{"G-single", "G-single-realtime"}},
		{[]string{"G2"}, []string{"G2", "G-single", "G1c", "G0", "G-nonadjacent"}, []string{"G2-process"}},
		{[]string{"G1"}, []string{"G1a", "G1b", "G1c", "G0"}, []string{"G-single"}},
		{[]string{"G0"}, []string{"G0"}, []string{"G1c"}},
	} {
		got := reportable(c.asked)
		for _, a := range c.in {
			if !got[a] {
				t.Errorf("%v: %s not reported", c.asked, a)
			}
		}
		for _, a := range c.out {
			if got[a] {
				t.Errorf("%v: %s reported", c.asked, a)
			}
		}
	}
}

// TestInputErrorNamesFile checks that a history the model refuses after
// it was read (a micro-operation it does not know) is reported with the
// file's name and line, as a history the reader refuses is.
func TestInputErrorNamesFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "frob.edn")
	write(t, file, `{:type :invoke, :f :txn, :value [[:append :x 1] [:frob :y]], :process 0}
{:type :ok, :f :txn, :value [[:append :x 1] [:frob :y]], :process 0}
`)
	for _, model := range []string{"list-append", "rw-register"} {
		var out, errb bytes.Buffer
		o := &options{model: model, consistency: "strict-serializable", anomalies: "G0", output: "text", plotFormat: "svg", cycleSearchTimeout: 1000}
		code := run(context.Background(), Env{Stdout: &out, Stderr: &errb, Models: suite.Builtin()}, o, []string{file})
		want := "elle-cli: " + history.Quote(file) + ":1: operation txn: micro-operation 2: unknown micro-operation frob"
		if code != ExitException || !strings.HasPrefix(errb.String(), want) {
			t.Errorf("%s: exit %d, stderr %q; want 255 and %q…", model, code, errb.String(), want)
		}
	}
}

// TestHelpModelsCheck: every model --help lists checks a history of its
// own kind from the corpus (exit 0 or 1, never elle-cli's 255 for a model
// it cannot check).
func TestHelpModelsCheck(t *testing.T) {
	corpus := filepath.Join("..", "..", "shared", "corpus")
	files := map[string]string{
		"bank": "jepsen/bank.edn", "cas-register": "knossos/cas-register/bad/rethink-fail-minimal.edn",
		"counter": "jepsen/counter.edn", "list-append": "jepsen/paper-example.edn", "long-fork": "jepsen/long-fork.edn",
		"mutex": "knossos/mutex/bad/etcd.edn", "rw-register": "jepsen/rw-register.edn", "set": "jepsen/set.edn",
		"set-full": "jepsen/set_full.edn",
	}
	for _, m := range checkedNames() {
		rel, ok := files[m]
		if !ok {
			t.Errorf("--help lists %s, and this test has no history for it", m)
			continue
		}
		file := filepath.Join(corpus, rel)
		if _, err := os.Stat(file); err != nil {
			t.Skipf("the corpus is absent: %v", err)
		}
		var out, errb bytes.Buffer
		o := &options{model: m, consistency: "strict-serializable", anomalies: "G0", output: "text", plotFormat: "svg", cycleSearchTimeout: 1000}
		if code := run(context.Background(), Env{Stdout: &out, Stderr: &errb, Models: suite.Builtin()}, o, []string{file}); code != ExitOK && code != ExitInvalid {
			t.Errorf("%s on %s: exit %d, %q %q", m, rel, code, out.String(), errb.String())
		}
	}
}
