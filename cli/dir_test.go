package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckDirectory checks that a folder of history files is checked
// file by file, in path order, with its subfolders under --recursive, and
// that files that are not histories are skipped with a note, while a
// Jepsen store directory still gives its newest run and an empty folder is
// refused.
func TestCheckDirectory(t *testing.T) {
	textbook := filepath.Join("..", "testdata", "histories", "textbook")
	plain := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(plain, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.hist", "A: w(1) [0, 1]\nB: r(1) [2, 3]\n")
	write("a.hist", "A: w(1) [0, 1]\nB: r(0) [2, 3]\n")
	write("notes.md", "some words, not a history\n")
	write("sub/c.hist", "A: w(2) [0, 1]\n")
	root := t.TempDir()
	store := filepath.Join(root, "register")
	for _, run := range []string{"20240101T000000", "20240102T000000"} {
		p := filepath.Join(store, run, "history.edn")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{:process 0 :type :invoke :f :read :value nil}\n{:process 0 :type :ok :f :read :value nil}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(store, run, "results.edn"), []byte("{:valid? true}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	empty := t.TempDir()
	tests := []struct {
		name      string
		args      []string
		code      ExitCode
		checked   []string // files with a verdict line, in order
		skipped   []string // files noted as skipped
		errSubstr string
	}{
		{"textbook", []string{"check", textbook}, ExitInvalid,
			[]string{"h1.hist", "h2.hist", "h3.hist"}, []string{"json"}, ""},
		{"textbook recursive", []string{"check", "-r", textbook}, ExitInvalid,
			[]string{"h1.hist", "h2.hist", "h3.hist", "h1-ops.json", "h1-tuples.json", "h2-ops.json", "h2-tuples.json", "h3-ops.json", "h3-tuples.json"}, nil, ""},
		{"plain", []string{"check", plain}, ExitInvalid,
			[]string{"a.hist", "b.hist"}, []string{"notes.md", "sub"}, "not a history"},
		{"plain recursive", []string{"check", "--recursive", plain}, ExitInvalid,
			[]string{"a.hist", "b.hist", "c.hist"}, []string{"notes.md"}, "not a history"},
		{"store all runs", []string{"check", "--all-runs", store}, ExitOK,
			[]string{"20240101T000000/history.edn", "20240102T000000/history.edn"}, nil, ""},
		{"store root recursive", []string{"check", "-r", root}, ExitOK,
			[]string{"20240101T000000/history.edn", "20240102T000000/history.edn"}, nil, ""},
		{"store newest", []string{"check", store}, ExitOK,
			[]string{"20240102T000000/history.edn"}, nil, ""},
		{"empty", []string{"check", empty}, ExitError, []string{filepath.Base(empty)}, nil, "no Jepsen run in it and no history file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := run(t, nil, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errs)
			}
			var got []string
			for _, line := range strings.Split(out, "\n") {
				if f, _, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(line, " ") {
					got = append(got, filepath.ToSlash(f))
				}
			}
			if len(got) != len(tt.checked) {
				t.Fatalf("checked %q, want %d files ending %q", got, len(tt.checked), tt.checked)
			}
			for i, w := range tt.checked {
				if !strings.HasSuffix(got[i], "/"+w) {
					t.Errorf("file %d is %s, want …/%s", i, got[i], w)
				}
			}
			for _, s := range tt.skipped {
				if !strings.Contains(errs, string(filepath.Separator)+s+": skipped: ") {
					t.Errorf("no note that %s was skipped:\n%s", s, errs)
				}
			}
			if len(tt.skipped) == 0 && strings.Contains(errs, "skipped") {
				t.Errorf("unexpected skip note:\n%s", errs)
			}
			if !strings.Contains(errs, tt.errSubstr) {
				t.Errorf("stderr lacks %q:\n%s", tt.errSubstr, errs)
			}
		})
	}
}
