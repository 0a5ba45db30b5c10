package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUnreadFileInEveryReport checks that a file that cannot be read is in
// every report form, as an error, and that the run is then not valid.
func TestUnreadFileInEveryReport(t *testing.T) {
	_, h2, _ := textbookFiles(t)
	missing := filepath.Join(t.TempDir(), "missing.json")
	code, out, errs := run(t, nil, "check", "-o", "json", missing, h2)
	if code != ExitError || !strings.Contains(errs, "cannot open") {
		t.Fatalf("json: exit %d, stderr %q", code, errs)
	}
	var rep refusalJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Valid == true || len(rep.Histories) != 2 {
		t.Fatalf("valid %v with %d histories", rep.Valid, len(rep.Histories))
	}
	m := rep.Histories[0]
	if m.File != missing || !strings.Contains(m.Error, "cannot open") || len(m.Results) != 1 ||
		m.Results[0].Valid != "unknown" || !strings.HasPrefix(m.Results[0].Reason, "not checked: ") {
		t.Errorf("missing file's entry: %+v", m)
	}
	code, out, _ = run(t, nil, "check", "-o", "junit", missing, h2)
	if code != ExitError || !strings.Contains(out, `<error message="not checked: `) || strings.Count(out, "<testcase ") != 2 {
		t.Errorf("junit: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, nil, "check", "-c", "all", missing)
	if code != ExitError || strings.Count(out, missing+"\t") != 10 || !strings.Contains(out, missing+"\tpram\tunknown\n") {
		t.Errorf("text, -c all: exit %d\n%s", code, out)
	}
}

// TestReadingStopsOnInterrupt checks that an interrupt ends a run that is
// waiting for its input: standard input that never ends.
func TestReadingStopsOnInterrupt(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan int, 1)
	var out, errb bytes.Buffer
	go func() {
		done <- MainContext(ctx, []string{"check", "-m", "register", "-"}, pr, &out, &errb)
	}()
	if _, err := pw.Write([]byte(`{"process": 0, "type": "invoke", "f": "read"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	cancel(ErrInterrupted)
	select {
	case code := <-done:
		if code != int(ExitUnknown) || !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("exit %d, stderr %q", code, errb.String())
		}
	case <-time.After(time.Minute): // a guard against a hang, not a timer
		t.Fatal("reading did not stop at the interrupt")
	}
}

// cancelOnRead interrupts the run when it is first read, then waits
// forever, as a user typing Ctrl-C while histcheck waits for input.
type cancelOnRead struct {
	cancel context.CancelCauseFunc
	block  chan struct{}
}

func (c *cancelOnRead) Read([]byte) (int, error) {
	c.cancel(ErrInterrupted)
	<-c.block
	return 0, io.EOF
}

// TestInterruptKeepsKnownViolation checks that a violation found before an
// interrupt still makes the run exit 1.
func TestInterruptKeepsKnownViolation(t *testing.T) {
	_, h2, _ := textbookFiles(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	in := &cancelOnRead{cancel: cancel, block: make(chan struct{})}
	defer close(in.block)
	var out, errb bytes.Buffer
	code := MainContext(ctx, []string{"check", h2, "-"}, in, &out, &errb)
	if code != int(ExitInvalid) || !strings.Contains(out.String(), h2+"\tlinearizable\tfalse\n") ||
		!strings.Contains(out.String(), "-\tlinearizable\tunknown\n") {
		t.Errorf("exit %d\n%s%s", code, out.String(), errb.String())
	}
}
