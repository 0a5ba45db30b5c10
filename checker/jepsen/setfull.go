package jepsen

import (
	"sort"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// mark is an event set-full remembers about an element: its place in the
// history's order and its recorded time (0 without times).
type mark struct {
	op   int
	pos  int64
	time int64
}

var noMark = mark{op: checker.None, pos: -1}

// element is one element's state in set-full, from its add's invocation.
type element struct {
	value                  history.Value
	known, present, absent mark
}

// checkSetFull is Jepsen's set-full checker. Each element is followed
// from its add's invocation: it is known once its add completed ok or a
// read saw it (whichever completed first); reads that saw it and missed
// it are remembered by the latest invocation. It is stable when a read
// that saw it was invoked after every read that missed it, lost when it
// was known before the latest read that missed it was invoked and no
// later-invoked read saw it, else never read. Lost elements make the
// history invalid, and so do duplicates, and stale elements (stable ones
// that a read invoked a millisecond or more after they were known
// missed) with the linearizable option; with no stable element and
// nothing invalid the verdict is unknown.
func checkSetFull(h *history.History, opts Options) checker.Result {
	tr := &tracker{ids: map[history.Value]int{}, dups: map[history.Value]int{}}
	for _, e := range events(h) {
		o := &h.Ops[e.op]
		switch {
		case o.F == "add" && !e.done:
			tr.start(o.Value)
		case o.F == "add" && o.Status == history.OK:
			if id, ok := tr.ids[o.Value]; ok && tr.els[id].known.op == checker.None {
				tr.els[id].known = completion(h, e.op)
			}
		case o.F == "read" && e.done && o.Status == history.OK:
			tr.read(h, e.op)
		}
	}
	results := make([]checker.SetFullElement, 0, len(tr.els))
	for _, el := range tr.els {
		results = append(results, el.result())
	}
	sort.Slice(results, func(i, j int) bool { return history.Compare(results[i].Element, results[j].Element) < 0 })
	t := setFullTally(results, tr.dups, opts.Linearizable)
	return setFullResult(h, t)
}

// tracker follows every element added so far, each by a dense id, so
// that a read marks the elements it saw rather than looking each up.
type tracker struct {
	ids map[history.Value]int
	els []*element
	// seenBy[id] is the number of the latest read that saw element id,
	// times how many times it returned it.
	seenBy, times []int
	reads         int
	dups          map[history.Value]int
}

// start begins (or begins again) an element's life at its add's
// invocation.
func (tr *tracker) start(v history.Value) {
	el := &element{value: v, known: noMark, present: noMark, absent: noMark}
	if id, ok := tr.ids[v]; ok {
		tr.els[id] = el
		return
	}
	tr.ids[v] = len(tr.els)
	tr.els = append(tr.els, el)
	tr.seenBy, tr.times = append(tr.seenBy, 0), append(tr.times, 0)
}

// completion marks the completion of h.Ops[i].
func completion(h *history.History, i int) mark {
	o := &h.Ops[i]
	m := mark{op: i, pos: o.Return}
	if h.Timed {
		m.time = o.Times.Return
	}
	return m
}

// read records what the read h.Ops[r] saw and missed, and the elements
// it returned more than once.
func (tr *tracker) read(h *history.History, r int) {
	o := &h.Ops[r]
	tr.reads++
	var untracked map[history.Value]int
	for _, v := range o.Value.Elems() {
		id, ok := tr.ids[v]
		if !ok {
			if untracked == nil {
				untracked = map[history.Value]int{}
			}
			untracked[v]++
			tr.duplicate(v, untracked[v])
			continue
		}
		if tr.seenBy[id] != tr.reads {
			tr.seenBy[id], tr.times[id] = tr.reads, 0
		}
		tr.times[id]++
		tr.duplicate(v, tr.times[id])
	}
	inv := mark{op: r, pos: o.Call}
	if h.Timed {
		inv.time = o.Times.Call
	}
	for id, el := range tr.els {
		switch {
		case tr.seenBy[id] == tr.reads:
			if el.known.op == checker.None {
				el.known = completion(h, r)
			}
			if el.present.pos < inv.pos {
				el.present = inv
			}
		case el.absent.pos < inv.pos:
			el.absent = inv
		}
	}
}

// duplicate notes that one read returned v n times.
func (tr *tracker) duplicate(v history.Value, n int) {
	if n > 1 && n > tr.dups[v] {
		tr.dups[v] = n
	}
}

// result judges one element.
func (el *element) result() checker.SetFullElement {
	out := checker.SetFullElement{Element: el.value, Known: el.known.op, LastPresent: el.present.op,
		LastAbsent: el.absent.op, StableLatency: -1, LostLatency: -1}
	stable := el.present.op != checker.None && el.absent.pos < el.present.pos
	lost := el.known.op != checker.None && el.absent.op != checker.None &&
		el.present.pos < el.absent.pos && el.known.pos < el.absent.pos
	switch {
	case stable:
		out.Outcome, out.StableLatency = checker.Stable, el.since(el.absent)
	case lost:
		out.Outcome, out.LostLatency = checker.Lost, el.since(el.present)
	default:
		out.Outcome = checker.NeverRead
	}
	return out
}

// since is the latency from the element being known to just after the
// read invoked at m (to time 0 without one, as Jepsen counts it): the
// stable latency after the last read that missed it, the lost latency
// after the last that saw it.
func (el *element) since(m mark) int64 {
	at := int64(0)
	if m.op != checker.None {
		at = m.time + 1
	}
	return millis(at - el.known.time)
}

// millis turns nanoseconds into whole milliseconds, at least 0.
func millis(ns int64) int64 {
	if ns < 0 {
		return 0
	}
	return ns / 1e6
}

// setFullTally sums the elements up as Jepsen does.
func setFullTally(results []checker.SetFullElement, dups map[history.Value]int, linearizable bool) *checker.SetFullTally {
	t := &checker.SetFullTally{Attempts: len(results), Linearizable: linearizable,
		Stable: []history.Value{}, Lost: []history.Value{}, NeverRead: []history.Value{}, Stale: []history.Value{}}
	var stale []checker.SetFullElement
	var stableLat, lostLat []int64
	for _, r := range results {
		switch r.Outcome {
		case checker.Stable:
			t.Stable = append(t.Stable, r.Element)
			stableLat = append(stableLat, r.StableLatency)
			if r.StableLatency > 0 {
				t.Stale = append(t.Stale, r.Element)
				stale = append(stale, r)
			}
		case checker.Lost:
			t.Lost = append(t.Lost, r.Element)
			lostLat = append(lostLat, r.LostLatency)
		default:
			t.NeverRead = append(t.NeverRead, r.Element)
		}
	}
	// The stalest first; among equals the later element first, as a
	// stable sort reversed gives them.
	sort.SliceStable(stale, func(i, j int) bool { return stale[i].StableLatency < stale[j].StableLatency })
	for i := len(stale) - 1; i >= 0 && len(t.WorstStale) < 8; i-- {
		t.WorstStale = append(t.WorstStale, stale[i])
	}
	t.StableLatencies, t.LostLatencies = quantiles(stableLat), quantiles(lostLat)
	for _, v := range sortedCounts(dups) {
		t.Duplicated = append(t.Duplicated, checker.Duplicate{Element: v, Count: dups[v]})
	}
	return t
}

// quantilePoints are the fractions Jepsen reports latencies at.
var quantilePoints = []float64{0, 0.5, 0.95, 0.99, 1}

// quantiles is Jepsen's frequency distribution: at each point p, the
// latency at place min(n-1, floor(n*p)) of the sorted latencies; nil for
// none.
func quantiles(lat []int64) []checker.Quantile {
	if len(lat) == 0 {
		return nil
	}
	s := append([]int64(nil), lat...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	n := len(s)
	out := make([]checker.Quantile, 0, len(quantilePoints))
	for _, p := range quantilePoints {
		i := min(n-1, int(float64(n)*p))
		out = append(out, checker.Quantile{Point: p, MS: s[i]})
	}
	return out
}

func sortedCounts(m map[history.Value]int) []history.Value {
	set := make(map[history.Value]bool, len(m))
	for v := range m {
		set[v] = true
	}
	return sortedValues(set)
}

// setFullResult gives the verdict and a violation per kind of fault.
func setFullResult(h *history.History, t *checker.SetFullTally) checker.Result {
	tally := &checker.JepsenTally{Checker: SetFull, SetFull: t}
	res := checker.Result{Jepsen: tally}
	switch {
	case len(t.Lost) > 0:
		res.Valid = checker.False
	case len(t.Stable) == 0:
		res.Valid, res.Reason = checker.Unknown, "no element was stable: every element was never read, or none was added"
	case t.Linearizable && len(t.Stale) > 0:
		res.Valid = checker.False
	default:
		res.Valid = checker.True
	}
	if len(t.Duplicated) > 0 {
		res.Valid, res.Reason = checker.False, ""
	}
	if len(t.Lost) > 0 {
		res.Violations = append(res.Violations, setViolation(h, "set-full-lost", checker.None, t.Lost))
	}
	if len(t.Stale) > 0 && t.Linearizable {
		w := t.WorstStale[0]
		ops := []int{w.Known}
		if w.LastAbsent != checker.None {
			ops = append(ops, w.LastAbsent)
		}
		res.Violations = append(res.Violations, checker.Violation{Ops: ops, Op: w.LastAbsent, Pattern: "set-full-stale",
			Jepsen: &checker.JepsenFact{Elements: t.Stale, Element: &w}})
	}
	if len(t.Duplicated) > 0 {
		res.Violations = append(res.Violations, checker.Violation{Ops: []int{}, Pattern: "set-full-duplicated",
			Jepsen: &checker.JepsenFact{Duplicates: t.Duplicated}})
	}
	return res
}
