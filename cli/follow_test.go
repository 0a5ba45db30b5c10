package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// staleRead is a register history whose fourth event completes a stale
// read: the read of 1 begins after the write of 2 returned.
const staleRead = `{"process":0,"type":"invoke","f":"write","value":1}
{"process":0,"type":"ok","f":"write","value":1}
{"process":0,"type":"invoke","f":"write","value":2}
{"process":0,"type":"ok","f":"write","value":2}
{"process":1,"type":"invoke","f":"read","value":null}
{"process":1,"type":"ok","f":"read","value":1}
`

// TestFollowInput follows histories from standard input: the verdict at
// the end, the violation with its core as it is found, and input that
// stops mid-line or breaks: the error names the line, and what was found
// before it stands.
func TestFollowInput(t *testing.T) {
	cases := []struct {
		name, in string
		code     int
		stdout   []string
		stderr   []string
	}{
		{"linearizable", staleRead[:strings.Index(staleRead, `{"process":1`)], 0,
			[]string{"-\tlinearizable\ttrue"}, []string{"6 events read"[:0] + "4 events read"}},
		{"stale read", staleRead, 1,
			[]string{"core:", "-\tlinearizable\tfalse"}, []string{"violation found after 6 events"}},
		{"writer killed mid-line", staleRead + `{"process":2,"type":"inv`, 1,
			[]string{"-\tlinearizable\tfalse"}, []string{"<stdin>:7: the input ends inside a line"}},
		{"malformed line before the violation", strings.Replace(staleRead, `{"process":1,"type":"ok"`, `{"process":1,"type":"ok",,`, 1), 3,
			[]string{"-\tlinearizable\tunknown"}, []string{"<stdin>:6:"}},
		{"malformed line after the violation", staleRead + "not an event\n", 1,
			[]string{"-\tlinearizable\tfalse"}, []string{"<stdin>:7:", "violation found"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := Main([]string{"check", "--follow", "-", "-m", "register", "--init", "0"}, strings.NewReader(c.in), &out, &errb)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out.String(), errb.String())
			}
			for _, w := range c.stdout {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range c.stderr {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb.String())
				}
			}
		})
	}
}

// TestFollowTruncated follows a file that is cut shorter while it is
// followed: the reader says so once it has read what was there.
func TestFollowTruncated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, []byte(staleRead), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fr := newFollowReader(ctx, f, true, 0)
	got, err := io.ReadAll(io.LimitReader(fr, int64(len(staleRead))))
	if err != nil || len(got) != len(staleRead) {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	if err := os.Truncate(path, 10); err != nil {
		t.Fatal(err)
	}
	_, err = fr.Read(make([]byte, 10))
	if err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("after truncation: %v, want an error that says the file was truncated", err)
	}
}

// TestFollowJSON: the JSON report of a followed history carries its
// verdict at the top as well as per criterion.
func TestFollowJSON(t *testing.T) {
	for _, c := range []struct {
		in, want string
		code     int
	}{
		{staleRead[:strings.Index(staleRead, `{"process":1`)], `"valid": true`, 0},
		{staleRead, `"valid": false`, 1},
	} {
		var out, errb bytes.Buffer
		code := Main([]string{"check", "--follow", "-", "-m", "register", "--init", "0", "-o", "json"}, strings.NewReader(c.in), &out, &errb)
		head, _, _ := strings.Cut(out.String(), `"histories"`)
		if code != c.code || !strings.Contains(head, c.want) {
			t.Errorf("exit %d, want %d; want %s before the histories:\n%s", code, c.code, c.want, out.String())
		}
	}
}
