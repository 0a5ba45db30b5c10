package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/ahead"
	"github.com/histcheck/histcheck/report"
)

// checkOptions are the flags of "histcheck check".
type checkOptions struct {
	follow         bool
	followUntil    time.Duration
	model          []string
	ttl            string
	consistency    string
	anomalies      []string
	assume         []string
	modelOpts      []string
	init           string
	nilRead        string
	independent    bool
	timeout        time.Duration
	output         string
	format         string
	order          string
	workers        int
	verify         bool
	summary        bool
	noCheck        bool
	maxViolations  int
	maxMemory      string
	allRuns        bool
	recursive      bool
	maxMemoryBytes int64
	html           string
	noCore         bool
	coreTime       time.Duration
	verbose        bool

	initSet bool
	// criteriaSet reports that -c was given.
	criteriaSet bool
}

func newCheckCmd(e *env) *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [flags] FILE|DIR...",
		Short: "Check histories against a consistency criterion",
		Long: "Check each history FILE (- is standard input) against the chosen criteria and print, per\n" +
			"file and criterion, the line FILE<TAB>CRITERION<TAB>true|false|unknown and an explanation.\n" +
			"With a model per key (--model lock=lease,stock=fenced-register) each object is checked on its\n" +
			"own: the line's verdict is false if any object's is, and an indented line per object follows.\n" +
			"A DIR is a Jepsen store directory (its newest run's history; every run's with --all-runs) or a\n" +
			"folder of histories: each file in it whose format is detected, in path order, and with\n" +
			"--recursive those in its subfolders; other files are skipped with a note on standard error.\n\n" +
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
			o.criteriaSet = cmd.Flags().Changed("consistency")
			return runCheck(cmd.Context(), e, o, args)
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&o.model, "model", "m", nil, "`MODEL` to check against, or KEY=MODEL pairs to check each key with its own model\n"+
		"(lock=lease,stock=fenced-register; *=MODEL for keys not named; repeatable) (default: the file's own, else detected from the operation names)")
	f.StringVar(&o.ttl, "ttl", "", "lease length (`TTL`) for the lease model: a number in the history's time unit, or a duration such as 10s\n"+
		"when the unit is known (the file's time_unit; Jepsen event times are nanoseconds) (default: the file's ttl, else each acquire's ttl field)")
	f.StringVarP(&o.consistency, "consistency", "c", checker.Linearizable,
		"comma-separated criteria: "+strings.Join(check.Names(), ", ")+", jepsen (the rule of Jepsen's checkers, see models), or all")
	f.StringSliceVar(&o.anomalies, "anomalies", nil, "comma-separated anomalies to look for in a transactional history, named as Elle names them (G0, G1c, G2-item, lost-update, …)")
	f.StringSliceVar(&o.assume, "assume", nil, "comma-separated assumptions about the store that let rw-register infer more version order: wfr-keys, sequential-keys, linearizable-keys")
	f.StringSliceVar(&o.modelOpts, "model-option", nil, "the model's own options, NAME=VALUE, comma-separated (bank: total-amount, negative-balances; long-fork: group-size; set-full: linearizable)")
	f.StringVar(&o.init, "init", "", `initial value: a number, nil, "" or a quoted string, true/false, or a word (default: the file's own, else the model's)`)
	f.StringVar(&o.nilRead, "nil-read", "", "how a read of nil is judged: value (nil is a value like any other) or any (accepted in every state) (default: the file's own, else value)")
	f.BoolVar(&o.allRuns, "all-runs", false, "for a Jepsen test directory (store/TEST), check every run in it, not only the newest")
	f.BoolVarP(&o.recursive, "recursive", "r", false, "for a directory of history files, also check those in its subdirectories")
	f.BoolVar(&o.independent, "independent", false, "read each value as a Jepsen [key value] tuple and check each key on its own")
	f.DurationVar(&o.timeout, "timeout", 0, "time limit per history and criterion, e.g. 30s (0: none); when it runs out the verdict is unknown")
	f.StringVarP(&o.output, "output", "o", "text", "output form: text, json, or junit (JUnit XML, one test case per file and criterion)")
	f.StringVar(&o.html, "html", "", "also write a self-contained web page (`FILE`) with each history's timeline, witnesses and violations")
	f.BoolVar(&o.noCore, "no-core", false, "do not shrink violations of linearizability and sequential consistency to a minimal core")
	f.DurationVar(&o.coreTime, "core-time", 0, "time shrinking a violation to its core may take per history and criterion (default 10s;\nnever more than --timeout leaves); a core not shown 1-minimal in time is reported as such")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "under each core's explanation, print the facts it rests on")
	f.StringVar(&o.format, "format", "", "input format (default: detected from the file name and contents)")
	f.StringVar(&o.order, "order", "", "how to order the operations of event histories: events (their order in the file) or times\n"+
		"(their recorded times) (default: the file's own order setting, else events)")
	f.IntVarP(&o.workers, "workers", "j", 0, "goroutines a checker may use (0: one per CPU)")
	f.BoolVar(&o.verify, "verify-witness", false, "re-check every witness independently of the search that found it")
	f.BoolVar(&o.summary, "summary", false, "print counts per file (operations by status, processes, clients, ignored events, warnings)")
	f.BoolVar(&o.noCheck, "no-check", false, "with --summary: only read the files, do not check them")
	f.BoolVar(&o.follow, "follow", false, "check one history FILE (- for standard input) as it is written, one event a line (JSON Lines, EDN op maps\nor a Jepsen log): each violation is printed as soon as it is certain, progress on stderr, the verdict at\nthe end of the input; linearizability only, with --model (docs/online.md)")
	f.DurationVar(&o.followUntil, "follow-until", 0, "with --follow on a FILE: end once this long (`DURATION`) passes with no new input (0: at an interrupt)")
	f.IntVar(&o.maxViolations, "max-violations", 0, "report at most N violations per criterion (0: the checker's default)")
	f.StringVar(&o.maxMemory, "max-memory", "", "memory (`SIZE`, e.g. 2GB, 512MiB, or bytes) the run may use (reading, checking, shrinking) before its verdicts are unknown\n(default: the container's memory limit, else a quarter of the machine's memory; 0 or none: no limit)")
	return cmd
}

// validate checks the flags that say how to read, check and report, and
// that do not depend on the input.
func (o *checkOptions) validate() error {
	switch o.output {
	case "text", "json", "junit":
	default:
		return usagef("unknown output form %q (accepted: text, json, junit)", o.output)
	}
	if _, ok := history.ParseOrdering(o.order); o.order != "" && !ok {
		return usagef("unknown --order %q (accepted: events, times)", o.order)
	}
	if o.format != "" && !contains(formatNames(), o.format) {
		return usagef("unknown input format %q (accepted: %s)", o.format, strings.Join(formatNames(), ", "))
	}
	if o.workers < 0 {
		return usagef("--workers must be 0 or more, got %d", o.workers)
	}
	if o.maxViolations < 0 {
		return usagef("--max-violations must be 0 or more, got %d", o.maxViolations)
	}
	if o.timeout < 0 {
		return usagef("--timeout must be 0 or more, got %s", o.timeout)
	}
	if o.coreTime < 0 {
		return usagef("--core-time must be 0 or more, got %s", o.coreTime)
	}
	if o.maxMemory != "" {
		n, err := parseSize(o.maxMemory)
		if err != nil {
			return usagef("--max-memory: %v", err)
		}
		o.maxMemoryBytes = n
		if n == 0 {
			o.maxMemoryBytes = -1 // no limit
		}
	}
	if o.noCheck && !o.summary {
		return usagef("--no-check only makes sense with --summary")
	}
	return nil
}

// settings checks the flags that say what to check the histories for and
// against (criteria, anomalies, assumptions, models, lease length, nil-read
// rule), before any history is read, and returns the criteria asked for
// (nil when none is: each model's default). On a mistake it returns the
// criteria as given, so that each file's report still names them.
func (o *checkOptions) settings(e *env) ([]string, error) {
	var given []string
	if o.criteriaSet {
		given = strings.Split(o.consistency, ",")
	}
	switch o.nilRead {
	case "", "value", "any":
	default:
		return given, usagef("unknown --nil-read %q (accepted: value, any)", o.nilRead)
	}
	criteria, err := parseCriteria(o.consistency)
	if err != nil {
		return given, err
	}
	anomalies, err := check.ParseAnomalies(strings.Join(o.anomalies, ","))
	if err != nil {
		return given, &usageError{msg: err.Error()}
	}
	o.anomalies = anomalies
	if o.assume, err = check.ParseAssumptions(strings.Join(o.assume, ",")); err != nil {
		return given, &usageError{msg: err.Error()}
	}
	if !o.criteriaSet {
		// None asked for: each model's default (linearizability, or
		// strict serializability for the transactional models).
		criteria = nil
	}
	if spec := strings.Join(o.model, ","); spec != "" {
		if err := check.CheckModels(spec, e.models, criteria); err != nil {
			return given, &usageError{msg: err.Error()}
		}
	}
	if o.ttl != "" {
		if err := check.CheckTTL(o.ttl); err != nil {
			return given, usagef("--%v", err)
		}
	}
	return criteria, nil
}

// parseCriteria splits a comma list and checks each name.
func parseCriteria(s string) ([]string, error) {
	names := strings.Split(s, ",")
	if strings.TrimSpace(strings.ReplaceAll(s, ",", "")) == "" {
		return nil, usagef("no consistency criterion given (accepted: %s)", strings.Join(append(check.Names(), check.All), ", "))
	}
	out, err := check.ParseCriteria(names)
	if err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	return out, nil
}

func runCheck(ctx context.Context, e *env, o *checkOptions, files []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := o.validate(); err != nil {
		return err
	}
	if o.follow {
		return startFollow(ctx, e, o, files)
	}
	// A setting that cannot be taken refuses every file: each is in the
	// reports, its criteria unknown with the reason, as a file that
	// cannot be read is, so that no report reads as a pass.
	criteria, settingsErr := o.settings(e)
	if settingsErr != nil {
		fmt.Fprintf(e.stderr, "histcheck: %s\nrun 'histcheck check --help' for usage\n", history.Escape(settingsErr.Error()))
	}
	var initFlag history.Value
	if o.initSet {
		initFlag = ParseScalar(o.init)
	}
	rep := &report.Report{}
	code := ExitOK
	// A Jepsen store directory gives its runs' histories, a folder its
	// history files; what is not a history is said and left out.
	files, skipped := format.Expand(files, o.allRuns, o.recursive)
	for _, s := range skipped {
		e.fileNote(s.Path, "skipped: %s", s.Reason)
	}
	// The collector keeps the heap within the budget, so garbage does not count against it.
	mem := budget.For(o.maxMemoryBytes)
	if mem != nil {
		o.maxMemoryBytes = mem.Limit() // settled once, not per file
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(mem.Limit()))
	}
	// Small files are checked several at a time, each one's notes held back
	// until its turn, so that the output reads as if one after the other.
	type checked struct {
		hr    *report.History
		code  ExitCode
		notes bytes.Buffer
	}
	workers := ahead.Files(files, smallFile, o.workers)
	if e.progress != nil {
		workers = 1 // one progress line at a time
	}
	err := ahead.Do(len(files), workers, func(i int) *checked {
		c, fe := &checked{}, *e
		if workers > 1 {
			fe.stderr = &c.notes
		}
		if settingsErr != nil {
			req := o.request(&fe, files[i], criteria, initFlag)
			c.hr, c.code = refusedReport(o, files[i], nil, check.Refused(req, nil, settingsErr))
			return c
		}
		c.hr, c.code = checkFile(ctx, &fe, o, files[i], criteria, initFlag, mem)
		return c
	}, func(_ int, c *checked) error {
		code = worse(code, c.code)
		if _, err := c.notes.WriteTo(e.stderr); err != nil || c.hr == nil {
			return err
		}
		hr := c.hr
		if o.output == "text" {
			if o.summary {
				if err := report.Summary(e.stdout, hr); err != nil {
					return err
				}
			}
			if err := report.WriteText(e.stdout, &report.Report{Histories: []report.History{*hr}}, report.TextOptions{Facts: o.verbose}); err != nil {
				return err
			}
		}
		if o.html == "" {
			hr.Source = nil // only the web page draws every operation
		}
		rep.Histories = append(rep.Histories, *hr)
		return nil
	})
	if err != nil {
		return err
	}
	rep.Finish()
	written, err := writeReports(e, o, rep)
	if err != nil {
		return err
	}
	code = worse(code, written)
	if check.Interrupted(ctx) {
		// What was found before the interrupt still counts: a violation
		// is a violation however the run ended.
		fmt.Fprintln(e.stderr, "histcheck: interrupted; the verdicts above are what was known when it stopped")
		code = ExitUnknown
		if rep.Valid == checker.False {
			code = ExitInvalid
		}
	}
	if code == ExitOK {
		return nil
	}
	return &exitError{code: code}
}

// writeReports writes the whole run's report in the JSON or JUnit form
// and the web page, as asked; the text form was written file by file. The
// exit status is ExitError when the page could not be written.
func writeReports(e *env, o *checkOptions, rep *report.Report) (ExitCode, error) {
	switch o.output {
	case "json":
		if err := report.JSON(e.stdout, rep); err != nil {
			return ExitOK, err
		}
	case "junit":
		if err := report.JUnit(e.stdout, rep); err != nil {
			return ExitOK, err
		}
	}
	if o.html != "" {
		if err := report.WriteHTMLFile(o.html, rep); err != nil {
			fmt.Fprintf(e.stderr, "histcheck: %s\n", history.Escape(err.Error()))
			return ExitError, nil
		}
	}
	return ExitOK, nil
}

// smallFile is the size up to which files are checked several at a time.
const smallFile = 1 << 20

// checkFile reads and checks one file. Problems are printed on stderr; a
// file that could not be checked, wherever it was refused (reading, the
// model, the transactions, the settings), has a report that says why,
// each criterion unknown (check.Outcome.Refused), and exit status 3.
func checkFile(ctx context.Context, e *env, o *checkOptions, file string, criteria []string, initFlag history.Value, mem *budget.Memory) (*report.History, ExitCode) {
	req := o.request(e, file, criteria, initFlag)
	rctx, stop := mem.Watch(ctx)
	in, err := readHistory(rctx, e, file, format.Options{Format: o.format, Order: o.order, Memory: mem})
	stop()
	if err != nil {
		return refuseFile(e, o, file, nil, check.Refused(req, nil, err))
	}
	h := in.h
	req.EventTimes = in.events
	if o.independent {
		if err := h.SplitTuples(); err != nil { // h is left as read
			return refuseFile(e, o, file, h, check.Refused(req, h, err))
		}
	}
	// Warnings are about what the verdicts rest on (a client that went on
	// after an operation of unknown outcome counts as a new process), so
	// they are shown whatever the output form: once per file, on stderr,
	// besides the JSON report and --summary.
	for _, w := range h.Warnings {
		e.fileNote(file, "warning: %s", w)
	}
	if hint := jepsenHint(strings.Join(o.model, ","), in); hint != "" {
		e.fileNote(file, "%s", hint)
	}
	out, err := check.Run(ctx, h, req)
	if out.Refused != nil {
		return refuseFile(e, o, file, h, out)
	}
	hr := report.NewHistoryOf(file, h, out, report.TextOnly(o.output == "text" && o.html == ""))
	code := ExitOK
	for _, r := range hr.Results {
		switch r.Valid {
		case checker.False:
			code = worse(code, ExitInvalid)
		case checker.Unknown:
			code = worse(code, ExitUnknown)
		}
	}
	if out.Internal {
		code = ExitError
	}
	if err != nil && !errors.As(err, new(*suite.InternalError)) { // internal errors were noted as they happened
		printCheckError(e, file, err)
		code = ExitError
	}
	return &hr, code
}

// refuseFile is the one way a file that could not be checked is
// reported, wherever it was refused: out is check.Run's refused outcome,
// or check.Refused's for a file that could not be read (h nil). The
// reason is printed on stderr, and the report says it in the same words:
// each criterion unknown, "not checked: " and the reason.
func refuseFile(e *env, o *checkOptions, file string, h *history.History, out check.Outcome) (*report.History, ExitCode) {
	printCheckError(e, file, out.Refused)
	out.Refused = &shownError{line: checkErrorLine(file, out.Refused), err: out.Refused}
	return refusedReport(o, file, h, out)
}

// refusedReport is the report of a refused file whose reason has been
// printed, and the exit status it gives.
func refusedReport(o *checkOptions, file string, h *history.History, out check.Outcome) (*report.History, ExitCode) {
	hr := report.NewHistoryOf(file, h, out, report.TextOnly(o.output == "text" && o.html == ""))
	return &hr, ExitError
}

// request is what checking file asks of check.Run, from the flags.
func (o *checkOptions) request(e *env, file string, criteria []string, initFlag history.Value) check.Request {
	return check.Request{
		Name: file, Criteria: criteria, Model: strings.Join(o.model, ","), Models: e.models,
		Init: initFlag, NilRead: o.nilRead, TTL: o.ttl,
		Limits: check.Limits{Timeout: o.timeout, Memory: o.maxMemoryBytes, Workers: o.workers, CoreTime: o.coreTime},
		NoCore: o.noCore, NoCheck: o.noCheck, Verify: o.verify, MaxViolations: o.maxViolations, Anomalies: o.anomalies, Assume: o.assume,
		ModelOptions: o.modelOpts,
		Note: func(n check.Note) {
			e.fileNote(file, "%s", n.Text)
			if n.Bug {
				fmt.Fprintln(e.stderr, "this is a bug in histcheck; please report it with the input file")
			}
		},
		Progress: func(what, criterion string) func() {
			if criterion == "" {
				return e.progress.start(fmt.Sprintf("%s %s", what, file))
			}
			return e.progress.start(fmt.Sprintf("%s %s (%s)", what, history.Quote(file), criterion))
		},
	}
}

func printInputError(e *env, file string, err error) {
	fmt.Fprintln(e.stderr, inputErrorLine(file, err))
}

// inputErrorLine is the line that says what is wrong with file's input:
// "FILE:LINE: message" for an input error (history.InputError) that names
// no file yet, else "FILE: message". It is escaped, as fileNote's lines.
func inputErrorLine(file string, err error) string {
	var ie *history.InputError
	if errors.As(err, &ie) {
		if ie.File == "" {
			ie.File = file
			if file == "-" {
				ie.File = stdinName
			}
		}
		return ie.Error() // escapes the input it quotes
	}
	return noteLine(file, "%v", err)
}

// fileNote prints one line about file on stderr, "FILE: message". Messages
// quote the input (names, values, fragments of the file), so the file name
// and message are escaped (history.Quote, history.Escape) like every text
// from the input: whatever the input holds, the note is one line and sends
// no control sequence to the terminal.
func (e *env) fileNote(file, format string, args ...any) {
	fmt.Fprintln(e.stderr, noteLine(file, format, args...))
}

// noteLine is fileNote's line, without its newline.
func noteLine(file, format string, args ...any) string {
	return fmt.Sprintf("%s: %s", history.Quote(file), history.Escape(fmt.Sprintf(format, args...)))
}

func printCheckError(e *env, file string, err error) {
	fmt.Fprintln(e.stderr, checkErrorLine(file, err))
	if errors.As(err, new(*suite.WitnessError)) {
		fmt.Fprintln(e.stderr, "this is a bug in histcheck; please report it with the input file")
	}
}

// checkErrorLine is the line that says why check.Run refused file.
func checkErrorLine(file string, err error) string {
	if errors.As(err, new(*suite.WitnessError)) {
		return noteLine(file, "internal error: %v", err)
	}
	if errors.As(err, new(*suite.UnsupportedError)) {
		return noteLine(file, "%v", err)
	}
	return inputErrorLine(file, err)
}

// shownError is an error as it was shown on standard error, naming its
// file: the report says why a file was refused in the same words.
type shownError struct {
	line string
	err  error
}

func (e *shownError) Error() string { return e.line }
func (e *shownError) Unwrap() error { return e.err }

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
