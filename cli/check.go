package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// checkOptions are the flags of "histcheck check".
type checkOptions struct {
	model         string
	consistency   string
	init          string
	nilRead       string
	independent   bool
	timeout       time.Duration
	output        string
	format        string
	workers       int
	verify        bool
	summary       bool
	noCheck       bool
	maxViolations int

	initSet bool
}

// criterionAll asks for every criterion the model supports, and the ladder.
const criterionAll = "all"

func newCheckCmd(e *env) *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [flags] FILE...",
		Short: "Check histories against a consistency criterion",
		Long: "Check each history FILE (- is standard input) against the chosen criteria and print, per\n" +
			"file and criterion, the line FILE<TAB>CRITERION<TAB>true|false|unknown and an explanation.\n\n" +
			"Exit status: 0 every verdict true, 1 some false, 2 some unknown and none false,\n" +
			"3 bad usage or input.",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("check needs at least one FILE (- for standard input)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.initSet = cmd.Flags().Changed("init")
			return runCheck(cmd.Context(), e, o, args)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.model, "model", "m", "", "model to check against (default: the file's own, else detected from the operation names)")
	f.StringVarP(&o.consistency, "consistency", "c", checker.Linearizable,
		"comma-separated criteria: "+strings.Join(checker.AllCriteria, ", ")+", or all")
	f.StringVar(&o.init, "init", "", `initial value: a number, nil, "" or a quoted string, true/false, or a word (default: the file's own, else the model's)`)
	f.StringVar(&o.nilRead, "nil-read", "", "how a read of nil is judged: value (nil is a value like any other) or any (accepted in every state) (default: the file's own, else value)")
	f.BoolVar(&o.independent, "independent", false, "read each value as a Jepsen [key value] tuple and check each key on its own")
	f.DurationVar(&o.timeout, "timeout", 0, "time limit per history and criterion, e.g. 30s (0: none); when it runs out the verdict is unknown")
	f.StringVarP(&o.output, "output", "o", "text", "output form: text or json")
	f.StringVar(&o.format, "format", "", "input format (default: detected from the file name and contents)")
	f.IntVarP(&o.workers, "workers", "j", 0, "goroutines a checker may use (0: one per CPU)")
	f.BoolVar(&o.verify, "verify-witness", false, "re-check every witness independently of the search that found it")
	f.BoolVar(&o.summary, "summary", false, "print counts per file (operations by status, processes, clients, ignored events, warnings)")
	f.BoolVar(&o.noCheck, "no-check", false, "with --summary: only read the files, do not check them")
	f.IntVar(&o.maxViolations, "max-violations", 0, "report at most N violations per criterion (0: the checker's default)")
	return cmd
}

// validate checks the flags that do not depend on the input, and returns
// the criteria asked for (with "all" kept as is).
func (o *checkOptions) validate(e *env) ([]string, error) {
	switch o.output {
	case "text", "json":
	default:
		return nil, usagef("unknown output form %q (accepted: text, json)", o.output)
	}
	switch o.nilRead {
	case "", "value", "any":
	default:
		return nil, usagef("unknown --nil-read %q (accepted: value, any)", o.nilRead)
	}
	if o.format != "" && !contains(formatNames(), o.format) {
		return nil, usagef("unknown input format %q (accepted: %s)", o.format, strings.Join(formatNames(), ", "))
	}
	if o.workers < 0 {
		return nil, usagef("--workers must be 0 or more, got %d", o.workers)
	}
	if o.maxViolations < 0 {
		return nil, usagef("--max-violations must be 0 or more, got %d", o.maxViolations)
	}
	if o.timeout < 0 {
		return nil, usagef("--timeout must be 0 or more, got %s", o.timeout)
	}
	if o.noCheck && !o.summary {
		return nil, usagef("--no-check only makes sense with --summary")
	}
	criteria, err := parseCriteria(o.consistency)
	if err != nil {
		return nil, err
	}
	if o.model != "" {
		m, err := suite.Lookup(e.models, o.model)
		if err != nil {
			return nil, &usageError{msg: err.Error()}
		}
		if err := supported(m, criteria); err != nil {
			return nil, err
		}
	}
	return criteria, nil
}

// parseCriteria splits a comma list and checks each name.
func parseCriteria(s string) ([]string, error) {
	accepted := append(append([]string(nil), checker.AllCriteria...), criterionAll)
	var out []string
	for _, c := range strings.Split(s, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if !contains(accepted, c) {
			return nil, usagef("unknown consistency criterion %q (accepted: %s)", c, strings.Join(accepted, ", "))
		}
		if !contains(out, c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, usagef("no consistency criterion given (accepted: %s)", strings.Join(accepted, ", "))
	}
	return out, nil
}

// supported checks that m implements every criterion asked for.
func supported(m suite.Model, criteria []string) error {
	for _, c := range criteria {
		if c != criterionAll && !m.Supports(c) {
			return &usageError{msg: (&suite.UnsupportedError{Model: m.Info.Name, Criterion: c, Supported: m.Criteria}).Error()}
		}
	}
	return nil
}

// expand replaces "all" by every criterion m supports, strongest first.
func expand(m suite.Model, criteria []string) (out []string, all bool) {
	for _, c := range criteria {
		if c == criterionAll {
			all = true
			for _, mc := range m.Criteria {
				if !contains(out, mc) {
					out = append(out, mc)
				}
			}
			continue
		}
		if !contains(out, c) {
			out = append(out, c)
		}
	}
	return out, all
}

func runCheck(ctx context.Context, e *env, o *checkOptions, files []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	criteria, err := o.validate(e)
	if err != nil {
		return err
	}
	var initFlag history.Value
	if o.initSet {
		initFlag = ParseScalar(o.init)
	}
	rep := &report.Report{}
	code := ExitOK
	for _, file := range files {
		hr, c := checkFile(ctx, e, o, file, criteria, initFlag)
		code = worse(code, c)
		if hr == nil {
			continue
		}
		if o.output == "text" {
			if o.summary {
				if err := report.Summary(e.stdout, hr); err != nil {
					return err
				}
			}
			if err := report.Text(e.stdout, &report.Report{Histories: []report.History{*hr}}); err != nil {
				return err
			}
		}
		rep.Histories = append(rep.Histories, *hr)
	}
	rep.Finish()
	if o.output == "json" {
		if err := report.JSON(e.stdout, rep); err != nil {
			return err
		}
	}
	if code == ExitOK {
		return nil
	}
	return &exitError{code: code}
}

// checkFile reads and checks one file. Problems are printed on stderr; the
// returned report is nil when the file could not be read.
func checkFile(ctx context.Context, e *env, o *checkOptions, file string, criteria []string, initFlag history.Value) (*report.History, ExitCode) {
	h, err := readHistory(e, file, o.format)
	if err != nil {
		printInputError(e, file, err)
		return nil, ExitError
	}
	if o.independent {
		if err := h.SplitTuples(); err != nil {
			printInputError(e, file, err)
			return nil, ExitError
		}
	}
	m, how, err := chooseModel(e.models, o.model, h)
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", file, err)
		return nil, ExitError
	}
	if how == detected {
		fmt.Fprintf(e.stderr, "%s: model %s (%s)\n", file, m.Info.Name, how)
	}
	mopts, nilRead, err := modelOptions(o, h, initFlag)
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", file, err)
		return nil, ExitError
	}
	hr := report.NewHistory(file, m.Info.Name, h)
	hr.Init = report.InitJSON(mopts.Init)
	hr.NilRead = nilRead
	if o.noCheck {
		return &hr, ExitOK
	}
	if err := supported(m, criteria); err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", file, err)
		return &hr, ExitError
	}
	list, all := expand(m, criteria)
	sopts := suite.Options{Workers: o.workers, Verify: o.verify, MaxViolations: o.maxViolations}
	code := ExitOK
	results := make(map[string]checker.Result, len(list))
	var skipped []string
	var skipErr error
	for _, c := range list {
		res, err := runOne(ctx, m, h, c, mopts, sopts, o.timeout)
		if err != nil && all && errors.Is(err, suite.ErrReadWriteOnly) {
			// "all" means every criterion that applies: the causal and
			// session criteria do not apply to a history with other
			// operations than reads and writes. Asked for by name, they
			// are an error.
			skipped, skipErr = append(skipped, c), err
			continue
		}
		if err != nil {
			printCheckError(e, file, err)
			return &hr, ExitError
		}
		results[c] = res
		hr.Results = append(hr.Results, report.NewResult(h, res))
		switch res.Valid {
		case checker.False:
			code = worse(code, ExitInvalid)
		case checker.Unknown:
			code = worse(code, ExitUnknown)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(e.stderr, "%s: not checked: %s (%v)\n", file, strings.Join(skipped, ", "), skipErr)
	}
	if all {
		hr.Ladder = buildLadder(results)
	}
	return &hr, code
}

// runOne checks one criterion under its own time limit.
func runOne(ctx context.Context, m suite.Model, h *history.History, criterion string, mopts model.Options, sopts suite.Options, timeout time.Duration) (checker.Result, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	start := time.Now()
	res, err := suite.Run(ctx, m, h, criterion, mopts, sopts)
	if err != nil {
		return res, err
	}
	res.Criterion = criterion
	if res.Elapsed == 0 {
		res.Elapsed = time.Since(start)
	}
	if res.Valid == checker.Unknown && timeout > 0 && ctx.Err() != nil {
		reason := fmt.Sprintf("no verdict within the time limit of %s (--timeout)", timeout)
		if res.Reason != "" && res.Reason != suite.ReasonTimeout {
			reason += "; " + res.Reason
		}
		res.Reason = reason
	}
	return res, nil
}

// modelOptions settles the model's settings: flags first, then what the
// file says, then the defaults. It returns the nil-read rule's name too.
func modelOptions(o *checkOptions, h *history.History, initFlag history.Value) (model.Options, string, error) {
	var mo model.Options
	switch {
	case o.initSet:
		mo.Init = initFlag
	case !h.Meta["init"].IsNone():
		mo.Init = h.Meta["init"]
	}
	nr := o.nilRead
	if nr == "" {
		if v := h.Meta["nil_read"]; !v.IsNone() {
			s, ok := v.Str()
			if !ok || (s != "value" && s != "any") {
				return mo, "", fmt.Errorf("the file's nil_read is %s; expected value or any", v)
			}
			nr = s
		} else {
			nr = "value"
		}
	}
	if nr == "any" {
		mo.NilRead = model.NilIsAny
	}
	return mo, nr, nil
}

// buildLadder places the verdicts on the ladder of consistency models.
func buildLadder(results map[string]checker.Result) *report.Ladder {
	l := ladder.Build(results)
	return &report.Ladder{Strongest: orEmpty(l.Strongest), Weakest: orEmpty(l.Weakest)}
}

func orEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func printInputError(e *env, file string, err error) {
	var ie *history.InputError
	if errors.As(err, &ie) {
		if ie.File == "" {
			ie.File = file
			if file == "-" {
				ie.File = stdinName
			}
		}
		fmt.Fprintln(e.stderr, ie.Error())
		return
	}
	fmt.Fprintf(e.stderr, "%s: %v\n", file, err)
}

func printCheckError(e *env, file string, err error) {
	var we *suite.WitnessError
	if errors.As(err, &we) {
		fmt.Fprintf(e.stderr, "%s: internal error: %v\nthis is a bug in histcheck; please report it with the input file\n", file, err)
		return
	}
	var ue *suite.UnsupportedError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.stderr, "%s: %v\n", file, err)
		return
	}
	printInputError(e, file, err)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
