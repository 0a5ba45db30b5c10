package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOrder checks the histories whose verdict depends on how operations
// are ordered: a process runs one operation after another even when its
// times touch, and Jepsen events are in the order of the file unless time
// order is asked for.
func TestOrder(t *testing.T) {
	dir := filepath.Join("..", "testdata", "histories", "order")
	for _, tc := range []struct {
		name string
		args []string
		want ExitCode
		out  []string // lines the output must hold
		note string   // what the summary must warn, if anything
	}{
		{"touching-process.hist", []string{"-c", "linearizable,sequential"}, ExitInvalid,
			[]string{"\tlinearizable\tfalse", "\tsequential\tfalse"}, ""},
		{"set-lost-add.edn", []string{"-m", "set"}, ExitInvalid, []string{"\tlinearizable\tfalse"}, ""},
		{"set-lost-add.edn", []string{"-m", "set", "--order", "times"}, ExitInvalid, []string{"\tlinearizable\tfalse"}, ""},
		{"stale-read-file-order.json", []string{"-m", "register", "--init", "0"}, ExitInvalid,
			[]string{"\tlinearizable\tfalse"},
			"the times of 2 event(s) contradict their order in the input, first line 3 (time 5) after line 2 (time 20); the events are ordered as in the input"},
		{"stale-read-file-order.json", []string{"-m", "register", "--init", "0", "--order", "events"}, ExitInvalid,
			[]string{"\tlinearizable\tfalse"}, "the events are ordered as in the input"},
		{"stale-read-file-order.json", []string{"-m", "register", "--init", "0", "--order", "times"}, ExitOK,
			[]string{"\tlinearizable\ttrue"}, "the events are ordered by their times"},
		// A client goes on after a read of unknown outcome: its next read
		// still starts after the write it completed (a new logical
		// process, but the same client), so reading 0 is stale.
		{"client-after-info.json", nil, ExitInvalid, []string{"\tlinearizable\tfalse"}, ""},
		// Both processes end a put and start a get at 5: each key is
		// linearizable alone, but no order keeps both processes' order
		// and the overlaps of their operations; sequential consistency
		// refutes it.
		{"tangled-keys.json", []string{"-c", "linearizable,sequential"}, ExitInvalid,
			[]string{"\tlinearizable\tunknown", "\tsequential\tfalse"}, ""},
	} {
		t.Run(tc.name+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			args := append(append([]string{"check", "--summary"}, tc.args...), path)
			code, out, errs := run(t, nil, args...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.want, out, errs)
			}
			for _, l := range tc.out {
				if !strings.Contains(out, path+l+"\n") {
					t.Errorf("no line %q in\n%s", path+l, out)
				}
			}
			if tc.note != "" && !strings.Contains(out, tc.note) {
				t.Errorf("no warning %q in\n%s", tc.note, out)
			}
			if tc.note == "" && strings.Contains(out, "contradict") {
				t.Errorf("unexpected warning in\n%s", out)
			}
		})
	}
	code, _, errs := run(t, nil, "check", "--order", "clock", filepath.Join(dir, "touching-process.hist"))
	if code != ExitError || !strings.Contains(errs, `unknown --order "clock" (accepted: events, times)`) {
		t.Errorf("--order clock: exit %d, %q", code, errs)
	}
}
