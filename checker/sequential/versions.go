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
	default:
		res.Valid = checker.False
		v := d.Violation(p.c.Ops, func(i int) int { return p.c.Pos[i] })
		v.Ops = sortedUnique(v.Ops)
		res.Violations = []checker.Violation{v}
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
