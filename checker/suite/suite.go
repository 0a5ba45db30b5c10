// Package suite binds models to the checkers that work from a sequential
// specification, so that a front end can ask "check criterion C on history H
// with model M" without knowing each model's state type. Adding a model means
// one call to Bind (and ReadWrite when its operations are reads and writes);
// nothing in the checkers changes.
package suite

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/checker/online"
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Options tune the checkers; the model's own settings are model.Options.
type Options struct {
	// Workers bounds the goroutines a checker may use; 0 means one per CPU.
	Workers int
	// Verify re-checks every witness with checker.VerifyWitness, independently
	// of the search that found it. A witness that fails is a WitnessError.
	Verify bool
	// MaxViolations bounds how many violations a checker reports; 0 means
	// the checker's default.
	MaxViolations int
	// Anomalies are the anomalies asked for by name, which a model that
	// reports anomalies (Model.Anomalies) checks as the criterion
	// elle.AnomaliesCriterion.
	Anomalies []string
	// Assume names the assumptions a model that makes them
	// (Model.Assumes) infers more with (elle.Assumptions).
	Assume []string
	// MaxMemory bounds, in bytes, the memory a search may hold before it
	// answers unknown; 0 means the checker's default (a quarter of the
	// machine's memory), negative means no bound.
	MaxMemory int64
	// Memory, when set, is the run's budget for the whole process, which
	// searches ask before their memos grow.
	Memory *budget.Memory
	// CycleBudget bounds the nodes the cycle searches of a transactional
	// history visit; 0 means elle.DefaultBudget.
	CycleBudget int64
}

// CheckFunc runs one criterion on h with the model built from mopts.
type CheckFunc func(ctx context.Context, h *history.History, criterion string, mopts model.Options, opts Options) (checker.Result, error)

// Model is a model bound to every checker that works from its sequential
// specification.
type Model struct {
	Info model.Info
	// Check runs one criterion on h with the model built from mopts. A
	// criterion the model does not support is an *UnsupportedError.
	Check CheckFunc
	// Criteria lists the criteria Check supports, strongest first.
	Criteria []string
	// Default is the criterion checked when none is asked for; ""
	// means linearizability.
	Default string
	// Anomalies reports that the model checks anomalies asked for by name
	// (Options.Anomalies) as the criterion elle.AnomaliesCriterion.
	Anomalies bool
	// Assumes reports that the model takes assumptions about the store
	// (Options.Assume).
	Assumes bool
	// Options are the names of the model's own options
	// (model.Options.Settings); a model without any takes none.
	Options []string
	// Count, when set, refutes h by counting alone (a lock's holders;
	// sequential.RefuteByCount): a violation that holds for every order,
	// real time or not, or nil when counting leaves room for one.
	Count func(h *history.History, mopts model.Options) (*checker.Violation, error)
	// Online, when set, starts the online linearizability check of one
	// object (checker/online) with the model built from mopts.
	Online func(mopts model.Options) online.Object
}

// Supports reports whether m can check criterion.
func (m Model) Supports(criterion string) bool {
	if m.Anomalies && criterion == elle.AnomaliesCriterion {
		return true
	}
	for _, c := range m.Criteria {
		if c == criterion {
			return true
		}
	}
	return false
}

// UnsupportedError is a request for a criterion a model has no checker for.
type UnsupportedError struct {
	Model     string
	Criterion string
	Supported []string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("model %s cannot be checked for %s (it supports: %s)",
		e.Model, e.Criterion, strings.Join(e.Supported, ", "))
}

// WitnessError reports a witness that a checker returned but that does not
// hold up when replayed: a defect in the checker, never in the input.
type WitnessError struct {
	Model     string
	Criterion string
	Err       error
}

func (e *WitnessError) Error() string {
	return fmt.Sprintf("the %s witness for model %s does not verify: %v", e.Criterion, e.Model, e.Err)
}

func (e *WitnessError) Unwrap() error { return e.Err }

// Bind binds a model constructor to the linearizability and sequential
// consistency checkers.
func Bind[S comparable](newModel func(model.Options) model.Model[S]) Model {
	info := newModel(model.Options{}).Info()
	criteria := []string{checker.Linearizable, checker.Sequential}
	check := func(ctx context.Context, h *history.History, criterion string, mopts model.Options, opts Options) (res checker.Result, err error) {
		// One rule decides whether versions count, for every criterion:
		// the causal and session checkers apply the same one.
		mopts.Versions = model.UsesVersions(h)
		m := newModel(mopts)
		defer func() {
			if r := recover(); r != nil {
				ie := &InternalError{Criterion: criterion, Panic: checker.AsPanic(r), Model: diagnose(info.Name, newModel(mopts), h)}
				res, err = checker.Result{Criterion: criterion, Valid: checker.Unknown, Reason: "internal error: " + ie.Detail()}, ie
			}
		}()
		var ord checker.Order
		start := time.Now()
		switch criterion {
		case checker.Linearizable:
			res, err = linearizable(ctx, m, h, opts)
			ord = checker.RealTime
		case checker.Sequential:
			res, err = sequentialCheck(ctx, m, h, opts)
			ord = checker.ProcessOrder
		default:
			return checker.Result{}, &UnsupportedError{Model: info.Name, Criterion: criterion, Supported: criteria}
		}
		if err != nil {
			return res, expired(ctx, criterion, err, start)
		}
		res.Criterion = criterion
		if res.Elapsed == 0 {
			res.Elapsed = time.Since(start)
		}
		if opts.Verify && res.Valid == checker.True && res.Witness != nil {
			if verr := checker.VerifyWitness(m, h, res.Witness, ord); verr != nil {
				return res, &WitnessError{Model: info.Name, Criterion: criterion, Err: verr}
			}
		}
		return res, nil
	}
	count := func(h *history.History, mopts model.Options) (*checker.Violation, error) {
		mopts.Versions = model.UsesVersions(h)
		return sequential.RefuteByCount(newModel(mopts), h)
	}
	build := func(mopts model.Options) model.Model[S] {
		m := newModel(mopts)
		if f, ok := m.(model.Forker[S]); ok {
			m = f.Fork() // each object's sweep runs alone
		}
		return m
	}
	start := func(mopts model.Options) online.Object { return online.NewSweep(build, mopts, 0) }
	return Model{Info: info, Check: check, Criteria: criteria, Count: count, Online: start}
}

// ReadWrite adds the causal criteria and the session guarantees to m, for
// models whose operations are reads and writes of registers (one per key).
// Those checkers work from what each read observed rather than from the
// model's states, and tell reads from writes by m.Info.ClassOf; a
// history with other operations (kv's append) goes to m's own weak
// criteria when it has them (BindWeak);
// mopts.Init, when given, is the registers' initial value, else def is.
func ReadWrite(m Model, def history.Value) Model {
	base, inner := m.Check, m
	criteria := withCriteria(m.Criteria, readWriteCriteria)
	name, info := m.Info.Name, m.Info
	m.Criteria = criteria
	m.Check = func(ctx context.Context, h *history.History, criterion string, mopts model.Options, opts Options) (checker.Result, error) {
		init := mopts.Init
		if init.IsNone() {
			init = def
		}
		start := time.Now()
		var (
			res checker.Result
			err error
		)
		if !containsString(readWriteCriteria, criterion) {
			if !containsString(criteria, criterion) {
				return checker.Result{}, &UnsupportedError{Model: name, Criterion: criterion, Supported: criteria}
			}
			return base(ctx, h, criterion, mopts, opts)
		}
		res, err = weakCheck(ctx, info, h, criterion, init, opts)
		if fallBack(err, inner, criterion) {
			return base(ctx, h, criterion, mopts, opts)
		}
		if err != nil {
			return res, expired(ctx, criterion, err, start)
		}
		if res.Valid == checker.Unknown && ctx.Err() == nil {
			if alt, ok := fromSequential(ctx, base, info, h, criterion, init, mopts, opts); ok {
				res = alt
			}
		}
		if opts.Verify && res.Valid == checker.True && len(res.ReadsFrom) > 0 {
			if verr := verifyReadsFrom(ctx, info, h, criterion, init, res, opts); verr != nil {
				return res, &WitnessError{Model: name, Criterion: criterion, Err: verr}
			}
		}
		res.Criterion = criterion
		if res.Elapsed == 0 {
			res.Elapsed = time.Since(start)
		}
		return res, nil
	}
	return m
}

var readWriteCriteria = []string{checker.CausalMemory, checker.CausalConvergence, checker.Causal,
	checker.PRAM, checker.WritesFollowReads, checker.MonotonicWrites, checker.MonotonicReads, checker.ReadYourWrites}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// expired turns a checker's context error into an unknown verdict, so that a
// timeout is an answer ("could not decide in time"), not a failure.
func expired(ctx context.Context, criterion string, err error, start time.Time) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		if ctx.Err() != nil {
			return &timeoutError{err: err, criterion: criterion, elapsed: time.Since(start)}
		}
	}
	return err
}

type timeoutError struct {
	err       error
	criterion string
	elapsed   time.Duration
}

func (e *timeoutError) Error() string { return e.err.Error() }
func (e *timeoutError) Unwrap() error { return e.err }

// ReasonTimeout is the Reason of a result that is unknown because the
// context's deadline passed.
const ReasonTimeout = "the time limit ran out before a verdict"

// ReasonCancelled is the Reason of a result that is unknown because the
// context was cancelled (an interrupt, or the memory budget, which the
// caller names).
const ReasonCancelled = "the check was cancelled before a verdict"

// InternalError is a panic inside a checker or a model: a bug, reported as
// an unknown verdict rather than the end of the run.
type InternalError struct {
	Criterion string
	Panic     *checker.PanicError
	// Model, when the model's own code panicked, says where; nil when the
	// model, replayed alone, does not panic (a bug in an engine).
	Model *ModelPanic
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("internal error checking %s: %s", e.Criterion, e.Detail())
}

// Detail says what panicked, and where in the model when it was the model.
func (e *InternalError) Detail() string {
	if e.Model == nil {
		return e.Panic.Error()
	}
	return fmt.Sprintf("%v (%s)", e.Panic, e.Model)
}

func (e *InternalError) Unwrap() error { return e.Panic }

// Run calls m.Check and folds a timeout or cancellation into an unknown
// result whose Reason says so; other errors are returned as they are. A
// panic in the check is an *InternalError, with an unknown result whose
// Reason says so.
func Run(ctx context.Context, m Model, h *history.History, criterion string, mopts model.Options, opts Options) (res checker.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			ie := &InternalError{Criterion: criterion, Panic: checker.AsPanic(r)}
			res = checker.Result{Criterion: criterion, Valid: checker.Unknown, Reason: "internal error: " + ie.Panic.Error()}
			err = ie
		}
	}()
	if !m.Supports(criterion) {
		return checker.Result{}, &UnsupportedError{Model: m.Info.Name, Criterion: criterion, Supported: m.Criteria}
	}
	if err := ctx.Err(); err != nil {
		// Honour a limit that ran out before the check began, however
		// quick the check would have been, so that limits behave alike.
		return checker.Result{Criterion: criterion, Valid: checker.Unknown, Reason: ctxReason(err)}, nil
	}
	res, err = m.Check(ctx, h, criterion, mopts, opts)
	var te *timeoutError
	if errors.As(err, &te) {
		return checker.Result{Criterion: criterion, Valid: checker.Unknown, Reason: ctxReason(te.err), Elapsed: te.elapsed}, nil
	}
	if err == nil && res.Valid == checker.Unknown && res.Reason == "" && ctx.Err() != nil {
		res.Reason = ReasonTimeout
	}
	return res, err
}

// ctxReason says why a check its context ended has no verdict.
func ctxReason(err error) string {
	if errors.Is(err, context.Canceled) {
		return ReasonCancelled
	}
	return ReasonTimeout
}

// Lookup finds the model named name among ms, or returns an error naming
// the accepted names.
func Lookup(ms []Model, name string) (Model, error) {
	for _, m := range ms {
		if m.Info.Name == name {
			return m, nil
		}
	}
	return Model{}, fmt.Errorf("unknown model %q (accepted: %s)", name, strings.Join(Names(ms), ", "))
}

// Names lists the models' names in order.
func Names(ms []Model) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Info.Name
	}
	return out
}
