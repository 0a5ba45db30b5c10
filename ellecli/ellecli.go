// Package ellecli is histcheck's drop-in for elle-cli's command line
// ("histcheck elle-cli"): elle-cli's flags, its model names mapped to
// histcheck's models and criteria, its output line "FILE \t VALID", its
// exit codes, and --directory writing a text file and a web page per
// anomaly class found. A script written for elle-cli switches by changing
// the command it runs; docs/elle-cli.md says what maps to what.
package ellecli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
)

// Exit codes, elle-cli's: 1 when some history is invalid or the model does
// not match a history, 255 when a check could not be done at all (elle-cli
// exits so on an exception). An unknown verdict exits 0, as in elle-cli.
const (
	ExitOK        = 0
	ExitInvalid   = 1
	ExitException = 255
)

// ExitError carries the exit status of the command out of cobra; what it
// has to say has been printed already.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Env is what the command works with.
type Env struct {
	Stdout, Stderr io.Writer
	// Models are the models to check with (suite.Builtin and any others).
	Models []suite.Model
	// Version is histcheck's version, for --version.
	Version string
}

// options are elle-cli's flags.
type options struct {
	model, format, output          string
	verbose, version               bool
	consistency, anomalies         string
	cycleSearchTimeout             int
	directory, plotFormat          string
	plotTimeout, maxPlotBytes      int
	groupSize                      int
	negativeBalances               bool
	maxTransfer, totalAmount       int
	maxTransferSet, totalAmountSet bool
}

// Command returns the "elle-cli" command.
func Command(env Env) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "elle-cli --model MODEL [options] FILE...",
		Short: "Check histories as elle-cli does: its flags, models, output line and exit codes",
		Long: "Check each history FILE with elle-cli's command line and print, per file, elle-cli's line\n" +
			"FILE \\t true|false|unknown. Models: " + strings.Join(checkedNames(), ", ") + ".\n" +
			"(elle-cli's experimental comments and sequential checkers are not among them: histcheck refuses them.)\n\n" +
			"Exit status: 0 no history invalid, 1 some history invalid or the model does not match a\n" +
			"history, 255 a history could not be checked. See docs/elle-cli.md for what maps to what.",
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, files []string) error {
			o.maxTransferSet = cmd.Flags().Changed("max-transfer")
			o.totalAmountSet = cmd.Flags().Changed("total-amount")
			if o.version {
				fmt.Fprintf(env.Stdout, "elle-cli (histcheck %s)\n", env.Version)
				return nil
			}
			if o.model == "" {
				return cmd.Help()
			}
			return exit(run(cmd.Context(), env, o, files))
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		// elle-cli prints what it could not parse on standard output and
		// exits 1.
		fmt.Fprintln(env.Stdout, history.Escape(err.Error()))
		return &ExitError{Code: ExitInvalid}
	})
	addFlags(cmd, o)
	return cmd
}

func addFlags(cmd *cobra.Command, o *options) {
	f := cmd.Flags()
	f.StringVarP(&o.model, "model", "m", "", "(General) the model to check against: "+strings.Join(checkedNames(), ", "))
	f.StringVarP(&o.format, "format", "f", "", "(General) format of the history: edn or json (default: by the file's extension, else detected)")
	f.StringVarP(&o.output, "output", "v", "text", "(General) output form: text or json")
	f.BoolVar(&o.verbose, "verbose", false, "(General) the same as --output json")
	f.BoolVar(&o.version, "version", false, "(General) print the version and exit")
	f.StringVarP(&o.consistency, "consistency-models", "c", "strict-serializable", "(Elle) comma-separated consistency models the history should obey")
	f.StringVarP(&o.anomalies, "anomalies", "a", "G0", "(Elle) comma-separated anomalies to look for")
	f.IntVarP(&o.cycleSearchTimeout, "cycle-search-timeout", "s", 1000, "(Elle) how much the cycle search may do, in elle-cli's milliseconds (see docs/elle-cli.md)")
	f.StringVarP(&o.directory, "directory", "d", "", "(Elle) write a text file and a web page per anomaly class found into this directory")
	f.StringVarP(&o.plotFormat, "plot-format", "p", "svg", "(Elle) svg or png; accepted, histcheck draws web pages instead of plots")
	f.IntVarP(&o.plotTimeout, "plot-timeout", "t", 5000, "(Elle) accepted and ignored: nothing is rendered by Graphviz")
	f.IntVarP(&o.maxPlotBytes, "max-plot-bytes", "b", 65536, "(Elle) accepted and ignored: nothing is rendered by Graphviz")
	f.IntVarP(&o.groupSize, "group-size", "g", 0, "(Jepsen) the group size of long-fork")
	f.BoolVarP(&o.negativeBalances, "allow-negative-balances", "n", false, "(Bank) allow negative balances")
	f.IntVar(&o.maxTransfer, "max-transfer", 0, "(Bank) the largest transfer")
	f.IntVarP(&o.totalAmount, "total-amount", "o", 0, "(Bank) the total amount over all accounts")
}

// exit turns a status into the command's error.
func exit(code int) error {
	if code == ExitOK {
		return nil
	}
	return &ExitError{Code: code}
}

// run checks every file and returns the exit status.
func run(ctx context.Context, env Env, o *options, files []string) int {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.verbose {
		o.output = "json"
	}
	p, msg := plan(o, env.Models)
	if msg != "" {
		fmt.Fprintln(env.Stdout, history.Escape(msg))
		return ExitInvalid
	}
	for _, w := range p.warnings {
		fmt.Fprintf(env.Stderr, "elle-cli: %s\n", history.Escape(w))
	}
	code := ExitOK
	for _, file := range files {
		v, err := checkFile(ctx, env, o, p, file)
		if err != nil {
			var mm *mismatchError
			if errors.As(err, &mm) {
				fmt.Fprintln(env.Stderr, history.Escape(mm.Error()))
				return ExitInvalid
			}
			// elle-cli prints an empty line before an exception's trace
			// (a missing file, a history Elle refuses, …).
			fmt.Fprintln(env.Stdout)
			fmt.Fprintf(env.Stderr, "elle-cli: %s\n", history.Escape(err.Error()))
			return ExitException
		}
		if v == checker.False {
			code = ExitInvalid
		}
	}
	return code
}

// checkFile reads and checks one file, prints its verdict and writes the
// directory's files; it returns the verdict.
func checkFile(ctx context.Context, env Env, o *options, p *planned, file string) (checker.Verdict, error) {
	if _, err := os.Stat(file); err != nil {
		return checker.Unknown, fmt.Errorf("file not found: %s", history.Quote(file))
	}
	h, events, err := read(file, o.format)
	if err != nil {
		return checker.Unknown, err
	}
	out, err := p.check(ctx, h, file, events)
	var caught *caughtError
	if errors.As(err, &caught) {
		// out is refused: every result unknown, and its error says why.
		fmt.Fprintf(env.Stderr, "elle-cli: error while checking history: %s\n", history.Escape(caught.Error()))
	} else if err != nil {
		return checker.Unknown, named(file, err)
	}
	hr := report.NewHistoryOf(file, h, out)
	v := verdict(p, out)
	if err := printVerdict(env.Stdout, o.output, o.model, file, v, &hr); err != nil {
		return v, err
	}
	if o.directory != "" && p.txn {
		hr.Source = h
		if err := writeDirectory(o.directory, &hr); err != nil {
			return v, err
		}
	}
	return v, nil
}

// named gives an input error found after reading (a transaction the
// model cannot parse) the file it is about, which the checks that found
// it do not know, so that the message names file rather than no file.
func named(file string, err error) error {
	var ie *history.InputError
	if errors.As(err, &ie) && ie.File == "" {
		ie.File = file
	}
	return err
}

// verdict is the file's one verdict: false if any result is, else unknown
// if any is, else true. Nothing to look for is true, as in Elle.
func verdict(p *planned, out check.Outcome) checker.Verdict {
	if p.nothing {
		return checker.True
	}
	reasons := make([]string, len(out.Results))
	for i, r := range out.Results {
		reasons[i] = r.Reason
	}
	empty := p.txn && emptyGraph(reasons)
	vs := make([]checker.Verdict, len(out.Results))
	for i, r := range out.Results {
		vs[i] = anomaliesVerdict(r, p.anoms, empty)
	}
	return check.Combine(vs...)
}

// read reads one history: in the format -f names, else the one its
// extension names (.edn, .json), else the detected one.
func read(file, name string) (*history.History, bool, error) {
	if name == "" {
		switch strings.ToLower(filepath.Ext(file)) {
		case ".edn":
			name = format.EDN
		case ".json":
			name = format.JSON
		}
	}
	f, err := format.Open(file)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	res, err := format.ReadResult(file, f, format.Options{Format: name})
	if err != nil {
		return nil, false, err
	}
	return res.History, res.Events, nil
}
