package suite

import (
	"context"
	"slices"
	"sync"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/checker/isolation"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Transactional binds a transactional workload (list-append or
// rw-register) to the isolation levels of package elle, strict
// serializability by default. Every level is decided from one analysis
// of the history, which the model keeps for the history it saw last, so
// that checking several levels (-c all) analyses it once.
func Transactional(w elle.Workload) Model {
	info := model.Info{Name: w.String(), Doc: workloadDoc[w], Ops: []model.OpInfo{{
		Names: []string{"txn"},
		Value: workloadValue[w],
		Doc:   "a transaction: its micro-operations in order; reads carry what they returned",
	}}}
	var cache analysisCache
	var exact exactCache
	check := func(ctx context.Context, h *history.History, criterion string, mopts model.Options, opts Options) (checker.Result, error) {
		xopts := isolation.Options{Init: mopts.Init, Verify: opts.Verify, MaxViolations: opts.MaxViolations}
		if w == elle.RWRegister && slices.Contains(isolation.Added, criterion) {
			return exact.get(ctx, h, criterion, xopts)
		}
		a, err := cache.get(ctx, h, w, opts.Assume, opts.CycleBudget)
		if err != nil {
			return checker.Result{}, err
		}
		var res checker.Result
		if criterion == elle.AnomaliesCriterion {
			res, err = a.ResultAnomalies(h, opts.Anomalies)
		} else {
			res, err = a.Result(h, criterion)
			if l := exactFor(criterion); err == nil && w == elle.RWRegister && l != "" && !opts.ElleOnly {
				ex, xerr := exact.get(ctx, h, l, xopts)
				if xerr != nil {
					return res, xerr
				}
				res = refine(criterion, res, ex)
			}
		}
		return elle.Bound(res, opts.MaxViolations), err
	}
	criteria := elle.Levels
	if w == elle.RWRegister {
		criteria = append(slices.Clone(elle.Levels), isolation.Added...)
	}
	return Model{Info: info, Check: check, Criteria: criteria, Default: elle.StrictSerializable, Anomalies: true,
		Assumes: w == elle.RWRegister}
}

var workloadDoc = map[elle.Workload]string{
	elle.ListAppend: "transactions over lists, one per key, initially empty: appends of unique elements and reads of whole lists (Elle's list-append)",
	elle.RWRegister: "transactions over registers, one per key, initially nil: writes of unique values and reads (Elle's rw-register; Knossos's multi-register read and write)",
}

var workloadValue = map[elle.Workload]string{
	elle.ListAppend: "[[append k v] [r k [v ...]] ...]",
	elle.RWRegister: "[[w k v] [r k v] ...] (or read, write)",
}

// analysisCache keeps the analysis of the last history checked, under
// the assumptions and the cycle budget it was made with.
type analysisCache struct {
	mu     sync.Mutex
	h      *history.History
	n      int
	assume elle.Options
	out    *elle.Analysis
}

func (c *analysisCache) get(ctx context.Context, h *history.History, w elle.Workload, assume []string, budget int64) (*elle.Analysis, error) {
	o, err := elle.ParseAssumptions(assume, elle.Options{Budget: budget})
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == h && c.n == len(h.Ops) && c.assume == o && c.out != nil {
		return c.out, nil
	}
	a, err := elle.AnalyzeWith(ctx, h, w, o)
	if err != nil {
		return nil, err
	}
	c.h, c.n, c.assume, c.out = h, len(h.Ops), o, a
	return a, nil
}
