// Package check is histcheck's checking pipeline as a library: given a
// validated history and a Request (criteria, model, settings, limits), Run
// settles the model and its options, checks every criterion, object by
// object where the criterion is local, shrinks violations to cores and
// places the verdicts on the ladder. The command line, the tests and the
// benchmarks all check through it; package report renders its Outcome.
package check

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Limits bound a run. Zero values mean no limit, except CoreTime, whose
// zero means the default (10 s).
type Limits struct {
	// Timeout bounds each criterion's check of each object.
	Timeout time.Duration
	// Memory bounds, in bytes, what the process may hold while the run
	// checks (package budget): searches ask before their memos grow. Each
	// criterion's check of each object, with its core, runs under its own
	// share of what the run does not hold when it begins (budget.Share):
	// past it that verdict alone is unknown with the reason, and what the
	// check held is released for the next. Past the whole budget every
	// verdict not yet known is unknown with the reason. 0 means
	// budget.Default() (the container's limit, else a quarter of the
	// machine's memory); negative means no bound.
	Memory int64
	// Budget, when set, is the run's memory budget, and Memory is not
	// read: a caller's own, which it may measure itself
	// (budget.NewMetered).
	Budget *budget.Memory
	// Workers is how many goroutines a checker may use (0: one per CPU).
	Workers int
	// CoreTime bounds the shrinking of each violation to its core.
	CoreTime time.Duration
	// CycleBudget bounds the nodes the cycle searches of a transactional
	// history visit (0: elle.DefaultBudget); past it, the classes not
	// searched are unknown.
	CycleBudget int64
}

// Request says what to check a history for.
type Request struct {
	// Name names the history in what the run reports (a file name).
	Name string
	// Criteria names the criteria to check, in order, or is ["all"] for
	// every criterion the model supports and the ladder; empty means
	// linearizability.
	Criteria []string
	// Model is a model name or KEY=MODEL pairs (see ParseModels); "" takes
	// the history's own model setting, else one detected from the
	// operation names.
	Model string
	// Models are the models to choose from; nil means the built-in ones.
	Models []suite.Model
	// Init is the initial value; None takes the history's init setting,
	// else the model's default.
	Init history.Value
	// NilRead is "value" or "any"; "" takes the history's setting, else
	// "value".
	NilRead string
	// TTL is a lease length: a number in the history's time unit or a
	// duration such as "10s"; "" takes the history's ttl setting.
	TTL string
	// EventTimes says that the history's times are Jepsen event times
	// (nanoseconds) unless it names its own time unit.
	EventTimes bool
	// Limits bound the run.
	Limits Limits
	// NoCore skips shrinking violations to cores; NoCheck stops after the
	// model and its options are settled.
	NoCore, NoCheck bool
	// Verify re-checks every witness independently of the search.
	Verify bool
	// MaxViolations bounds the violations reported per criterion (0: the
	// checker's default).
	MaxViolations int
	// ModelOptions are the model's own options, NAME=VALUE (see
	// ParseModelOptions): a bank's total-amount and negative-balances,
	// long-fork's group-size, set-full's linearizable. Options not given
	// are taken from the history's settings of the same names.
	ModelOptions []string
	// Anomalies asks a transactional model for specific anomalies, named
	// as Elle names them (see ParseAnomalies): their verdict comes after
	// the criteria's, as the criterion "anomalies", and alone when no
	// criterion is asked for.
	Anomalies []string
	// Assume names assumptions about the store that let rw-register
	// infer more of its version orders (elle.Assumptions: wfr-keys,
	// sequential-keys, linearizable-keys; see ParseAssumptions); only
	// rw-register takes them.
	Assume []string
	// ElleOnly decides Elle's isolation levels of rw-register histories
	// as Elle does, from the anomalies its inference finds, without
	// deciding whether a commit order exists (package checker/isolation),
	// which refines serializable, snapshot isolation and the levels that
	// imply them otherwise: elle-cli's behaviour.
	ElleOnly bool
	// Note, when set, hears what the run has to tell besides its
	// verdicts, as it happens: the model it detected, criteria it could
	// not check, internal errors.
	Note func(Note)
	// Progress, when set, is told what the run is doing ("checking",
	// "finding the core of", "counting the failing keys of") and for
	// which criterion (or ""); the function it returns is called when
	// that is done.
	Progress func(what, criterion string) (done func())
}

// Note is something a run tells its caller besides the verdicts.
type Note struct {
	Text string
	// Bug marks an internal error: a bug in histcheck or in a model.
	Bug bool
}

// Outcome is what a run found.
type Outcome struct {
	// Settled reports that the model and its options were settled; when
	// false, the fields below are empty.
	Settled bool
	// Model is the model or models used, as Request.Model names them.
	Model string
	// Options are the model's settings; NilRead names the nil-read rule.
	Options model.Options
	NilRead string
	// Results are the verdicts in the order of the criteria, one per
	// object for a criterion checked object by object.
	Results []Result
	// Ladder places the verdicts when every criterion was asked for.
	Ladder *ladder.Ladder
	// Keys breaks a failing linearizability check down by key.
	Keys *KeyCounts
	// Internal reports that some check failed with an internal error; Run
	// then also returns those errors (each a *suite.InternalError), after
	// checking everything else.
	Internal bool
	// Refused, when set, is why the history could not be checked (the
	// error Run returns: a model that does not fit its operations, a
	// transaction the checker refuses, a setting that does not apply):
	// Results then hold, besides the verdicts found before, an unknown
	// one, NotChecked, for every other criterion asked for.
	Refused error
}

// Result is one criterion's verdict on one object.
type Result struct {
	checker.Result
	// Key and Model name the object when the history was checked object
	// by object (PerKey); Key is None for the operations without a key.
	Key    history.Value
	Model  string
	PerKey bool
	// Core is the violation's minimal core, when one was found.
	Core *shrink.Core
	// ImpliedBy, when set, names the checked criterion this verdict
	// follows from along the ladder's implications (a pass flows to every
	// weaker criterion, a failure to every stronger one): the criterion
	// itself was not checked, or its check could not decide.
	ImpliedBy string
	// NotChecked reports that the criterion was not checked because the
	// run was refused (Outcome.Refused says why); the verdict is unknown.
	NotChecked bool
}

// KeyCounts breaks a keyed history whose linearizability fails down by key.
type KeyCounts struct {
	Keys, Failed int
	// Reads counts the reads on the failing keys that were checked one by
	// one, and Unplaced those that contradict their key's writes alone.
	Reads, Unplaced int
	// ReadsSkipped reports keys whose reads were not counted.
	ReadsSkipped bool
}

// ErrInterrupted is the cause a caller gives the context it cancels when
// the user interrupts a run: the verdicts not known then are unknown,
// "interrupted before a verdict".
var ErrInterrupted = errors.New("interrupted")

// Run checks h as req says. The error is an input or usage error (an
// unknown model, a criterion the model does not support, a bad setting),
// or a checker's error; Outcome then holds what was found before it, is
// Refused for that error, and has a verdict, unknown when not found, for
// every criterion asked for.
func Run(ctx context.Context, h *history.History, req Request) (Outcome, error) {
	if h == nil {
		err := errors.New("check: no history")
		return Refused(req, nil, err), err
	}
	// The engines rely on what pairing establishes; a history built or
	// changed by hand may not keep it.
	if err := h.Validate(); err != nil {
		err = fmt.Errorf("check: invalid history: %w", err)
		return Refused(req, h, err), err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	mem := req.Limits.Budget
	if mem == nil {
		mem = budget.For(req.Limits.Memory)
	}
	// The run is cancelled when the process is past the whole budget:
	// by the watch while a check runs, and between checks by the run
	// itself (see part).
	ctx, stopRun := context.WithCancelCause(ctx)
	defer stopRun(context.Canceled)
	ctx, stop := mem.Watch(ctx)
	defer stop()
	r := &run{ctx: ctx, stopRun: stopRun, h: h, req: req, mem: mem}
	if r.req.Models == nil {
		r.req.Models = suite.Builtin()
	}
	if err := r.settle(); err != nil {
		r.refuse(err)
		return r.out, err
	}
	if hasVersions(h) && !model.UsesVersions(h) {
		r.note("versions are ignored: they count only when every operation that did not fail (reads of unknown outcome aside) "+
			"carries an integer version and no two writes of a key share one; reads are matched to writes by their values", false)
	}
	if req.NoCheck {
		return r.out, nil
	}
	if err := r.checkAll(); err != nil {
		r.refuse(err)
		return r.out, err
	}
	return r.out, errors.Join(r.internal...)
}

// withCause puts the reason the context ended, when it is the memory
// budget or a criterion's share of it, before an unknown verdict's reason;
// or else, when the share refused a search more memory, that refusal.
func withCause(ctx context.Context, share *budget.Memory, reason string) string {
	var ee *budget.ExceededError
	if !errors.As(context.Cause(ctx), &ee) {
		ee = share.Refused()
	}
	if ee == nil {
		return reason
	}
	if reason == "" {
		return ee.Error()
	}
	return ee.Error() + "; " + reason
}

// hasVersions reports whether some operation carries a version.
func hasVersions(h *history.History) bool {
	for i := range h.Ops {
		if !h.Ops[i].Version.IsNone() {
			return true
		}
	}
	return false
}

// run is one Run's state.
type run struct {
	ctx context.Context
	h   *history.History
	req Request
	// internal are the internal errors met, returned once the run is done.
	internal []error
	// mem is the run's memory budget (nil: none); ctx is cancelled when
	// it is exceeded, by its watch or by stopRun.
	mem     *budget.Memory
	stopRun context.CancelCauseFunc
	spec    modelSpec
	objs    []object
	sopts   suite.Options
	out     Outcome
}

func (r *run) note(text string, bug bool) {
	if r.req.Note != nil {
		r.req.Note(Note{Text: text, Bug: bug})
	}
}

func (r *run) progress(what, criterion string) func() {
	if r.req.Progress == nil {
		return func() {}
	}
	return r.req.Progress(what, criterion)
}

// settle chooses the model or models, splits the history into objects and
// settles the model's options.
func (r *run) settle() error {
	var flag *modelSpec
	if r.req.Model != "" {
		spec, err := ParseModels(r.req.Model)
		if err != nil {
			return err
		}
		flag = &spec
	}
	spec, how, err := chooseSpec(r.req.Models, flag, r.h)
	if err != nil {
		return err
	}
	if r.objs, err = spec.objects(r.req.Models, r.h); err != nil {
		return err
	}
	if how == detected {
		r.note(fmt.Sprintf("model %s (%s)", spec, how), false)
	}
	r.spec = spec
	mopts, nilRead, err := r.modelOptions()
	if err != nil {
		return err
	}
	if mopts.Settings, err = ParseModelOptions(r.req.ModelOptions); err != nil {
		return err
	}
	if err := checkModelOptions(r.objs, mopts.Settings); err != nil {
		return err
	}
	if mopts.TTL, err = r.ttl(); err != nil {
		return err
	}
	r.sopts = suite.Options{Workers: r.req.Limits.Workers, Verify: r.req.Verify, MaxViolations: r.req.MaxViolations,
		MaxMemory: r.mem.Limit(), Memory: r.mem, Anomalies: r.req.Anomalies, CycleBudget: r.req.Limits.CycleBudget,
		Assume: r.req.Assume, ElleOnly: r.req.ElleOnly}
	if r.mem == nil {
		r.sopts.MaxMemory = -1 // no bound, where 0 would be the engines' default
	}
	r.out = Outcome{Settled: true, Model: spec.String(), Options: mopts, NilRead: nilRead}
	return nil
}

// modelOptions settles the model's settings: the request first, then what
// the file says, then the defaults. It returns the nil-read rule's name too.
func (r *run) modelOptions() (model.Options, string, error) {
	var mo model.Options
	switch {
	case !r.req.Init.IsNone():
		mo.Init = r.req.Init
	case !r.h.Meta["init"].IsNone():
		mo.Init = r.h.Meta["init"]
	}
	nr := r.req.NilRead
	if nr == "" {
		if v := r.h.Meta["nil_read"]; !v.IsNone() {
			s, ok := v.Str()
			if !ok || (s != "value" && s != "any") {
				return mo, "", fmt.Errorf("the file's nil_read is %s; expected value or any", v)
			}
			nr = s
		} else {
			nr = "value"
		}
	}
	if nr != "value" && nr != "any" {
		return mo, "", fmt.Errorf("unknown nil-read rule %q (accepted: value, any)", nr)
	}
	if nr == "any" {
		mo.NilRead = model.NilIsAny
	}
	return mo, nr, nil
}

// ttl settles the lease length in the history's time unit.
func (r *run) ttl() (int64, error) {
	var flag *ttlSetting
	if r.req.TTL != "" {
		t, err := parseTTL(r.req.TTL)
		if err != nil {
			return 0, err
		}
		flag = &t
	}
	return historyTTL(flag, r.h, r.req.EventTimes)
}

// checkAll checks every criterion asked for.
func (r *run) checkAll() error {
	criteria, err := r.criteria()
	if err != nil {
		return err
	}
	for _, obj := range r.objs {
		if err := supported(obj.model, criteria); err != nil {
			return err
		}
		if len(r.req.Assume) > 0 && !obj.model.Assumes {
			return fmt.Errorf("model %s makes no assumptions: --assume applies to rw-register", obj.model.Info.Name)
		}
	}
	list, all := expandObjects(r.objs, criteria)
	results := make(map[string]checker.Result, len(list))
	var skipped, notLocal []string
	var skipErr error
	var linVerdicts []checker.Verdict // each object's, for the breakdown by key
	for _, c := range list {
		targets := r.objs
		if c != checker.Linearizable && len(r.objs) > 1 {
			// Only local criteria (linearizability) hold of a history
			// exactly when they hold of each object; the others hold of
			// the whole or not at all.
			if r.spec.perKey() {
				if all {
					notLocal = append(notLocal, c)
					continue
				}
				return errors.New(notLocalMsg(c))
			}
			targets = []object{{model: r.objs[0].model, h: r.h}}
		}
		vs, whole, err := r.checkCriterion(c, targets)
		if errors.Is(err, suite.ErrReadWriteOnly) && all {
			// "all" means every criterion that applies: the causal and
			// session criteria do not apply to a history with other
			// operations than reads and writes. Asked for by name, they
			// are an error.
			skipped, skipErr = append(skipped, c), err
			continue
		}
		if err != nil {
			return err
		}
		if c == checker.Linearizable {
			linVerdicts = vs
		}
		if c == elle.AnomaliesCriterion {
			continue // not a criterion of the ladder
		}
		if whole != nil {
			results[c] = *whole
		} else {
			results[c] = checker.Result{Criterion: c, Valid: Combine(vs...)}
		}
	}
	if all {
		l := r.buildLadder(results)
		r.out.Ladder = &l
		filled := r.fillImplied(list, results, l)
		skipped = slices.DeleteFunc(skipped, func(c string) bool { return filled[c] })
		notLocal = slices.DeleteFunc(notLocal, func(c string) bool { return filled[c] })
	}
	if len(skipped) > 0 {
		r.note(fmt.Sprintf("not checked: %s (%v)", strings.Join(skipped, ", "), skipErr), false)
	}
	if len(notLocal) > 0 {
		r.note("not checked: "+notLocalMsg(notLocal...), false)
	}
	if res, ok := results[checker.Linearizable]; ok && res.Valid == checker.False {
		done := r.progress("counting the failing keys of", "")
		ctx, sopts, end := r.part("the breakdown by key")
		r.out.Keys = keyBreakdown(ctx, r.objs, linVerdicts, r.h, r.out.Options, sopts, r.req.Limits.Timeout)
		end()
		done()
	}
	return nil
}

// criteria are the criteria asked for or, when none is, the model's
// default: linearizability, or strict serializability for the
// transactional models; serializability when the history records
// sessions but no real time, whose order between sessions would be the
// layout's, not the input's.
func (r *run) criteria() ([]string, error) {
	def := ""
	if len(r.objs) > 0 {
		def = r.objs[0].model.Default
	}
	if def == elle.StrictSerializable && r.h.SessionsOnly {
		def = elle.Serializable
	}
	return requested(r.req, def)
}

// requested are the criteria req asks for or, when it asks for none, the
// model's default def (linearizability when def is ""); the anomalies'
// criterion comes last when anomalies are asked for.
func requested(req Request, def string) ([]string, error) {
	for _, c := range req.Criteria {
		if strings.TrimSpace(c) != "" {
			out, err := ParseCriteria(req.Criteria)
			if err == nil && len(req.Anomalies) > 0 {
				out = append(out, elle.AnomaliesCriterion)
			}
			return out, err
		}
	}
	if len(req.Anomalies) > 0 {
		return []string{elle.AnomaliesCriterion}, nil
	}
	if def != "" {
		return []string{def}, nil
	}
	return ParseCriteria(nil)
}

// checkCriterion checks criterion c on each target object, and the core of
// each violation. Results go to r.out; it returns the verdicts, and the
// result when the target is the whole history.
func (r *run) checkCriterion(c string, targets []object) ([]checker.Verdict, *checker.Result, error) {
	var (
		rs    []Result
		vs    []checker.Verdict
		whole *checker.Result
	)
	for _, obj := range targets {
		done := r.progress("checking", c)
		ctx, sopts, end := r.part(partName(c, obj))
		res, err := runOne(ctx, obj.model, obj.h, c, r.out.Options, sopts, r.req.Limits.Timeout)
		done()
		if res.Valid == checker.Unknown {
			res.Reason = withCause(ctx, sopts.Memory, res.Reason)
		}
		var internal *suite.InternalError
		if errors.As(err, &internal) {
			// A bug: say so, report the verdict as unknown, and go on
			// with the other criteria.
			r.note(err.Error(), true)
			res.Reason = fmt.Sprintf("internal error checking %s of %s: %s", c, history.Quote(r.req.Name), internal.Detail())
			r.out.Internal, err = true, nil
			r.internal = append(r.internal, internal)
		}
		if err != nil {
			end()
			return nil, nil, err
		}
		res = obj.lift(res)
		res = countInstead(obj, c, res, r.out.Options)
		out := Result{Result: res}
		if !r.req.NoCore && res.Valid == checker.False && hasCore(c) && len(res.Violations) > 0 && !counted(res) {
			done := r.progress("finding the core of", c)
			core, err := findCore(ctx, &obj, c, res, r.out.Options, sopts, coreBudget(r.req.Limits.Timeout, res.Elapsed, r.req.Limits.CoreTime))
			done()
			if ie := new(suite.InternalError); errors.As(err, &ie) {
				r.out.Internal = true
				r.internal = append(r.internal, ie)
				r.note(fmt.Sprintf("%s: no core: %v", c, err), true)
			} else if err != nil {
				r.note(fmt.Sprintf("%s: no core: %v", c, err), false)
			}
			out.Core = core
		}
		end()
		if obj.perKey {
			out.PerKey, out.Key, out.Model = true, obj.key, obj.model.Info.Name
		} else {
			whole = &res
		}
		rs, vs = append(rs, out), append(vs, res.Valid)
	}
	r.out.Results = append(r.out.Results, rs...)
	return vs, whole, nil
}

// part starts one part of the run (a criterion's check of one object,
// with its core) under its own share of the memory budget: the context it
// returns is cancelled, with a *budget.ExceededError naming the part as
// its cause, when the process holds more than the share, and the options
// let the searches ask the share before their memos grow. end stops the
// share's watch, and releases what the part held when it ran out, so that
// the next part has the budget again. The whole run is cancelled instead
// when the process is past the whole budget before the part begins.
func (r *run) part(name string) (ctx context.Context, sopts suite.Options, end func()) {
	if err := r.mem.Allow(0, ""); err != nil {
		r.stopRun(err)
	}
	share := r.mem.Share(name)
	ctx, stop := share.Watch(r.ctx)
	sopts = r.sopts
	if share != nil {
		// The memos may take no more than the share either.
		sopts.Memory, sopts.MaxMemory = share, max(share.Allowance(), 1) // 0 would be the default
	}
	return ctx, sopts, func() {
		ranOut := sharedOut(ctx)
		stop()
		if ranOut {
			r.mem.Release()
		}
	}
}

// sharedOut reports whether ctx was cancelled for its share of the memory
// budget.
func sharedOut(ctx context.Context) bool {
	var ee *budget.ExceededError
	return errors.As(context.Cause(ctx), &ee) && ee.Share != ""
}

// partName names a criterion's check of an object in what its share of
// the memory budget says.
func partName(c string, obj object) string {
	if obj.perKey {
		return fmt.Sprintf("%s on key %s", c, obj.key)
	}
	return c
}

// Combine is the verdict of several objects together: false if any is
// false, else unknown if any is unknown, else true.
func Combine(vs ...checker.Verdict) checker.Verdict {
	out := checker.True
	for _, v := range vs {
		switch v {
		case checker.False:
			return checker.False
		case checker.Unknown:
			out = checker.Unknown
		}
	}
	return out
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

// expandObjects expands "all" for a history split into objects: the
// criteria every object's model supports.
func expandObjects(objs []object, criteria []string) ([]string, bool) {
	models := make([]suite.Model, len(objs))
	for i, obj := range objs {
		models[i] = obj.model
	}
	return expandModels(models, criteria)
}

// expandModels expands "all" for several models: the criteria every one
// of them supports.
func expandModels(models []suite.Model, criteria []string) ([]string, bool) {
	list, all := expand(models[0], criteria)
	if !all || len(models) == 1 {
		return list, all
	}
	var out []string
	for _, c := range list {
		every := true
		for _, m := range models[1:] {
			every = every && m.Supports(c)
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
	if res.Valid == checker.Unknown && Interrupted(ctx) {
		res.Reason = "interrupted before a verdict"
		return res, nil
	}
	// Only the deadline is the time limit: the context may also have been
	// cancelled for the memory budget, whose reason the caller gives.
	if res.Valid == checker.Unknown && timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		reason := fmt.Sprintf("no verdict within the time limit of %s (--timeout)", timeout)
		if res.Reason != "" && res.Reason != suite.ReasonTimeout {
			reason += "; " + res.Reason
		}
		res.Reason = reason
	}
	return res, nil
}

// Interrupted reports whether ctx was cancelled with ErrInterrupted.
func Interrupted(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), ErrInterrupted)
}
