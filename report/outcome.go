package report

import (
	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/history"
)

// NewHistoryOf is the report of one history and what check.Run found in
// it; file names the history (a file name, "-" for standard input).
func NewHistoryOf(file string, h *history.History, o check.Outcome) History {
	hr := NewHistory(file, o.Model, h)
	hr.Init = InitJSON(o.Options.Init)
	hr.NilRead = o.NilRead
	hr.TTL = o.Options.TTL
	for _, res := range o.Results {
		r := NewResult(h, res.Result)
		r.ImpliedBy = res.ImpliedBy
		if res.Core != nil && len(r.Violations) > 0 {
			r.Violations[0].Core = NewCore(h, *res.Core)
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
