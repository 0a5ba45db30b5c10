package check

import (
	"slices"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// buildLadder places the verdicts on the ladder: with every edge for a
// read/write-register history, without the edges that hold for registers
// only (ladder.Edge.MemoryOnly) for any other.
func (r *run) buildLadder(results map[string]checker.Result) ladder.Ladder {
	if r.readWriteOnly() {
		return ladder.Build(results)
	}
	return ladder.BuildAny(results)
}

// readWriteOnly reports whether every operation that did not fail is a
// read, a write or a cas of its object's model (model.Info.ClassOf): an
// append, an acquire, an add or a transaction is none of them.
func (r *run) readWriteOnly() bool {
	for _, o := range r.objs {
		for i := range o.h.Ops {
			op := &o.h.Ops[i]
			if op.Status == history.Fail {
				continue
			}
			switch o.model.Info.ClassOf(op.F) {
			case model.ReadOp, model.WriteOp, model.CASOp:
			default:
				return false
			}
		}
	}
	return true
}

// fillImplied gives each criterion of list that was not checked (it does
// not apply to the model's operations, or is not local), or whose check
// could not decide, the verdict the ladder derives for it from the
// criteria that were decided: a pass flows to every weaker criterion, a
// failure to every stronger one. Such results name the decided criterion
// in ImpliedBy. It returns the criteria it filled. Criteria checked object
// by object keep their per-object results.
func (r *run) fillImplied(list []string, results map[string]checker.Result, l ladder.Ladder) map[string]bool {
	rows := make(map[string]ladder.Row, len(l.Table))
	for _, row := range l.Table {
		rows[row.Criterion] = row
	}
	filled := map[string]bool{}
	for _, c := range list {
		row, ok := rows[c]
		if !ok || row.Computed || row.Valid == checker.Unknown || r.perObject(c) {
			continue
		}
		filled[c] = true
	}
	if len(filled) == 0 {
		return filled
	}
	out := slices.DeleteFunc(r.out.Results, func(res Result) bool { return filled[res.Criterion] })
	for _, c := range list {
		if filled[c] {
			out = append(out, Result{
				Result:    checker.Result{Criterion: c, Valid: rows[c].Valid},
				ImpliedBy: decidedRoot(rows, c),
			})
		}
	}
	rank := func(c string) int {
		if i := slices.Index(list, c); i >= 0 {
			return i
		}
		return len(list)
	}
	slices.SortStableFunc(out, func(a, b Result) int { return rank(a.Criterion) - rank(b.Criterion) })
	r.out.Results = out
	return filled
}

// perObject reports whether criterion c has results object by object.
func (r *run) perObject(c string) bool {
	for _, res := range r.out.Results {
		if res.Criterion == c && res.PerKey {
			return true
		}
	}
	return false
}

// decidedRoot follows a derived row's chain of implications back to the
// criterion whose verdict was computed.
func decidedRoot(rows map[string]ladder.Row, c string) string {
	for seen := 0; seen <= len(rows); seen++ {
		row := rows[c]
		if row.Computed || row.DerivedFrom == "" {
			return c
		}
		c = row.DerivedFrom
	}
	return c
}
