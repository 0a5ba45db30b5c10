package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUnpaired checks histories whose completions have no recorded
// invocation, as Elle's own histories are written: each such operation
// may have begun any time after its process's previous completion (or at
// the start), so real time orders it only after what surely finished
// before that, in event order and in time order alike; and :time -1 is
// read as no time.
func TestUnpaired(t *testing.T) {
	dir := filepath.Join("..", "testdata", "histories", "unpaired")
	for _, tc := range []struct {
		name string
		args []string
		want ExitCode
		out  string // a line the output must hold, after the file name
	}{
		// Elle's README: Elle finds G1c.
		{"elle-readme.edn", []string{"-m", "list-append"}, ExitInvalid, "\tstrict-serializable\tfalse"},
		{"elle-readme.edn", []string{"-m", "list-append", "-c", "serializable"}, ExitInvalid, "\tserializable\tfalse"},
		{"elle-readme-printed.edn", []string{"-m", "list-append", "-c", "serializable"}, ExitInvalid, "\tserializable\tfalse"},
		// A read with no invocation may have begun before the second
		// write: its call is not narrowed to its completion.
		{"read-from-start.edn", nil, ExitOK, "\tlinearizable\ttrue"},
		{"read-from-start.edn", []string{"-c", "sequential"}, ExitOK, "\tsequential\ttrue"},
		{"read-from-start-timed.jsonl", nil, ExitOK, "\tlinearizable\ttrue"},
		{"read-from-start-timed.jsonl", []string{"--order", "times"}, ExitOK, "\tlinearizable\ttrue"},
		// But it began after its own process's previous read completed.
		{"read-after-own.edn", nil, ExitInvalid, "\tlinearizable\tfalse"},
		{"read-after-own-timed.jsonl", nil, ExitInvalid, "\tlinearizable\tfalse"},
		{"read-after-own-timed.jsonl", []string{"--order", "times"}, ExitInvalid, "\tlinearizable\tfalse"},
		// Elle's unobserved-write test: one process invokes five
		// transactions at once; each completion pairs by its value,
		// and Elle finds G-single-item and G0.
		{"elle-unobserved-write.edn", []string{"-m", "list-append", "-c", "serializable"}, ExitInvalid, "\tserializable\tfalse"},
		// A process's read invoked while its write is open is concurrent
		// with it, under every criterion.
		{"overlap-read.jsonl", []string{"-m", "register", "--init", "0", "-c", "all"}, ExitOK, "\tread-your-writes\ttrue"},
		// No time at all cannot be ordered by times: said, not guessed.
		// (Which criterion the line names is the reporting's business.)
		{"elle-readme-printed.edn", []string{"-m", "list-append", "--order", "times"}, ExitError, "\tunknown"},
	} {
		t.Run(tc.name+" "+strings.Join(tc.args, " "), func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			args := append(append([]string{"check"}, tc.args...), path)
			code, out, errs := run(t, nil, args...)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.want, out, errs)
			}
			if !strings.Contains(out, path+tc.out+"\n") && (tc.want != ExitError || !strings.Contains(out, tc.out+"\n")) {
				t.Errorf("no line %q in\n%s%s", path+tc.out, out, errs)
			}
			if tc.name == "elle-unobserved-write.edn" && (!strings.Contains(out, "violation (G0)") || !strings.Contains(out, "violation (G-single-item)")) {
				t.Errorf("want G0 and G-single-item, as Elle finds, in\n%s", out)
			}
			if code == ExitError && !strings.Contains(out+errs, "the events carry no times") {
				t.Errorf("the reason is not given:\n%s%s", out, errs)
			}
		})
	}
}
