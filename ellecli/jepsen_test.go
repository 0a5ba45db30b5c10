package ellecli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
)

// ops writes a history of one process's operations, each "F VALUE" with
// the completion's TYPE first: "ok read 5" (the invocation's value nil for
// reads, the completion's otherwise).
func ops(lines ...string) string {
	var sb strings.Builder
	for _, l := range lines {
		p := strings.SplitN(l, " ", 3)
		inv := p[2]
		if p[1] == "read" {
			inv = "nil"
		}
		sb.WriteString("{:process 0, :type :invoke, :f :" + p[1] + ", :value " + inv + "}\n")
		sb.WriteString("{:process 0, :type :" + p[0] + ", :f :" + p[1] + ", :value " + p[2] + "}\n")
	}
	return sb.String()
}

// TestJepsenRefusals checks what elle-cli does with a history one of
// Jepsen's checkers cannot read. elle-cli runs them under Jepsen's
// check-safe, which turns an exception into :valid? :unknown: the file's
// line says unknown, the error goes to standard error, the other files
// are checked and the exit status is theirs. The counter's checker
// asserts its values instead, an error check-safe does not catch: elle-cli
// exits 255 with an empty line and no verdict line, as on Elle's errors.
func TestJepsenRefusals(t *testing.T) {
	bad := map[string]string{
		"counter: an add of a string":        ops(`ok add "x"`),
		"counter: a negative add":            ops("ok add -1"),
		"counter: an add of nil":             ops("ok add nil"),
		"counter: a read of nil":             ops("ok read nil"),
		"set: a read of a number":            ops("ok add 1", "ok read 7"),
		"set-full: a read of a number":       ops("ok add 1", "ok read 7"),
		"bank: a read of a number":           ops("ok read {0 5 1 5}", "ok read 5"),
		"long-fork: a read of a number":      ops("ok txn 3"),
		"long-fork: reads of different keys": ops("ok txn [[:r 0 1] [:r 1 nil]]", "ok txn [[:r 0 1]]"),
	}
	invalid := map[string]string{
		"counter":   ops("ok read 3"),
		"set":       ops("ok add 1", "ok read []"),
		"set-full":  ops("ok add 1", "ok read [1 1]"),
		"bank":      ops("ok read {0 5 1 5}", "ok read {0 5 1 6}"),
		"long-fork": ops("ok txn [[:w 0 1]]", "ok txn [[:w 1 1]]", "ok txn [[:r 0 1] [:r 1 nil]]", "ok txn [[:r 0 nil] [:r 1 1]]"),
	}
	for name, history := range bad {
		model, _, _ := strings.Cut(name, ":")
		assertion := strings.HasPrefix(name, "counter: an add of a string") || strings.HasPrefix(name, "counter: a negative")
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file, other := filepath.Join(dir, "bad.edn"), filepath.Join(dir, "invalid.edn")
			write(t, file, history)
			write(t, other, invalid[model])
			var out, errb bytes.Buffer
			o := &options{model: model, output: "text", plotFormat: "svg", cycleSearchTimeout: 1000}
			code := run(context.Background(), Env{Stdout: &out, Stderr: &errb, Models: suite.Builtin()}, o, []string{file, other})
			if !strings.Contains(errb.String(), file+":") || strings.Contains(errb.String(), "does not match") {
				t.Errorf("stderr %q: want the error naming %s", errb.String(), file)
			}
			if assertion {
				if code != ExitException || out.String() != "\n" {
					t.Errorf("exit %d, stdout %q; want 255 and an empty line, no verdict line", code, out.String())
				}
				return
			}
			if want := Line(file, checker.Unknown) + Line(other, checker.False); code != ExitInvalid || out.String() != want {
				t.Errorf("exit %d, stdout %q; want 1 and %q", code, out.String(), want)
			}
			out.Reset()
			o.output = "json"
			code = run(context.Background(), Env{Stdout: &out, Stderr: &errb, Models: suite.Builtin()}, o, []string{file})
			var got jsonResult
			if err := json.Unmarshal(out.Bytes(), &got); err != nil || code != ExitOK || got.Valid != checker.Unknown ||
				!strings.HasPrefix(got.Error, file+":") || len(got.Results) != 1 || got.Results[0].Valid != checker.Unknown {
				t.Errorf("json: exit %d, %v\n%s", code, err, out.String())
			}
		})
	}
}
