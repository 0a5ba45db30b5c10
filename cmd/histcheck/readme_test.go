package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/cli"
)

// TestReadmeOutput runs the README's first command and compares its output
// with the one the README shows, so that the first screen stays true.
func TestReadmeOutput(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "go run ./cmd/histcheck check -c linearizable,sequential testdata/histories/textbook/*.hist"
	text := string(readme)
	i := strings.Index(text, cmd)
	if i < 0 {
		t.Fatalf("README does not show %q", cmd)
	}
	// The output block is the fenced block after the command's own.
	rest := text[i:]
	for n := 0; n < 2; n++ {
		j := strings.Index(rest, "```")
		if j < 0 {
			t.Fatal("README has no output block after the command")
		}
		rest = rest[j+3:]
		rest = rest[strings.IndexByte(rest, '\n')+1:]
	}
	end := strings.Index(rest, "```")
	if end < 0 {
		t.Fatal("README output block is not closed")
	}
	want := strings.TrimSuffix(rest[:end], "exit status 1\n")

	t.Chdir(filepath.Join("..", ".."))
	files, err := filepath.Glob("testdata/histories/textbook/*.hist")
	if err != nil || len(files) == 0 {
		t.Fatalf("no textbook histories: %v", err)
	}
	var out bytes.Buffer
	code := cli.Main(append([]string{"check", "-c", "linearizable,sequential"}, files...), nil, &out, &out)
	if code != int(cli.ExitInvalid) {
		t.Errorf("exit %d, want %d as the README says", code, cli.ExitInvalid)
	}
	if out.String() != want {
		t.Errorf("README shows:\n%s\nbut the command prints:\n%s", want, out.String())
	}
}

// TestReadmeSim runs the README's scenario example, sim then check, and
// compares the check's output with the one the README shows.
func TestReadmeSim(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "histcheck check stock.json\n```"
	want, ok := blockAfter(string(readme), cmd)
	if !ok {
		t.Fatalf("README does not show %q and its output", cmd)
	}
	for _, c := range []string{"histcheck sim fencing\n", "histcheck sim fencing --emit history -o stock.json\n"} {
		if !strings.Contains(string(readme), c) {
			t.Fatalf("README does not show %q", c)
		}
	}
	t.Chdir(t.TempDir())
	var out bytes.Buffer
	if code := cli.Main([]string{"sim", "fencing", "--emit", "history", "-o", "stock.json"}, nil, &out, &out); code != 0 {
		t.Fatalf("sim: exit %d: %s", code, out.String())
	}
	out.Reset()
	code := cli.Main([]string{"check", "stock.json"}, nil, &out, &out)
	if code != int(cli.ExitInvalid) {
		t.Errorf("check: exit %d, want %d", code, cli.ExitInvalid)
	}
	if out.String() != want {
		t.Errorf("README shows:\n%s\nbut the command prints:\n%s", want, out.String())
	}
}

// blockAfter returns the body of the first fenced block that follows the
// text marker.
func blockAfter(text, marker string) (string, bool) {
	i := strings.Index(text, marker)
	if i < 0 {
		return "", false
	}
	rest := text[i+len(marker):]
	j := strings.Index(rest, "```")
	if j < 0 {
		return "", false
	}
	rest = rest[j+3:]
	rest = rest[strings.IndexByte(rest, '\n')+1:]
	end := strings.Index(rest, "```")
	if end < 0 {
		return "", false
	}
	return rest[:end], true
}
