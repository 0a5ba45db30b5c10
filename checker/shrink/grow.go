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
//     only the k called first are kept. In an order of the relaxed history,
//     a weakened write that is not the last write before an operation of K
//     observing its value can be left out (it may never take effect), so at
//     most k of them are used; and the i-th of those used, in the order,
//     can be replaced by the write of v with the i-th earliest call, since
//     at least i writes of v were called before it took effect.
//
// The kept set is at most a few hundred operations, and the history it
// makes at most twice that, so each round costs little; the rounds stop
// once the sets outgrow maxGrow or their checks the time of the first,
// and Minimize then whittles the whole history as before.

// maxGrow bounds the kept set of the last round of growing.
const maxGrow = 1024

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
// res, within spend, and makes it current. It reports whether it found one.
func (s *shrinker) grow(res checker.Result, spend time.Duration) (bool, error) {
	if !s.growable(s.forms) || len(res.Violations) == 0 || len(res.Violations[0].Ops) == 0 {
		return false, nil
	}
	seeds, ok := s.originalPositions(s.forms, res.Violations[0].Ops)
	if !ok {
		return false, nil
	}
	pool := s.growPool(seeds)
	start := time.Now()
	for n := len(seeds) + firstGrow; ; n *= 2 {
		n = min(n, len(pool))
		if s.done() || n > maxGrow || time.Since(start) > spend {
			return false, nil
		}
		next := s.grown(pool[:n])
		r, fails, err := s.test(next)
		if err != nil {
			return false, err
		}
		if fails {
			s.forms, s.last = next, r
			return true, nil
		}
		if n == len(pool) {
			return false, nil
		}
	}
}

// originalPositions maps positions in the history forms describe to
// positions in the original.
func (s *shrinker) originalPositions(forms []form, ps []int) ([]int, bool) {
	_, origin := buildFor(s.h, s.m, forms)
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
// operation needed (latest call first), then every other operation of its
// key, those that overlap it or end nearest before its call first, and
// last those called after it returned, earliest first.
func (s *shrinker) growPool(seeds []int) []int {
	f := &s.h.Ops[seeds[0]]
	need, hasNeed := s.m.ReadResult(f)
	if !hasNeed {
		need, hasNeed = s.m.Expected(f)
	}
	in := make(map[int]bool, len(seeds))
	pool := make([]int, 0, len(s.h.Ops))
	for _, p := range seeds {
		if !in[p] && s.forms[p] != dropped {
			in[p] = true
			pool = append(pool, p)
		}
	}
	var writes, rest []int
	for i, fm := range s.forms {
		o := &s.h.Ops[i]
		if fm == dropped || in[i] || s.m.Keyed && o.Key != f.Key {
			continue
		}
		if v, ok := s.m.Stored(o); ok && hasNeed && v == need && o.Call <= f.Return {
			writes = append(writes, i)
		} else {
			rest = append(rest, i)
		}
	}
	sort.SliceStable(writes, func(a, b int) bool { return s.h.Ops[writes[a]].Call > s.h.Ops[writes[b]].Call })
	dist := func(i int) (bool, int64) {
		o := &s.h.Ops[i]
		switch {
		case o.Call > f.Return:
			return true, o.Call - f.Return
		case o.Return < f.Call:
			return false, f.Call - o.Return
		}
		return false, 0
	}
	sort.SliceStable(rest, func(a, b int) bool {
		la, da := dist(rest[a])
		lb, db := dist(rest[b])
		if la != lb {
			return !la
		}
		return da < db
	})
	return append(append(pool, writes...), rest...)
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
