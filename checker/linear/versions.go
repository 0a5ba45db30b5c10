package linear

import (
	"context"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// MethodVersions is the Method of a verdict decided from versions.
const MethodVersions = "versions"

// decideVersions decides, with checker.DecideByVersions in real time, every
// partition left undecided whose reads and writes carry versions: the
// versions fix what the search would look for, so a cycle check settles
// the partition in linear time. It returns how many partitions it decided.
func decideVersions[S comparable](ctx context.Context, h *history.History, parts []*part[S]) int {
	n := 0
	for _, p := range parts {
		if p.done || len(p.comp.Ops) == 0 || ctx.Err() != nil {
			continue
		}
		d, ok := checker.DecideByVersions(p.m, p.comp.Ops, make([]int32, len(p.comp.Ops)), checker.RealTime)
		if !ok {
			continue
		}
		res := checker.Result{Method: MethodVersions}
		label := func(i int) string { return h.Ops[p.comp.Pos[i]].Label() }
		switch {
		case d.Valid:
			res.Valid = checker.True
		case d.Nowhere >= 0:
			res.Valid = checker.False
			res.Violations = []checker.Violation{{Ops: []int{d.Nowhere}, Pattern: "thin-air-read",
				Explanation: checker.NowhereText(label(d.Nowhere), p.comp.Ops[d.Nowhere].C)}}
		default:
			res.Valid = checker.False
			res.Violations = []checker.Violation{{Ops: d.Cycle, Pattern: "version-cycle",
				Explanation: "no order of the operations keeps the versions and real time: " +
					checker.ExplainVersionCycle(d, label)}}
		}
		p.direct = &res
		p.settle(d.Valid, d.Order)
		n++
	}
	return n
}
