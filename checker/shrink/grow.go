package shrink

import (
	"math"
	"sort"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Growing a core. Whittling a long history down weakens half of it at a
// time, and a history with thousands of weakened writes, each of which may
// take effect at any time, is far harder to check than the original. So for
// linearizability of reads, writes and compare-and-sets, Minimize first
// grows a core from what the first check found: the operation it could not
// place and the operations its violation names, then the writes of the
// value that operation needed, then the operations nearest it in time,
// doubling the set each round until the small history it makes fails.
//
// The small history of a kept set K is a relaxation of the original, so
// that it failing proves the original fails:
//
//   - every operation outside K is weakened (reads are then dropped);
//   - the history is cut after the last return in K, which drops the
//     weakened operations called after it (see truncate);
//   - a weakened write of a value no operation of K observes (a read that
//     returned it, a cas that expects it) is dropped, as dropUnobserved
//     argues;
//   - of the weakened writes of a value v that k operations of K observe,
//     only the k called first are kept (when they can stand in for each
//     other: see standIn). In an order of the relaxed history,
//     a weakened write that is not the last write before an operation of K
//     observing its value can be left out (it may never take effect), so at
//     most k of them are used; and the i-th of those used, in the order,
//     can be replaced by the write of v with the i-th earliest call, since
//     at least i writes of v were called before it took effect.
//
// The kept set is at most maxGrow operations, and the history it makes at
// most twice that, so each round costs little; when the set would outgrow
// maxGrow, or the rounds take growFactor times what the first check took,
// growing gives up and Minimize whittles the whole history as before.

// maxGrow bounds the kept set of the last round of growing.
const maxGrow = 256

// firstGrow is the number of operations near the failing one the first
// round adds to those the violation names.
const firstGrow = 4

// growable reports whether forms describe a history that growing applies
// to: linearizability, only reads, writes and compare-and-sets, no fencing
// tokens and no versions.
func (s *shrinker) growable(forms []form) bool {
	if s.criterion != checker.Linearizable || model.UsesVersions(s.h) {
		return false
	}
	for i, f := range forms {
		if f == dropped {
			continue
		}
		if o := &s.h.Ops[i]; !registerOp(s.m, o) || !o.Token.IsNone() {
			return false
		}
	}
	return true
}

// grow looks for a small failing history from the first check's result
// res, within spend, and makes it current. It returns the operations it
// kept, most promising first, or nil when it found none.
func (s *shrinker) grow(res checker.Result, spend time.Duration) ([]int, error) {
	if !s.growable(s.forms) || len(res.Violations) == 0 || len(res.Violations[0].Ops) == 0 {
		return nil, nil
	}
	seeds, ok := s.originalPositions(s.forms, res.Violations[0].Ops)
	if !ok {
		return nil, nil
	}
	pool := s.growPool(seeds)
	start := time.Now()
	for n := len(seeds) + firstGrow; ; n *= 2 {
		n = min(n, len(pool))
		if s.done() || n > maxGrow || time.Since(start) > spend {
			return nil, nil
		}
		next := s.grown(pool[:n])
		r, fails, err := s.test(next)
		if err != nil {
			return nil, err
		}
		if fails {
			s.forms, s.last = next, r
			return pool[:n], nil
		}
		if n == len(pool) {
			return nil, nil
		}
	}
}

// whittle tries weakening each operation of a grown core in turn, the least
// promising first (keep lists them most promising first), and keeps each
// weakening after which the checker still rejects the history. It reports
// whether the checker accepted the history, not just ran out of time, on
// every weakening it did not keep: weakening more only helps a history
// pass, so the core is then 1-minimal.
func (s *shrinker) whittle(keep []int) (bool, error) {
	shown := true
	for _, i := range s.whittleOrder(keep) {
		if s.forms[i] != kept && s.forms[i] != inFlight {
			continue
		}
		if s.done() {
			return false, nil
		}
		next := append([]form(nil), s.forms...)
		next[i] = weakForm(s.m, &s.h.Ops[i])
		if out, ok := s.surplus(next); ok {
			next = out
		}
		_, cached := s.cached(next)
		res, fails, err := s.test(next)
		if err != nil {
			return false, err
		}
		switch {
		case fails:
			s.forms, s.last = next, res
		case !cached && res.Valid != checker.True:
			shown = false
		}
	}
	return shown, nil
}

// whittleOrder is the order whittle tries the operations of keep in: the
// reads first, then the others, each the least promising first. Weakening
// a read drops it, and with it a weakened write its value needed, so the
// history shrinks as it goes; weakening a write first would leave it
// pending to the end, and many such make each check slower.
func (s *shrinker) whittleOrder(keep []int) []int {
	out := make([]int, 0, len(keep))
	for _, reads := range []bool{true, false} {
		for k := len(keep) - 1; k >= 0; k-- {
			if isRead(s.m, &s.h.Ops[keep[k]]) == reads {
				out = append(out, keep[k])
			}
		}
	}
	return out
}

// originalPositions maps positions in the history forms describe to
// positions in the original.
func (s *shrinker) originalPositions(forms []form, ps []int) ([]int, bool) {
	origin := s.originOf(forms)
	out := make([]int, 0, len(ps))
	for _, p := range ps {
		if p < 0 || p >= len(origin) {
			return nil, false
		}
		out = append(out, origin[p])
	}
	return out, true
}

// growPool orders the operations a core may keep, most promising first: the
// seeds (the failing operation first), the writes of the value the failing
// operation needed (latest call first), the operations between such a
// write and the failing one in real time (those that could have
// overwritten the value; the nearest the failing one first), then every
// other operation of its key, those that overlap it or end nearest before
// its call first, and last those called after it returned, earliest first.
func (s *shrinker) growPool(seeds []int) []int {
	f := &s.h.Ops[seeds[0]]
	in := make([]bool, len(s.h.Ops))
	pool := make([]int, 0, len(s.h.Ops))
	for _, p := range seeds {
		if !in[p] && s.forms[p] != dropped {
			in[p] = true
			pool = append(pool, p)
		}
	}
	writes, after := s.writesNeeded(f, seeds, in)
	var between, rest []int
	for i, fm := range s.forms {
		o := &s.h.Ops[i]
		switch {
		case fm == dropped || in[i] || s.m.Keyed && o.Key != f.Key:
		case o.Call > after && o.Return < f.Call:
			between = append(between, i)
		default:
			rest = append(rest, i)
		}
	}
	sort.SliceStable(between, func(a, b int) bool { return s.h.Ops[between[a]].Return > s.h.Ops[between[b]].Return })
	sort.SliceStable(rest, func(a, b int) bool { return nearer(f, &s.h.Ops[rest[a]], &s.h.Ops[rest[b]]) })
	return append(append(append(pool, writes...), between...), rest...)
}

// writesNeeded returns the writes (and cas) of the value the failing
// operation f needed (what it read, or what it expected), called before f
// returned and not in seen, latest call first, marking them in seen; and
// the earliest return of a completed one, or of one among the seeds
// (math.MaxInt64 when there is none).
func (s *shrinker) writesNeeded(f *history.Op, seeds []int, seen []bool) ([]int, int64) {
	need, ok := s.m.ReadResult(f)
	if !ok {
		need, ok = s.m.Expected(f)
	}
	after := int64(math.MaxInt64)
	if !ok {
		return nil, after
	}
	stores := func(o *history.Op) bool { // the cheap tests first: most operations are of other keys
		if o.Call > f.Return || s.m.Keyed && o.Key != f.Key {
			return false
		}
		v, ok := s.m.Stored(o)
		return ok && v == need
	}
	for _, p := range seeds[1:] {
		if o := &s.h.Ops[p]; o.Status == history.OK && stores(o) {
			after = min(after, o.Return)
		}
	}
	var writes []int
	for i, fm := range s.forms {
		o := &s.h.Ops[i]
		if fm == dropped || seen[i] || !stores(o) {
			continue
		}
		seen[i] = true
		writes = append(writes, i)
		if o.Status == history.OK {
			after = min(after, o.Return)
		}
	}
	sort.SliceStable(writes, func(a, b int) bool { return s.h.Ops[writes[a]].Call > s.h.Ops[writes[b]].Call })
	return writes, after
}

// nearer reports whether a is to be tried before b around the failing
// operation f: operations called after f returned come last, and within
// each side the nearer f in time first (overlapping f is nearest).
func nearer(f, a, b *history.Op) bool {
	dist := func(o *history.Op) (bool, int64) {
		switch {
		case o.Call > f.Return:
			return true, o.Call - f.Return
		case o.Return < f.Call:
			return false, f.Call - o.Return
		}
		return false, 0
	}
	la, da := dist(a)
	lb, db := dist(b)
	if la != lb {
		return !la
	}
	return da < db
}

// grown returns the forms of the small history that keeps the operations
// keep as recorded (see the comment at the top of this file).
func (s *shrinker) grown(keep []int) []form {
	next := make([]form, len(s.forms))
	end := int64(math.MinInt64)
	for _, i := range keep {
		next[i] = s.forms[i]
		if o := &s.h.Ops[i]; o.Status == history.OK && next[i] != dropped {
			end = max(end, o.Return)
		}
	}
	for i, fm := range s.forms {
		if fm != dropped && next[i] == dropped && s.h.Ops[i].Call <= end {
			next[i] = weakForm(s.m, &s.h.Ops[i])
		}
	}
	if out, ok := s.surplus(next); ok {
		return out
	}
	return next
}
