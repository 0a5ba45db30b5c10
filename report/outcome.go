package report

import (
	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/history"
)

// Option adjusts what NewHistoryOf builds.
type Option func(*options)

type options struct{ textOnly bool }

// TextOnly says, when yes, that the report is only written as text
// (WriteText, Summary), which shows the first MaxWitnessSteps steps of a
// witness and counts the others: only those steps are built. On a
// history of a hundred thousand operations that is most of the report's
// work.
func TextOnly(yes bool) Option { return func(o *options) { o.textOnly = yes } }

// NewHistoryOf is the report of one history and what check.Run found in
// it; file names the history (a file name, "-" for standard input). h is
// nil for a file that could not be read (o is then check.Refused's). A
// refused outcome sets Error, and each criterion not checked says why.
func NewHistoryOf(file string, h *history.History, o check.Outcome, opts ...Option) History {
	var op options
	for _, f := range opts {
		f(&op)
	}
	hr := History{File: file, Model: o.Model, Results: []Result{}}
	if h != nil {
		hr = NewHistory(file, o.Model, h)
	} else {
		h = &history.History{} // not read: no operation to show
	}
	hr.Init = InitJSON(o.Options.Init)
	if o.NilRead != "" {
		hr.NilRead = o.NilRead
	}
	hr.TTL = o.Options.TTL
	if o.Refused != nil {
		hr.Error = o.Refused.Error()
	}
	for _, res := range o.Results {
		cr, n := res.Result, 0
		if op.textOnly {
			cr.Witness, n = shownSteps(h, cr.Witness)
		}
		if res.NotChecked {
			cr.Reason = notChecked(hr.Error)
		}
		r := NewResult(h, cr)
		r.witnessLen = n
		r.ImpliedBy = res.ImpliedBy
		if res.Core != nil && len(r.Violations) > 0 {
			r.Violations[0].adopt(h, *res.Core, newCore(h, *res.Core, o.Options.Init))
		}
		if res.PerKey {
			if !res.Key.IsNone() {
				r.Key = res.Key.JSON()
			}
			r.Model = res.Model
		}
		hr.Results = append(hr.Results, r)
	}
	if l := o.Ladder; l != nil {
		hr.Ladder = &Ladder{Strongest: orEmpty(l.Strongest), Weakest: orEmpty(l.Weakest)}
	}
	if k := o.Keys; k != nil {
		hr.Keys = &KeyCounts{Keys: k.Keys, Failed: k.Failed, Reads: k.Reads, Unplaced: k.Unplaced, ReadsSkipped: k.ReadsSkipped}
	}
	return hr
}

func orEmpty(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// shownSteps returns the steps of witness the text form shows and, when
// those are not all of them, how many there are (0 when they are): the
// steps that name an operation of h, as NewResult keeps them.
func shownSteps(h *history.History, witness []int) ([]int, int) {
	var shown []int
	n := 0
	for _, i := range witness {
		if i < 0 || i >= len(h.Ops) {
			continue
		}
		if n++; n <= MaxWitnessSteps {
			shown = append(shown, i)
		}
	}
	if n <= MaxWitnessSteps {
		return witness, 0
	}
	return shown, n
}

// notChecked is the reason of a verdict left unknown because the history
// was refused for reason.
func notChecked(reason string) string { return "not checked: " + reason }
