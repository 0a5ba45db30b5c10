package jepsen_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
	"github.com/histcheck/histcheck/history"
)

// refElement is the reference's judgement of one set-full element.
type refElement struct {
	outcome         string
	stable, lostLat int64
}

// setFullReference judges each element from set-full's definitions,
// element by element over the operations rather than in one pass over
// the events: an element's life starts at its latest add's invocation;
// the reads that completed ok after it either saw it or missed it; it is
// known at the earliest completion of an add of it that completed ok, or
// of a read that saw it; stable when the latest-invoked read that saw it
// was invoked after every read that missed it; lost when it was known,
// and a read that missed it was invoked after it was known and after
// every read that saw it.
func setFullReference(h *history.History) map[history.Value]refElement {
	start := map[history.Value]int64{}
	for i := range h.Ops {
		if o := &h.Ops[i]; o.F == "add" {
			if s, ok := start[o.Value]; !ok || o.Call > s {
				start[o.Value] = o.Call
			}
		}
	}
	out := map[history.Value]refElement{}
	for e, s := range start {
		out[e] = refOne(h, e, s)
	}
	return out
}

// refOne judges element e, whose life started at position s.
func refOne(h *history.History, e history.Value, s int64) refElement {
	known, knownT := int64(-1), int64(0)
	knowAt := func(pos, t int64) {
		if known < 0 || pos < known {
			known, knownT = pos, t
		}
	}
	lastP, lastA, pT, aT := int64(-1), int64(-1), int64(0), int64(0)
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Status != history.OK || o.Return < s {
			continue
		}
		switch {
		case o.F == "add" && o.Value == e:
			knowAt(o.Return, o.Times.Return)
		case o.F == "read" && contains(o.Value, e):
			knowAt(o.Return, o.Times.Return)
			if o.Call > lastP {
				lastP, pT = o.Call, o.Times.Call
			}
		case o.F == "read" && o.Call > lastA:
			lastA, aT = o.Call, o.Times.Call
		}
	}
	r := refElement{outcome: checker.NeverRead, stable: -1, lostLat: -1}
	switch {
	case lastP >= 0 && lastA < lastP:
		r.outcome, r.stable = checker.Stable, 0
		if lastA >= 0 {
			r.stable = max(0, aT+1-knownT) / 1e6
		}
	case known >= 0 && lastA >= 0 && lastP < lastA && known < lastA:
		r.outcome, r.lostLat = checker.Lost, max(0, -knownT)/1e6
		if lastP >= 0 {
			r.lostLat = max(0, pT+1-knownT) / 1e6
		}
	}
	return r
}

func contains(set, e history.Value) bool {
	for _, v := range set.Elems() {
		if v == e {
			return true
		}
	}
	return false
}

// TestSetFullAgainstReference compares each element's outcome and
// latencies, and the verdict, with the reference on random histories of
// few elements, added again and read with duplicates now and then.
func TestSetFullAgainstReference(t *testing.T) {
	n := trials()
	r := rand.New(rand.NewPCG(22, 2))
	seen := map[string]int{}
	for i := 0; i < n; i++ {
		add := func() string { return fmt.Sprint(r.IntN(4)) }
		read := func() string {
			var es []string
			for e := 0; e < 4; e++ {
				if r.IntN(3) > 0 {
					es = append(es, fmt.Sprint(e))
				}
			}
			if len(es) > 0 && r.IntN(25) == 0 {
				es = append(es, es[0])
			}
			return "[" + strings.Join(es, " ") + "]"
		}
		h := edn(t, genEvents(r, 4+r.IntN(10), add, read)...)
		res := run(t, jepsen.SetFull, h, nil)
		ref := setFullReference(h)
		s := res.Jepsen.SetFull
		if s.Attempts != len(ref) {
			t.Fatalf("history %d: %d attempts, reference %d", i, s.Attempts, len(ref))
		}
		for _, group := range [][]history.Value{s.Stable, s.Lost, s.NeverRead} {
			for _, e := range group {
				seen[ref[e].outcome]++
			}
		}
		compareOutcomes(t, i, h, s, ref)
		want := checker.True
		switch {
		case len(s.Lost) > 0 || len(s.Duplicated) > 0:
			want = checker.False
		case len(s.Stable) == 0:
			want = checker.Unknown
		}
		if res.Valid != want {
			t.Fatalf("history %d: verdict %v, want %v", i, res.Valid, want)
		}
		seen["verdict "+res.Valid.String()]++
	}
	t.Logf("outcomes and verdicts: %v", seen)
	for _, k := range []string{checker.Stable, checker.Lost, checker.NeverRead, "verdict true", "verdict false", "verdict unknown"} {
		if seen[k] < n/20 {
			t.Errorf("too few %s: %v", k, seen)
		}
	}
}

// compareOutcomes checks every element's outcome and latency.
func compareOutcomes(t *testing.T, i int, h *history.History, s *checker.SetFullTally, ref map[history.Value]refElement) {
	t.Helper()
	lat := map[history.Value]int64{}
	for _, w := range s.WorstStale {
		lat[w.Element] = w.StableLatency
	}
	check := func(outcome string, es []history.Value) {
		for _, e := range es {
			if ref[e].outcome != outcome {
				t.Fatalf("history %d: element %s %s, reference %s\n%s", i, e, outcome, ref[e].outcome, strings.Join(eventsOf(h), "\n"))
			}
			if l, ok := lat[e]; ok && l != ref[e].stable {
				t.Fatalf("history %d: element %s stable latency %d, reference %d", i, e, l, ref[e].stable)
			}
		}
	}
	check(checker.Stable, s.Stable)
	check(checker.Lost, s.Lost)
	check(checker.NeverRead, s.NeverRead)
	var stale, lost []int64
	for _, r := range ref {
		if r.outcome == checker.Stable && r.stable > 0 {
			stale = append(stale, r.stable)
		}
		if r.outcome == checker.Lost {
			lost = append(lost, r.lostLat)
		}
	}
	if len(stale) != len(s.Stale) || maxOf(lost) != topQuantile(s.LostLatencies) {
		t.Fatalf("history %d: stale %d (reference %d), greatest lost latency %d (reference %d)", i, len(s.Stale),
			len(stale), topQuantile(s.LostLatencies), maxOf(lost))
	}
}

func maxOf(xs []int64) int64 {
	m := int64(-1)
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func topQuantile(qs []checker.Quantile) int64 {
	if len(qs) == 0 {
		return -1
	}
	return qs[len(qs)-1].MS
}
