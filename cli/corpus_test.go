package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/internal/corpus"
)

// TestCorpus runs "check --summary" on every recorded history of the shared
// corpus with the settings its EXPECTED.tsv gives, and asserts that each
// file parses and gets the expected verdict and exit status.
func TestCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	rows := corpus.Expected(t, dir)
	listed := map[string]bool{}
	for _, row := range rows {
		path := row.Path(dir)
		listed[filepath.Clean(path)] = true
		// Verdicts only: cores have tests of their own, and shrinking
		// every invalid history here would take minutes.
		args := []string{"check", "--summary", "--no-core", "-m", row.Model, "--timeout", "60s"}
		if row.Init != "-" && row.Model != "mutex" {
			args = append(args, "--init", row.Init)
		}
		if row.NilRead == "value" || row.NilRead == "any" {
			args = append(args, "--nil-read", row.NilRead)
		}
		args = append(args, path)
		want, verdict := ExitOK, "true"
		if row.Expected == "invalid" {
			want, verdict = ExitInvalid, "false"
		}
		var out, errb bytes.Buffer
		code := ExitCode(Main(args, nil, &out, &errb))
		name := row.Dir + "/" + row.File
		if code != want {
			t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", name, code, want, clip(out.String()), clip(errb.String()))
			continue
		}
		summary := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(path) + `: [1-9]\d* ops \(`)
		if !summary.MatchString(out.String()) {
			t.Errorf("%s: no summary line in\n%s", name, clip(out.String()))
		}
		line := path + "\tlinearizable\t" + verdict + "\n"
		if !strings.Contains(out.String(), line) {
			t.Errorf("%s: no line %q in\n%s", name, line, clip(out.String()))
		}
	}

	// Files the tables do not list must still parse, except in jepsen/:
	// transactions and the inputs of Jepsen's own checkers, which
	// histcheck does not read yet.
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "jepsen" {
			return filepath.SkipDir
		}
		if err != nil || d.IsDir() || listed[filepath.Clean(path)] {
			return err
		}
		base := d.Name()
		if base == "EXPECTED.tsv" || strings.HasSuffix(base, ".md") {
			return nil
		}
		var out, errb bytes.Buffer
		if code := ExitCode(Main([]string{"check", "--summary", "--no-check", path}, nil, &out, &errb)); code != ExitOK {
			t.Errorf("%s: unlisted file does not parse (exit %d): %s", path, code, errb.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + fmt.Sprintf("… (%d more bytes)", len(s)-2000)
	}
	return s
}
