package suite

import (
	"context"
	"errors"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/adt"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// BindWeak binds a model constructor like Bind, and adds the weak
// criteria that package checker/adt decides from any sequential
// specification (the causal criteria and pram). A model whose steps
// depend on real time (a lease) must not get them: these criteria ignore
// real time.
func BindWeak[S comparable](newModel func(model.Options) model.Model[S]) Model {
	m := Bind(newModel)
	base, name := m.Check, m.Info.Name
	m.Criteria = withCriteria(m.Criteria, adt.Criteria)
	criteria := m.Criteria
	m.Check = func(ctx context.Context, h *history.History, criterion string, mopts model.Options, opts Options) (checker.Result, error) {
		if !containsString(adt.Criteria, criterion) {
			if !containsString(criteria, criterion) {
				return checker.Result{}, &UnsupportedError{Model: name, Criterion: criterion, Supported: criteria}
			}
			return base(ctx, h, criterion, mopts, opts)
		}
		mopts.Versions = model.UsesVersions(h)
		return adtCheck(ctx, newModel(mopts), h, criterion, opts)
	}
	return m
}

// adtCheck runs checker/adt, its witness re-checked when opts.Verify.
func adtCheck[S comparable](ctx context.Context, m model.Model[S], h *history.History, criterion string, opts Options) (checker.Result, error) {
	start := time.Now()
	res, err := adt.Check(ctx, m, h, criterion, adt.Options{})
	if err == nil && res.Valid == checker.Unknown && ctx.Err() != nil {
		// Say a deadline or an interrupt the way every engine does.
		err = ctx.Err()
	}
	if err != nil {
		return res, expired(ctx, criterion, err, start)
	}
	if opts.Verify && res.Valid == checker.True {
		if verr := adt.VerifyWitness(m, h, criterion, res); verr != nil {
			return res, &WitnessError{Model: m.Info().Name, Criterion: criterion, Err: verr}
		}
	}
	return res, nil
}

// withCriteria returns base followed by the criteria of more it lacks,
// in the order of checker.AllCriteria.
func withCriteria(base, more []string) []string {
	var out []string
	for _, c := range checker.AllCriteria {
		if containsString(base, c) || containsString(more, c) {
			out = append(out, c)
		}
	}
	for _, c := range base {
		if !containsString(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// fallBack reports whether a register checker's error means the history
// has operations other than reads, writes and cas (an append), which the
// model's own weak engine, when it has one, decides instead.
func fallBack(err error, m Model, criterion string) bool {
	return errors.Is(err, ErrReadWriteOnly) && containsString(m.Criteria, criterion)
}
