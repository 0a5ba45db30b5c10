package sequential

import (
	"sort"

	"github.com/histcheck/histcheck/checker"
)

// MethodVersions is the Method of a verdict decided from versions.
const MethodVersions = "versions"

// byVersions decides a history whose reads and writes carry versions by
// checker.DecideByVersions in process order. It reports false when that
// does not apply.
func byVersions[S comparable](p *problem[S]) (checker.Result, bool) {
	d, ok := checker.DecideByVersions(p.m, p.c.Ops, p.keyOf, checker.ProcessOrder)
	if !ok {
		return checker.Result{}, false
	}
	res := checker.Result{Method: MethodVersions}
	switch {
	case d.Valid:
		res.Valid = checker.True
		res.Reason = "the versions fix the order of the writes and what each read read, and with each process's order they form no cycle"
		for _, i := range d.Order {
			res.Witness = append(res.Witness, p.c.Pos[i])
		}
		for _, i := range d.Dropped {
			res.Dropped = append(res.Dropped, p.c.Pos[i])
		}
	case d.Nowhere >= 0:
		res.Valid = checker.False
		res.Violations = []checker.Violation{{Ops: []int{p.c.Pos[d.Nowhere]}, Pattern: "thin-air-read",
			Explanation: checker.NowhereText(p.label(int32(d.Nowhere)), p.c.Ops[d.Nowhere].C)}}
	default:
		res.Valid = checker.False
		var ops []int
		for _, i := range d.Cycle {
			ops = append(ops, p.c.Pos[i])
		}
		res.Violations = []checker.Violation{{Ops: sortedUnique(ops), Pattern: "version-cycle",
			Explanation: "no order of the operations keeps the versions and each process's order: " +
				checker.ExplainVersionCycle(d, func(i int) string { return p.label(int32(i)) })}}
	}
	return res, true
}

func sortedUnique(xs []int) []int {
	seen := make(map[int]bool, len(xs))
	var out []int
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Ints(out)
	return out
}
