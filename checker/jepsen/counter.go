package jepsen

import (
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// checkCounter is Jepsen's counter checker: the counter starts at 0 and
// only grows by adds; each read must lie between the adds that completed
// before it was invoked and the adds invoked before it completed (failed
// adds do not count). Operations other than add and read are ignored.
func checkCounter(h *history.History) checker.Result {
	t := &checker.CounterTally{Reads: []checker.CounterRead{}, Errors: []checker.CounterRead{}}
	tally := &checker.JepsenTally{Checker: Counter, Counter: t}
	var lower, upper int64
	pending := map[int]int64{} // read -> lower bound at its invocation
	for _, e := range events(h) {
		o := &h.Ops[e.op]
		if o.Status == history.Fail {
			continue
		}
		switch {
		case o.F == "read" && !e.done:
			pending[e.op] = lower
		case o.F == "read" && o.Status == history.OK:
			v, _ := o.Value.Int() // checkCounterInput refused any other value
			r := checker.CounterRead{Op: e.op, Lower: pending[e.op], Value: v, Upper: upper}
			t.Reads = append(t.Reads, r)
			if r.Value < r.Lower || r.Value > r.Upper {
				t.Errors = append(t.Errors, r)
			}
		case o.F == "add":
			n, _ := o.Value.Int()
			if e.done {
				lower += n
			} else {
				upper += n
			}
		}
	}
	res := checker.Result{Valid: verdict(len(t.Errors) == 0), Jepsen: tally}
	for i := range t.Errors {
		r := t.Errors[i]
		res.Violations = append(res.Violations, checker.Violation{Ops: []int{r.Op}, Op: r.Op,
			Pattern: "counter-out-of-bounds", Jepsen: &checker.JepsenFact{Read: &r}})
	}
	return res
}
