package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/histcheck/histcheck/cli"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"histcheck": func() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the command-line acceptance scripts in testdata. Scripts
// find the bundled example histories under $ROOT/testdata and the shared
// corpus under $CORPUS (condition [corpus]), and assert exit codes with
// "exitcode N histcheck ...".
func TestScripts(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(root, "..", "shared", "corpus")
	testscript.Run(t, testscript.Params{
		Dir: "testdata",
		Setup: func(env *testscript.Env) error {
			env.Setenv("ROOT", root)
			env.Setenv("CORPUS", corpus)
			return nil
		},
		// [corpus] holds when the shared corpus of recorded histories is
		// beside the project; scripts that read it skip otherwise.
		Condition: func(cond string) (bool, error) {
			if cond != "corpus" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			_, err := os.Stat(corpus)
			return err == nil, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": exitcode,
		},
	})
}

// exitcode runs a command and fails unless it exits with the given status;
// its output is then available to stdout and stderr as after exec.
func exitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("exitcode does not support negation")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exitcode N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: bad status %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}
