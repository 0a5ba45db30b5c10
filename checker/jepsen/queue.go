package jepsen

import (
	"fmt"
	"sort"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// multiset counts elements.
type multiset map[history.Value]int

// list writes m as a sorted list, each element as many times as m holds
// it.
func (m multiset) list() []history.Value {
	out := []history.Value{}
	for _, v := range sortedCounts(m) {
		for range m[v] {
			out = append(out, v)
		}
	}
	return out
}

// minus is m without b: each element's count less b's, none below 0.
func (m multiset) minus(b multiset) multiset {
	out := multiset{}
	for v, n := range m {
		if n > b[v] {
			out[v] = n - b[v]
		}
	}
	return out
}

// intersect holds each element as often as both m and b do.
func (m multiset) intersect(b multiset) multiset {
	out := multiset{}
	for v, n := range m {
		if k := min(n, b[v]); k > 0 {
			out[v] = k
		}
	}
	return out
}

// checkTotalQueue is Jepsen's total-queue checker: what goes in must
// come out. Every acknowledged enqueue's element must be dequeued (else
// lost), and only elements some enqueue attempted may be (else
// unexpected); elements dequeued more often than attempted are
// duplicated, and attempted but unacknowledged elements that were
// dequeued recovered, neither of which fails the history. An ok drain
// dequeues each element it returns; a drain of unknown outcome leaves the
// verdict unknown, as Jepsen refuses it.
func checkTotalQueue(h *history.History) checker.Result {
	t := &checker.QueueTally{}
	tally := &checker.JepsenTally{Checker: TotalQueue, Queue: t}
	attempts, enqueued, dequeued := multiset{}, multiset{}, multiset{}
	for i := range h.Ops {
		o := &h.Ops[i]
		switch {
		case o.F == "enqueue":
			attempts[o.Value]++
			if o.Status == history.OK {
				enqueued[o.Value]++
			}
		case o.F == "dequeue" && o.Status == history.OK:
			dequeued[o.Value]++
		case o.F == "drain" && o.Status == history.Info:
			return unknown(fmt.Sprintf("drain %s has an unknown outcome: which elements it took is not known", o.Label()), tally)
		case o.F == "drain" && o.Status == history.OK:
			for _, v := range o.Value.Elems() {
				dequeued[v]++
			}
		}
	}
	ok := dequeued.intersect(attempts)
	unexpected := multiset{}
	for v, n := range dequeued {
		if attempts[v] == 0 {
			unexpected[v] = n
		}
	}
	duplicated := dequeued.minus(attempts).minus(unexpected)
	lost := enqueued.minus(dequeued)
	recovered := ok.minus(enqueued)
	t.Attempts, t.Enqueued, t.Dequeued = attempts.list(), enqueued.list(), dequeued.list()
	t.OK, t.Unexpected, t.Duplicated = ok.list(), unexpected.list(), duplicated.list()
	t.Lost, t.Recovered = lost.list(), recovered.list()
	res := checker.Result{Valid: verdict(len(t.Lost) == 0 && len(t.Unexpected) == 0), Jepsen: tally}
	if len(t.Lost) > 0 {
		res.Violations = append(res.Violations, checker.Violation{Ops: opsOf(h, "enqueue", t.Lost), Op: checker.None,
			Pattern: "total-queue-lost", Jepsen: &checker.JepsenFact{Elements: t.Lost}})
	}
	if len(t.Unexpected) > 0 {
		res.Violations = append(res.Violations, checker.Violation{Ops: opsOf(h, "dequeue", t.Unexpected), Op: checker.None,
			Pattern: "total-queue-unexpected", Jepsen: &checker.JepsenFact{Elements: t.Unexpected}})
	}
	return res
}

// maxNamed bounds the operations a violation names.
const maxNamed = 8

// opsOf names the operations f that completed ok with one of the values
// vs (a drain's elements included for a dequeue), at most maxNamed.
func opsOf(h *history.History, f string, vs []history.Value) []int {
	want := make(map[history.Value]bool, len(vs))
	for _, v := range vs {
		want[v] = true
	}
	ops := []int{}
	for i := range h.Ops {
		o := &h.Ops[i]
		if len(ops) == maxNamed {
			break
		}
		if o.Status != history.OK {
			continue
		}
		switch {
		case o.F == f && want[o.Value]:
			ops = append(ops, i)
		case o.F == "drain" && f == "dequeue":
			for _, v := range o.Value.Elems() {
				if want[v] {
					ops = append(ops, i)
					break
				}
			}
		}
	}
	return ops
}

// maxDuplicateIDs bounds the duplicated identifiers listed, as Jepsen's
// unique-ids checker does.
const maxDuplicateIDs = 48

// checkUniqueIDs is Jepsen's unique-ids checker: every generate that
// completed ok must return an identifier no other returned.
func checkUniqueIDs(h *history.History) checker.Result {
	t := &checker.UniqueIDsTally{}
	tally := &checker.JepsenTally{Checker: UniqueIDs, IDs: t}
	freqs := multiset{}
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.F != "generate" {
			continue
		}
		t.Attempted++
		if o.Status != history.OK {
			continue
		}
		t.Acknowledged++
		freqs[o.Value]++
		if t.Lowest.IsNone() || history.Compare(o.Value, t.Lowest) < 0 {
			t.Lowest = o.Value
		}
		if t.Highest.IsNone() || history.Compare(o.Value, t.Highest) > 0 {
			t.Highest = o.Value
		}
	}
	dups := multiset{}
	for v, n := range freqs {
		if n > 1 {
			dups[v] = n
		}
	}
	t.DuplicatedCount = len(dups)
	// Jepsen keeps the most frequent: sorted by count (ties by
	// identifier), reversed, the first 48, then sorted by identifier.
	ids := sortedCounts(dups)
	sort.SliceStable(ids, func(i, j int) bool { return dups[ids[i]] < dups[ids[j]] })
	var top []history.Value
	for i := len(ids) - 1; i >= 0 && len(top) < maxDuplicateIDs; i-- {
		top = append(top, ids[i])
	}
	sort.Slice(top, func(i, j int) bool { return history.Compare(top[i], top[j]) < 0 })
	t.Duplicated = []checker.Duplicate{}
	for _, v := range top {
		t.Duplicated = append(t.Duplicated, checker.Duplicate{Element: v, Count: dups[v]})
	}
	res := checker.Result{Valid: verdict(len(dups) == 0), Jepsen: tally}
	if len(dups) > 0 {
		ids := make([]history.Value, len(t.Duplicated))
		for i, d := range t.Duplicated {
			ids[i] = d.Element
		}
		res.Violations = append(res.Violations, checker.Violation{Ops: opsOf(h, "generate", ids), Op: checker.None,
			Pattern: "unique-ids-duplicated", Jepsen: &checker.JepsenFact{Duplicates: t.Duplicated}})
	}
	return res
}
