package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/cli"
)

// elleCliDir holds elle-cli's test.sh, with its command changed to
// "histcheck elle-cli", its expected verdicts and the histories kept here.
var elleCliDir = filepath.Join("testdata", "elle-cli")

// jepsenModels are elle-cli's models checked with Jepsen's checkers, and
// histcheck's names for them.
var jepsenModels = map[string]string{
	"counter": "jepsen-counter", "set": "jepsen-set", "set-full": "set-full", "bank": "bank", "long-fork": "long-fork",
}

// elleCliCase is one command of test.sh with what elle-cli answers.
type elleCliCase struct {
	command, model, file, verdict, source string
	exit                                  int
}

// TestElleCliSuite runs each command of elle-cli's test.sh against
// histcheck elle-cli, from a directory laid out as elle-cli's repository,
// and compares its line and exit status with elle-cli's.
func TestElleCliSuite(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run test.sh with")
	}
	header, cases := elleCliCases(t)
	dir := elleCliWorkdir(t, cases)
	builtin := map[string]bool{}
	for _, m := range suite.Builtin() {
		builtin[m.Info.Name] = true
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%02d-%s", i+1, filepath.Base(c.file)), func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, c.file)); err != nil {
				t.Skipf("%s is not available to the test (%s; see testdata/elle-cli/README.md)", c.file, c.source)
			}
			stdout, stderr, code := runSh(t, dir, header+"\n"+c.command)
			if m, ok := jepsenModels[c.model]; ok && !builtin[m] {
				// Jepsen's checkers are not among histcheck's models yet.
				if code != 255 || !strings.Contains(stderr, "unknown model") {
					t.Fatalf("%s: exit %d, stderr %q; want 255 and unknown model %q until it is built in", c.command, code, stderr, m)
				}
				return
			}
			want := fmt.Sprintf("%s \t %s\n", c.file, c.verdict)
			if stdout != want || code != c.exit {
				t.Errorf("%s:\n got %q, exit %d (stderr %q)\nwant %q, exit %d", c.command, stdout, code, stderr, want, c.exit)
			}
		})
	}
}

// TestElleCliScript runs test.sh whole: like elle-cli, it prints the line
// of its first history, which is invalid, and stops there (set -e) with
// status 1.
func TestElleCliScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run test.sh with")
	}
	_, cases := elleCliCases(t)
	dir := elleCliWorkdir(t, cases)
	stdout, stderr, code := runSh(t, dir, ". ./test.sh")
	want := cases[0].file + " \t false\n"
	if stdout != want || code != 1 {
		t.Errorf("test.sh: got %q, exit %d (stderr %q); want %q, exit 1", stdout, code, stderr, want)
	}
}

// elleCliCases reads test.sh's commands, with the settings before them
// (header), and pairs them with expected.tsv's lines.
func elleCliCases(t *testing.T) (string, []elleCliCase) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join(elleCliDir, "test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var header []string
	var cases []elleCliCase
	for _, line := range strings.Split(string(script), "\n") {
		switch {
		case strings.HasPrefix(line, "$ELLE_CLI_BIN"):
			f := strings.Fields(line)
			cases = append(cases, elleCliCase{command: line, model: f[2], file: f[3]})
		case len(cases) == 0 && strings.Contains(line, "="):
			header = append(header, line)
		}
	}
	exp := readExpected(t)
	if len(exp) != len(cases) {
		t.Fatalf("test.sh has %d commands, expected.tsv %d lines", len(cases), len(exp))
	}
	for i := range cases {
		cases[i].verdict, cases[i].exit, cases[i].source = exp[i].verdict, exp[i].exit, exp[i].source
	}
	return strings.Join(header, "\n"), cases
}

func readExpected(t *testing.T) []elleCliCase {
	t.Helper()
	f, err := os.Open(filepath.Join(elleCliDir, "expected.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []elleCliCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sc.Text() == "" || strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		col := strings.Split(sc.Text(), "\t")
		if len(col) != 3 {
			t.Fatalf("expected.tsv: %q has %d columns, want 3", sc.Text(), len(col))
		}
		code, err := strconv.Atoi(col[1])
		if err != nil {
			t.Fatalf("expected.tsv: %v", err)
		}
		out = append(out, elleCliCase{verdict: col[0], exit: code, source: col[2]})
	}
	return out
}

// elleCliWorkdir lays out a directory as elle-cli's repository: test.sh,
// the histories kept here, and those the shared corpus has, when it is
// beside the project.
func elleCliWorkdir(t *testing.T, cases []elleCliCase) string {
	t.Helper()
	dir := t.TempDir()
	copyFile(t, filepath.Join(elleCliDir, "test.sh"), filepath.Join(dir, "test.sh"))
	corpus := filepath.Join("..", "..", "..", "shared", "corpus")
	for _, c := range cases {
		dst := filepath.Join(dir, c.file)
		kind, path, _ := strings.Cut(c.source, ":")
		switch kind {
		case "testdata":
			copyFile(t, filepath.Join(elleCliDir, c.file), dst)
		case "corpus":
			if _, err := os.Stat(filepath.Join(corpus, path)); err == nil {
				copyFile(t, filepath.Join(corpus, path), dst)
			}
		case "converted":
			if _, err := os.Stat(filepath.Join(corpus, path)); err == nil {
				mkdirFor(t, dst)
				var out, errb bytes.Buffer
				if code := cli.Main([]string{"convert", "--to", "json", "-o", dst, filepath.Join(corpus, path)}, nil, &out, &errb); code != 0 {
					t.Fatalf("converting %s: exit %d: %s", path, code, errb.String())
				}
			}
		}
	}
	return dir
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	mkdirFor(t, dst)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdirFor(t *testing.T, file string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
}

// runSh runs script with sh in dir, histcheck on its PATH (TestMain), and
// returns its output and exit status.
func runSh(t *testing.T, dir, script string) (string, string, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &ee):
		return stdout.String(), stderr.String(), ee.ExitCode()
	}
	t.Fatalf("running sh: %v", err)
	return "", "", 0
}
