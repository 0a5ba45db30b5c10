package linear

import (
	"context"

	"github.com/histcheck/histcheck/checker"
)

// MethodVersions is the Method of a verdict decided from versions.
const MethodVersions = "versions"

// decideVersions decides, with checker.DecideByVersions in real time, every
// partition left undecided whose reads and writes carry versions: the
// versions fix what the search would look for, so a cycle check settles
// the partition in linear time. It returns how many partitions it decided.
func decideVersions[S comparable](ctx context.Context, parts []*part[S]) int {
	n := 0
	for _, p := range parts {
		if p.done || len(p.comp.Ops) == 0 || ctx.Err() != nil {
			continue
		}
		d, ok := checker.DecideByVersions(p.m, p.comp.Ops, make([]int32, len(p.comp.Ops)), checker.RealTime)
		if !ok {
			continue
		}
		res := checker.Result{Method: MethodVersions, Valid: checker.True}
		if !d.Valid {
			// Positions in the partition, renamed by directViolations.
			res.Valid = checker.False
			res.Violations = []checker.Violation{d.Violation(p.comp.Ops, func(i int) int { return i })}
		}
		p.direct = &res
		p.settle(d.Valid, d.Order)
		n++
	}
	return n
}
