package check

import (
	"slices"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
)

// Refused is the outcome of a history that could not be checked, for the
// reason err, before Run was called: a file that could not be read (h is
// then nil) or a setting that could not be taken. Every criterion req
// asks for is unknown and marked NotChecked, as when Run itself refuses a
// history, so that a history refused anywhere is reported the same way.
func Refused(req Request, h *history.History, err error) Outcome {
	r := &run{h: h, req: req}
	if r.req.Models == nil {
		r.req.Models = suite.Builtin()
	}
	r.refuse(err)
	return r.out
}

// refuse ends a run that cannot go on (a model that does not fit the
// operations, a transaction the checker refuses, a setting that does not
// apply): err is kept as Outcome.Refused, and every criterion the run was
// to report that has no verdict yet gets an unknown one, NotChecked, so
// that no report form can read the history as passing. The verdicts
// already found are kept.
func (r *run) refuse(err error) {
	r.out.Refused = err
	if r.out.Model == "" {
		r.out.Model = r.knownSpec()
	}
	for _, c := range r.planned() {
		if !slices.ContainsFunc(r.out.Results, func(res Result) bool { return res.Criterion == c }) {
			r.out.Results = append(r.out.Results, Result{
				Result:     checker.Result{Criterion: c, Valid: checker.Unknown},
				NotChecked: true,
			})
		}
	}
}

// planned lists the criteria the run reports a verdict on, in order, as
// far as they are known without checking: those asked for (as given, when
// some name is not one), else the model's default, then the anomalies
// asked for; "all" is every criterion the models support, or every
// non-transactional criterion when the model is not known.
func (r *run) planned() []string {
	models := r.knownModels()
	def := ""
	if len(models) > 0 {
		def = models[0].Default
	}
	criteria, err := requested(r.req, def)
	if err != nil {
		criteria = givenNames(r.req)
	}
	if !slices.Contains(criteria, All) {
		return criteria
	}
	if len(models) == 0 {
		out := slices.Clone(checker.AllCriteria)
		for _, c := range criteria {
			if c != All && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
		return out
	}
	out, _ := expandModels(models, criteria)
	return out
}

// givenNames are the criteria asked for as given, each once, when they
// do not all name criteria, and the anomalies' criterion after them.
func givenNames(req Request) []string {
	var out []string
	for _, c := range req.Criteria {
		if c = strings.TrimSpace(c); c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		out = []string{checker.Linearizable}
	}
	if len(req.Anomalies) > 0 && !slices.Contains(out, elle.AnomaliesCriterion) {
		out = append(out, elle.AnomaliesCriterion)
	}
	return out
}

// knownModels are the models the run checks with, as far as they are
// known: the objects' once settled, else those the request names, else
// the file's own or the one detected from the operation names.
func (r *run) knownModels() []suite.Model {
	if len(r.objs) > 0 {
		var out []suite.Model
		for _, obj := range r.objs {
			if !slices.ContainsFunc(out, func(m suite.Model) bool { return m.Info.Name == obj.model.Info.Name }) {
				out = append(out, obj.model)
			}
		}
		return out
	}
	spec, ok := r.spec0()
	if !ok {
		return nil
	}
	found, err := spec.lookupAll(r.req.Models)
	if err != nil {
		return nil
	}
	out := make([]suite.Model, 0, len(found))
	for _, name := range spec.names() {
		out = append(out, found[name])
	}
	return out
}

// knownSpec names the model or models the run checks with, as far as
// they are known ("" when not).
func (r *run) knownSpec() string {
	if spec, ok := r.spec0(); ok {
		return spec.String()
	}
	return ""
}

// spec0 is the model setting before the history is split into objects:
// the request's, else the file's own or the one detected.
func (r *run) spec0() (modelSpec, bool) {
	if r.req.Model != "" {
		spec, err := ParseModels(r.req.Model)
		return spec, err == nil
	}
	if r.h == nil {
		return modelSpec{}, false
	}
	spec, _, err := chooseSpec(r.req.Models, nil, r.h)
	return spec, err == nil
}
