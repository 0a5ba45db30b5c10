package jepsen

import (
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// checkSet is Jepsen's set checker: adds, then a final read (the last
// read to complete) judged against them. Every acknowledged add must be
// in it (else lost) and it may hold only elements some add attempted
// (else unexpected); elements whose add's outcome was unknown and that
// were read are recovered.
func checkSet(h *history.History) (checker.Result, error) {
	attempts, acked := map[history.Value]bool{}, map[history.Value]bool{}
	final := checker.None
	for i := range h.Ops {
		o := &h.Ops[i]
		switch {
		case o.F == "add":
			attempts[o.Value] = true
			if o.Status == history.OK {
				acked[o.Value] = true
			}
		case o.F == "read" && o.Status == history.OK:
			if final == checker.None || o.Return > h.Ops[final].Return {
				final = i
			}
		}
	}
	t := &checker.SetTally{FinalRead: final, Attempts: sortedValues(attempts), Acknowledged: sortedValues(acked)}
	tally := &checker.JepsenTally{Checker: Set, Set: t}
	if final == checker.None || absent(h.Ops[final].Value) {
		return unknown("the set was never read", tally), nil
	}
	if err := checkElementsInput(h, final); err != nil {
		return checker.Result{}, err // only the final read is read, as in Jepsen
	}
	read := map[history.Value]bool{}
	for _, v := range h.Ops[final].Value.Elems() {
		read[v] = true
	}
	ok, unexpected, lost, recovered := map[history.Value]bool{}, map[history.Value]bool{}, map[history.Value]bool{}, map[history.Value]bool{}
	for v := range read {
		if attempts[v] {
			ok[v] = true
			if !acked[v] {
				recovered[v] = true
			}
		} else {
			unexpected[v] = true
		}
	}
	for v := range acked {
		if !read[v] {
			lost[v] = true
		}
	}
	t.OK, t.Unexpected, t.Lost, t.Recovered = sortedValues(ok), sortedValues(unexpected), sortedValues(lost), sortedValues(recovered)
	res := checker.Result{Valid: verdict(len(lost) == 0 && len(unexpected) == 0), Jepsen: tally}
	if len(t.Lost) > 0 {
		res.Violations = append(res.Violations, setViolation(h, "set-lost", final, t.Lost))
	}
	if len(t.Unexpected) > 0 {
		res.Violations = append(res.Violations, checker.Violation{Ops: []int{final}, Op: final,
			Pattern: "set-unexpected", Jepsen: &checker.JepsenFact{Elements: t.Unexpected}})
	}
	return res, nil
}

// setViolation names the read and the acknowledged adds of the elements
// it missed (at most maxAdds of them).
func setViolation(h *history.History, pattern string, read int, elems []history.Value) checker.Violation {
	const maxAdds = 8
	want := map[history.Value]bool{}
	for _, v := range elems {
		want[v] = true
	}
	ops := []int{}
	for i := range h.Ops {
		if len(ops) < maxAdds && h.Ops[i].F == "add" && h.Ops[i].Status == history.OK && want[h.Ops[i].Value] {
			ops = append(ops, i)
			delete(want, h.Ops[i].Value)
		}
	}
	if read != checker.None {
		ops = append(ops, read)
	}
	return checker.Violation{Ops: ops, Op: read, Pattern: pattern, Jepsen: &checker.JepsenFact{Elements: elems}}
}
