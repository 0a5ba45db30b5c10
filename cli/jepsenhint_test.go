package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJepsenWorkloadHint checks that -m counter and -m set say on stderr,
// in one line, that Jepsen's checker is jepsen-counter or jepsen-set when
// the history looks like that Jepsen workload, and only then; the
// verdict is the one asked for either way.
func TestJepsenWorkloadHint(t *testing.T) {
	const counter = `{:process 0 :type :invoke :f :add :value 1}
{:process 1 :type :invoke :f :read :value nil}
{:process 0 :type :ok :f :add :value 1}
{:process 1 :type :ok :f :read :value 1}
{:process 2 :type :invoke :f :add :value 2}
{:process 2 :type :ok :f :add :value 2}
{:process 1 :type :invoke :f :read :value nil}
{:process 1 :type :ok :f :read :value 3}
`
	const set = `{:process 0 :type :invoke :f :add :value 1}
{:process 1 :type :invoke :f :add :value 2}
{:process 0 :type :ok :f :add :value 1}
{:process 1 :type :ok :f :add :value 2}
{:process 2 :type :invoke :f :read :value nil}
{:process 2 :type :ok :f :read :value [1 2]}
`
	const setReadEarly = `{:process 0 :type :invoke :f :add :value 1}
{:process 0 :type :ok :f :add :value 1}
{:process 2 :type :invoke :f :read :value nil}
{:process 2 :type :ok :f :read :value [1]}
{:process 1 :type :invoke :f :add :value 2}
{:process 1 :type :ok :f :add :value 2}
`
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, model, file string
		verdict           string // the verdict line's end
		hint              string // "" when no note is due
	}{
		{"jepsen counter", "counter", file("counter.edn", counter), "linearizable\ttrue", "-m jepsen-counter"},
		{"jepsen counter, its checker", "jepsen-counter", file("counter2.edn", counter), "jepsen\ttrue", ""},
		{"counter with a negative add", "counter", file("neg.edn", strings.Replace(counter, ":value 2}", ":value -2}", 2)), "linearizable\tfalse", ""},
		{"counter in the notation", "counter", file("counter.hist", "A: add(1) [0, 1]\nB: r(1) [2, 3]\n"), "linearizable\ttrue", ""},
		{"jepsen set", "set", file("set.edn", set), "linearizable\ttrue", "-m jepsen-set"},
		{"set read before the last add", "set", file("early.edn", setReadEarly), "linearizable\ttrue", ""},
		{"jepsen set, its checker", "jepsen-set", file("set2.edn", set), "jepsen\ttrue", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, out, errs := run(t, nil, "check", "-m", tt.model, tt.file)
			if first, _, _ := strings.Cut(out, "\n"); !strings.HasSuffix(first, tt.verdict) {
				t.Errorf("verdict line %q, want …%q", first, tt.verdict)
			}
			notes := 0
			for _, line := range strings.Split(errs, "\n") {
				if strings.Contains(line, "looks like Jepsen's") {
					notes++
					if tt.hint == "" || !strings.HasSuffix(line, tt.hint) || !strings.HasPrefix(line, tt.file+": note: ") {
						t.Errorf("note %q, want one ending %q", line, tt.hint)
					}
				}
			}
			if want := min(len(tt.hint), 1); notes != want {
				t.Errorf("%d notes, want %d; stderr:\n%s", notes, want, errs)
			}
		})
	}
}
