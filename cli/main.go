// Package cli is the histcheck command line: it wires flags to the readers,
// the checkers and the reports. A team can ship histcheck with its own
// models by calling Main with them:
//
//	func main() {
//		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr,
//			suite.Bind(mymodel.New)))
//	}
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/ellecli"
	"github.com/histcheck/histcheck/history"
)

// ExitCode is the status histcheck exits with.
type ExitCode int

// Exit codes. They rank so that the worst outcome of a run wins: an error
// beats a violation, a violation beats an unknown verdict.
const (
	// ExitOK: every verdict is true.
	ExitOK ExitCode = 0
	// ExitInvalid: some verdict is false.
	ExitInvalid ExitCode = 1
	// ExitUnknown: some verdict is unknown and none is false.
	ExitUnknown ExitCode = 2
	// ExitError: bad usage, unreadable input, or an internal error.
	ExitError ExitCode = 3
)

// worse returns the code that should win when a run has both outcomes.
func worse(a, b ExitCode) ExitCode {
	rank := func(c ExitCode) int {
		switch c {
		case ExitError:
			return 3
		case ExitInvalid:
			return 2
		case ExitUnknown:
			return 1
		}
		return 0
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// Version is histcheck's release version.
const Version = "0.1.0"

// env is what every command works with: the streams and the models.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	models         []suite.Model
	// progress shows long checks on a terminal's standard error; nil
	// otherwise.
	progress *progress
}

// exitError carries an exit code out of a command; its message, if any, has
// already been printed.
type exitError struct{ code ExitCode }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// Main runs histcheck with args (without the program name) and returns the
// exit status. Models in extra are offered besides the built-in ones; one
// with a built-in model's name replaces it.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, extra ...suite.Model) int {
	return MainContext(context.Background(), args, stdin, stdout, stderr, extra...)
}

// ErrInterrupted is the cause a front end gives the context it cancels when
// the user interrupts histcheck (SIGINT, SIGTERM): checks stop, what is
// known so far is printed, and the exit status is 2 (ExitUnknown).
var ErrInterrupted = check.ErrInterrupted

// MainContext is Main under a context: cancelling it with cause
// ErrInterrupted (see context.WithCancelCause) stops the checks in flight.
func MainContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, extra ...suite.Model) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, models: models(extra), progress: newProgress(stderr)}
	root := newRoot(e, args)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return int(ExitOK)
	}
	var xe *exitError
	if errors.As(err, &xe) {
		return int(xe.code)
	}
	if ee := (*ellecli.ExitError)(nil); errors.As(err, &ee) {
		return ee.Code
	}
	fmt.Fprintf(stderr, "histcheck: %s\n", history.Escape(err.Error()))
	if cmd, _, ferr := root.Find(args); ferr == nil && cmd != nil {
		fmt.Fprintf(stderr, "run '%s --help' for usage\n", cmd.CommandPath())
	}
	return int(ExitError)
}

func models(extra []suite.Model) []suite.Model {
	out := suite.Builtin()
	for _, m := range extra {
		replaced := false
		for i := range out {
			if out[i].Info.Name == m.Info.Name {
				out[i], replaced = m, true
			}
		}
		if !replaced {
			out = append(out, m)
		}
	}
	return out
}

// newRoot builds the command tree for args: when args name one of
// histcheck's commands first, only that command is built, since building
// all of them (every scenario of sim with its flags) costs a short run
// more than a millisecond in fresh memory; otherwise (help, a flag, a
// mistyped name, completion) all of them, so that cobra can list them and
// suggest one.
func newRoot(e *env, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "histcheck",
		Short: "Check histories of concurrent operations for consistency",
		Long: "histcheck decides whether a recorded history of concurrent operations is linearizable,\n" +
			"sequentially consistent, causally consistent or keeps the session guarantees, against a\n" +
			"model, and explains why: a witness order when it holds, the violating operations when not.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })
	root.CompletionOptions.DisableDefaultCmd = true
	for _, c := range commands {
		if len(args) > 0 && args[0] == c.name {
			root.AddCommand(c.build(e))
			return root
		}
	}
	for _, c := range commands {
		root.AddCommand(c.build(e))
	}
	return root
}

// commands are histcheck's commands, each with the name it is called by.
var commands = []struct {
	name  string
	build func(*env) *cobra.Command
}{
	{"check", newCheckCmd},
	{"convert", newConvertCmd},
	{"sim", newSimCmd},
	{"models", newModelsCmd},
	{"version", newVersionCmd},
	{"elle-cli", func(e *env) *cobra.Command {
		return ellecli.Command(ellecli.Env{Stdout: e.stdout, Stderr: e.stderr, Models: e.models, Version: Version})
	}},
}
