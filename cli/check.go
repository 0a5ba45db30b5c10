package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// checkOptions are the flags of "histcheck check".
type checkOptions struct {
	model          []string
	ttl            string
	consistency    string
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
	maxMemoryBytes int64
	html           string
	noCore         bool
	coreTime       time.Duration
	verbose        bool

	initSet bool
	spec    *modelSpec  // from --model, when given
	ttlSet  *ttlSetting // from --ttl, when given
}

// criterionAll asks for every criterion the model supports, and the ladder.
const criterionAll = "all"

func newCheckCmd(e *env) *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [flags] FILE...",
		Short: "Check histories against a consistency criterion",
		Long: "Check each history FILE (- is standard input) against the chosen criteria and print, per\n" +
			"file and criterion, the line FILE<TAB>CRITERION<TAB>true|false|unknown and an explanation.\n" +
			"With a model per key (--model lock=lease,stock=fenced-register) each object is checked on its\n" +
			"own: the line's verdict is false if any object's is, and an indented line per object follows.\n\n" +
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
	f.StringArrayVarP(&o.model, "model", "m", nil, "`MODEL` to check against, or KEY=MODEL pairs to check each key with its own model\n"+
		"(lock=lease,stock=fenced-register; *=MODEL for keys not named; repeatable) (default: the file's own, else detected from the operation names)")
	f.StringVar(&o.ttl, "ttl", "", "lease length (`TTL`) for the lease model: a number in the history's time unit, or a duration such as 10s\n"+
		"when the unit is known (the file's time_unit; Jepsen event times are nanoseconds) (default: the file's ttl, else each acquire's ttl field)")
	f.StringVarP(&o.consistency, "consistency", "c", checker.Linearizable,
		"comma-separated criteria: "+strings.Join(checker.AllCriteria, ", ")+", or all")
	f.StringVar(&o.init, "init", "", `initial value: a number, nil, "" or a quoted string, true/false, or a word (default: the file's own, else the model's)`)
	f.StringVar(&o.nilRead, "nil-read", "", "how a read of nil is judged: value (nil is a value like any other) or any (accepted in every state) (default: the file's own, else value)")
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
	f.IntVar(&o.maxViolations, "max-violations", 0, "report at most N violations per criterion (0: the checker's default)")
	f.StringVar(&o.maxMemory, "max-memory", "", "memory (`SIZE`, e.g. 2GB, 512MiB, or bytes) a search may use before its verdict is unknown\n(default: a quarter of the machine's memory; 0 or none: no limit)")
	return cmd
}

// validate checks the flags that do not depend on the input, and returns
// the criteria asked for (with "all" kept as is).
func (o *checkOptions) validate(e *env) ([]string, error) {
	switch o.output {
	case "text", "json", "junit":
	default:
		return nil, usagef("unknown output form %q (accepted: text, json, junit)", o.output)
	}
	switch o.nilRead {
	case "", "value", "any":
	default:
		return nil, usagef("unknown --nil-read %q (accepted: value, any)", o.nilRead)
	}
	if _, ok := history.ParseOrdering(o.order); o.order != "" && !ok {
		return nil, usagef("unknown --order %q (accepted: events, times)", o.order)
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
	if o.coreTime < 0 {
		return nil, usagef("--core-time must be 0 or more, got %s", o.coreTime)
	}
	if o.maxMemory != "" {
		n, err := parseSize(o.maxMemory)
		if err != nil {
			return nil, usagef("--max-memory: %v", err)
		}
		o.maxMemoryBytes = n
		if n == 0 {
			o.maxMemoryBytes = -1 // no limit
		}
	}
	if o.noCheck && !o.summary {
		return nil, usagef("--no-check only makes sense with --summary")
	}
	criteria, err := parseCriteria(o.consistency)
	if err != nil {
		return nil, err
	}
	if spec := strings.Join(o.model, ","); spec != "" {
		sp, err := parseModelSpec(spec)
		if err != nil {
			return nil, &usageError{msg: err.Error()}
		}
		models, err := sp.lookupAll(e.models)
		if err != nil {
			return nil, &usageError{msg: err.Error()}
		}
		for _, name := range sp.names() {
			if err := supported(models[name], criteria); err != nil {
				return nil, err
			}
		}
		o.spec = &sp
	}
	if o.ttl != "" {
		t, err := parseTTL(o.ttl)
		if err != nil {
			return nil, usagef("--%v", err)
		}
		o.ttlSet = &t
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
			if err := report.WriteText(e.stdout, &report.Report{Histories: []report.History{*hr}}, report.TextOptions{Facts: o.verbose}); err != nil {
				return err
			}
		}
		if o.html == "" {
			hr.Source = nil // only the web page draws every operation
		}
		rep.Histories = append(rep.Histories, *hr)
	}
	rep.Finish()
	switch o.output {
	case "json":
		if err := report.JSON(e.stdout, rep); err != nil {
			return err
		}
	case "junit":
		if err := report.JUnit(e.stdout, rep); err != nil {
			return err
		}
	}
	if o.html != "" {
		if err := writeHTML(o.html, rep); err != nil {
			fmt.Fprintf(e.stderr, "histcheck: %s\n", history.Escape(err.Error()))
			code = worse(code, ExitError)
		}
	}
	if interrupted(ctx) {
		fmt.Fprintln(e.stderr, "histcheck: interrupted; the verdicts above are what was known when it stopped")
		code = ExitUnknown
	}
	if code == ExitOK {
		return nil
	}
	return &exitError{code: code}
}

// interrupted reports whether the user stopped histcheck.
func interrupted(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrInterrupted)
}

// checkFile reads and checks one file. Problems are printed on stderr; the
// returned report is nil when the file could not be read.
func checkFile(ctx context.Context, e *env, o *checkOptions, file string, criteria []string, initFlag history.Value) (*report.History, ExitCode) {
	in, err := readHistory(e, file, format.Options{Format: o.format, Order: o.order})
	if err != nil {
		printInputError(e, file, err)
		return nil, ExitError
	}
	h := in.h
	if o.independent {
		if err := h.SplitTuples(); err != nil {
			printInputError(e, file, err)
			return nil, ExitError
		}
	}
	// Warnings are about what the verdicts rest on (a client that went on
	// after an operation of unknown outcome counts as a new process), so
	// they are shown whatever the output form: once per file, on stderr,
	// besides the JSON report and --summary.
	for _, w := range h.Warnings {
		e.fileNote(file, "warning: %s", w)
	}
	spec, how, err := chooseSpec(e.models, o.spec, h)
	if err != nil {
		e.fileNote(file, "%v", err)
		return nil, ExitError
	}
	objs, err := spec.objects(e.models, h)
	if err != nil {
		printInputError(e, file, err)
		return nil, ExitError
	}
	if how == detected {
		e.fileNote(file, "model %s (%s)", spec, how)
	}
	mopts, nilRead, err := modelOptions(o, h, initFlag)
	if err != nil {
		e.fileNote(file, "%v", err)
		return nil, ExitError
	}
	if mopts.TTL, err = historyTTL(o.ttlSet, h, in.events); err != nil {
		e.fileNote(file, "%v", err)
		return nil, ExitError
	}
	hr := report.NewHistory(file, spec.String(), h)
	hr.Init = report.InitJSON(mopts.Init)
	hr.NilRead = nilRead
	hr.TTL = mopts.TTL
	if o.noCheck {
		return &hr, ExitOK
	}
	for _, obj := range objs {
		if err := supported(obj.model, criteria); err != nil {
			e.fileNote(file, "%v", err)
			return &hr, ExitError
		}
	}
	list, all := expandObjects(objs, criteria)
	sopts := suite.Options{Workers: o.workers, Verify: o.verify, MaxViolations: o.maxViolations, MaxMemory: o.maxMemoryBytes}
	code := ExitOK
	results := make(map[string]checker.Result, len(list))
	var skipped, notLocal []string
	var skipErr error
	var linVerdicts []checker.Verdict // each object's, for the breakdown by key
criteria:
	for _, c := range list {
		var (
			rs []report.Result
			vs []checker.Verdict
		)
		targets := objs
		if c != checker.Linearizable && len(objs) > 1 {
			// Only linearizability is local: a history is linearizable
			// exactly when each object is. The other criteria hold of the
			// whole or not at all, so objects are not checked one by one.
			if spec.perKey() {
				if all {
					notLocal = append(notLocal, c)
					continue
				}
				e.fileNote(file, "%s", notLocalMsg(c))
				return &hr, ExitError
			}
			targets = []object{{model: objs[0].model, h: h}}
		}
		for _, obj := range targets {
			stop := e.progress.start(fmt.Sprintf("checking %s (%s)", history.Quote(file), c))
			res, err := runOne(ctx, obj.model, obj.h, c, mopts, sopts, o.timeout)
			stop()
			if err != nil && all && errors.Is(err, suite.ErrReadWriteOnly) {
				// "all" means every criterion that applies: the causal and
				// session criteria do not apply to a history with other
				// operations than reads and writes. Asked for by name, they
				// are an error.
				skipped, skipErr = append(skipped, c), err
				continue criteria
			}
			var internal *suite.InternalError
			if errors.As(err, &internal) {
				// A bug: say so, report the verdict as unknown, and go on
				// with the other criteria and files.
				e.fileNote(file, "%v", err)
				fmt.Fprintln(e.stderr, "this is a bug in histcheck; please report it with the input file")
				res.Reason = fmt.Sprintf("internal error checking %s of %s: %s", c, history.Quote(file), internal.Panic)
				code, err = ExitError, nil
			}
			if err != nil {
				printCheckError(e, file, err)
				return &hr, ExitError
			}
			r := report.NewResult(h, obj.lift(res))
			if !o.noCore && res.Valid == checker.False && hasCore(c) && len(r.Violations) > 0 {
				stop := e.progress.start(fmt.Sprintf("finding the core of %s (%s)", history.Quote(file), c))
				core, err := findCore(ctx, &obj, h, c, mopts, sopts, coreBudget(o.timeout, res.Elapsed, o.coreTime))
				stop()
				if errors.As(err, new(*suite.InternalError)) {
					fmt.Fprintln(e.stderr, "this is a bug in histcheck; please report it with the input file")
					code = ExitError
				}
				if err != nil {
					e.fileNote(file, "%s: no core: %v", c, err)
				}
				r.Violations[0].Core = core
			}
			if obj.perKey {
				if !obj.key.IsNone() {
					r.Key = obj.key.JSON()
				}
				r.Model = obj.model.Info.Name
			} else {
				results[c] = res
			}
			rs, vs = append(rs, r), append(vs, res.Valid)
		}
		if c == checker.Linearizable {
			linVerdicts = vs
		}
		res := checker.Result{Criterion: c, Valid: report.Combine(vs...)}
		if _, ok := results[c]; !ok {
			results[c] = res
		}
		hr.Results = append(hr.Results, rs...)
		switch res.Valid {
		case checker.False:
			code = worse(code, ExitInvalid)
		case checker.Unknown:
			code = worse(code, ExitUnknown)
		}
	}
	if len(skipped) > 0 {
		e.fileNote(file, "not checked: %s (%v)", strings.Join(skipped, ", "), skipErr)
	}
	if len(notLocal) > 0 {
		e.fileNote(file, "not checked: %s", notLocalMsg(notLocal...))
	}
	if all {
		hr.Ladder = buildLadder(results)
	}
	if r, ok := results[checker.Linearizable]; ok && r.Valid == checker.False {
		stop := e.progress.start(fmt.Sprintf("counting the failing keys of %s", file))
		hr.Keys = keyBreakdown(ctx, objs, linVerdicts, h, mopts, sopts, o.timeout)
		stop()
	}
	return &hr, code
}

// notLocalMsg says why criteria cannot be checked with a model per key.
func notLocalMsg(criteria ...string) string {
	what, pron := strings.Join(criteria, ", ")+" is", "it"
	if len(criteria) > 1 {
		what, pron = strings.Join(criteria, ", ")+" are", "them"
	}
	return fmt.Sprintf("%s not compositional (a history can fail %s although each object on its own passes), "+
		"so with a model per key only linearizability, a local property, can be checked object by object", what, pron)
}

// expandObjects is expand over every object: with "all", the criteria
// every object's model supports.
func expandObjects(objs []object, criteria []string) ([]string, bool) {
	list, all := expand(objs[0].model, criteria)
	if !all || len(objs) == 1 {
		return list, all
	}
	var out []string
	for _, c := range list {
		every := true
		for _, obj := range objs[1:] {
			every = every && obj.model.Supports(c)
		}
		if every {
			out = append(out, c)
		}
	}
	return out, all
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
	if res.Valid == checker.Unknown && interrupted(ctx) {
		res.Reason = "interrupted before a verdict"
		return res, nil
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
		fmt.Fprintln(e.stderr, ie.Error()) // escapes the input it quotes
		return
	}
	e.fileNote(file, "%v", err)
}

// fileNote prints one line about file on stderr, "FILE: message". Messages
// quote the input (names, values, fragments of the file), so the file name
// and message are escaped (history.Quote, history.Escape) like every text
// from the input: whatever the input holds, the note is one line and sends
// no control sequence to the terminal.
func (e *env) fileNote(file, format string, args ...any) {
	fmt.Fprintf(e.stderr, "%s: %s\n", history.Quote(file), history.Escape(fmt.Sprintf(format, args...)))
}

func printCheckError(e *env, file string, err error) {
	var we *suite.WitnessError
	if errors.As(err, &we) {
		e.fileNote(file, "internal error: %v", err)
		fmt.Fprintln(e.stderr, "this is a bug in histcheck; please report it with the input file")
		return
	}
	var ue *suite.UnsupportedError
	if errors.As(err, &ue) {
		e.fileNote(file, "%v", err)
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

// writeHTML writes the web page of rep to path.
func writeHTML(path string, rep *report.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing the web page: %w", err)
	}
	if err := report.HTML(f, rep); err != nil {
		f.Close()
		return fmt.Errorf("writing the web page %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the web page %s: %w", path, err)
	}
	return nil
}
