package adtref

import "github.com/histcheck/histcheck/checker"

// The session guarantees ask for an abstract execution: a total order ar
// on E and a relation vis ⊆ ar such that every e is legal after the events
// vis-before it (in ar order, outputs hidden, e's own visible), and, in
// the typed forms of Viotti and Vukolić (updates are the events the model
// does not class pure reads, observations those that observe, see
// exec.observes):
//
//	read-your-writes:    ↦[update→observation] ⊆ vis
//	monotonic-reads:     vis ; ↦[observation→observation] ⊆ vis
//	monotonic-writes:    ↦[update→update] ⊆ ar
//	writes-follow-reads: vis ; ↦[observation→update] ⊆ ar
//
// session tries every total order ar; for each, every choice of the set
// V(e) of events vis-before e, with one restriction: V(e) holds updates
// only. That is exact. A pure read (model.ReadOp) in a context is stepped
// with its output hidden, which a model accepts without changing the
// state, so removing it from V(e) changes no verdict of legality; and
// removing every edge out of a pure read from a vis that satisfies a
// guarantee keeps it satisfied:
//
//   - read-your-writes asks for edges out of updates only;
//   - monotonic-reads: a vis b, b ↦ c ⇒ a vis c holds for the remaining
//     edges, since both sides keep or lose their edge with their source a;
//   - monotonic-writes: vis plays no part;
//   - writes-follow-reads: fewer vis edges ask fewer pairs of ar.
//
// Conversely, an updates-only vis that satisfies the rules is a vis of the
// definition. So ar is required to contain ↦[update→observation] for
// read-your-writes (vis ⊆ ar) and ↦[update→update] for monotonic-writes
// (orders that do not are skipped: they cannot satisfy the guarantee), and
// for a given ar the rules bind V(e) as follows, so that each process's
// events are settled one after another:
//
//   - read-your-writes: V(e) of an observation e holds the updates ↦-before
//     e;
//   - monotonic-reads: V(e) of an observation e contains V(b) for the
//     observation b last before e in its process (↦ is transitive, so this
//     chain gives every observation b ↦ e);
//   - writes-follow-reads: every event of V(b) of an observation b is
//     ar-before every update that follows b in its process.
func (x *exec[S]) session(criterion string) bool {
	return x.eachOrder(x.arMust(criterion), func(ar []int) bool {
		rank := make([]int, len(x.ev))
		for i, e := range ar {
			rank[e] = i
		}
		for _, evs := range x.procs {
			if !x.sessionHolds(criterion, ar, rank, evs) {
				return false
			}
		}
		return true
	})
}

// arMust is the part of ar the guarantee itself requires.
func (x *exec[S]) arMust(criterion string) func(a, b int) bool {
	switch criterion {
	case checker.ReadYourWrites:
		return func(a, b int) bool { return x.po(a, b) && x.ev[a].update && x.ev[b].observes }
	case checker.MonotonicWrites:
		return func(a, b int) bool { return x.po(a, b) && x.ev[a].update && x.ev[b].update }
	}
	return func(a, b int) bool { return false }
}

// sessionHolds reports whether the events evs of one process, in process
// order, can each be given a visible set as the guarantee says. It keeps,
// after each observation, every visible set that works for it
// (monotonic-reads constrains the next observation's set by the previous
// one's); the process is settled when the last event has one.
func (x *exec[S]) sessionHolds(criterion string, ar []int, rank []int, evs []int) bool {
	prev := []mask{0} // the empty set stands before the first event
	for i, e := range evs {
		chained := criterion == checker.MonotonicReads && x.ev[e].observes
		var works []mask
		for _, v := range subsets(x.updatesBefore(rank, e)) {
			if !x.visAllowed(criterion, rank, evs[:i], evs[i+1:], e, v) {
				continue
			}
			if chained && !containsSome(v, prev) {
				continue
			}
			if x.legal(append(inOrder(ar, v), e), 1<<e) {
				works = append(works, v)
				if !chained {
					break // only a chained event's successor looks at more than one
				}
			}
		}
		if len(works) == 0 {
			return false
		}
		if chained {
			prev = works
		}
	}
	return true
}

// visAllowed applies the guarantee's rule to the set v of updates visible
// to e, with before and after e's process's events before and after it.
func (x *exec[S]) visAllowed(criterion string, rank []int, before, after []int, e int, v mask) bool {
	if !x.ev[e].observes {
		return true // both rules bind the sets of observations only
	}
	switch criterion {
	case checker.ReadYourWrites:
		for _, b := range before {
			if x.ev[b].update && !v.has(b) {
				return false
			}
		}
	case checker.WritesFollowReads:
		for _, c := range after {
			if x.ev[c].update && !allBefore(v, rank, c) {
				return false
			}
		}
	}
	return true
}

// allBefore reports whether every event of v is ar-before c.
func allBefore(v mask, rank []int, c int) bool {
	for a := range rank {
		if v.has(a) && rank[a] >= rank[c] {
			return false
		}
	}
	return true
}

// updatesBefore is the set of updates ar-before e.
func (x *exec[S]) updatesBefore(rank []int, e int) mask {
	var s mask
	for a := range x.ev {
		if x.ev[a].update && rank[a] < rank[e] {
			s |= 1 << a
		}
	}
	return s
}

// subsets lists every subset of s.
func subsets(s mask) []mask {
	out := []mask{0}
	for a := 0; a < 16; a++ {
		if s.has(a) {
			for _, t := range out {
				out = append(out, t|1<<a)
			}
		}
	}
	return out
}

// containsSome reports whether v contains one of the sets in prev.
func containsSome(v mask, prev []mask) bool {
	for _, u := range prev {
		if u&^v == 0 {
			return true
		}
	}
	return false
}
