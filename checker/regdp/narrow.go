package regdp

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/histcheck/histcheck/checker"
)

// The compare-and-set sweep is exact, and with many clients its gaps are
// wide: the pending compare-and-sets that took effect form many subsets
// (64 clients on five values: hundreds of thousands of configurations in
// one gap). A valid history needs only one way through. So the sweep runs
// narrow first: each gap explores at most narrowGap configurations
// (breadth first, so its shortest chains of effects), and each frontier
// keeps only the narrowWidth configurations that owe the least. Every
// configuration the narrow sweep reaches is one the exact sweep reaches
// too, so when one survives the last event its witness is a linearization
// (and is replayed and checked as the exact sweep's are). When none
// survives, that proves nothing by itself: a window may confirm that the
// history fails there (window.go); else the exact sweep runs from the
// start and gives the verdict.

// Narrow sweep bounds: configurations kept per frontier, and explored per
// gap.
const (
	narrowWidth = 100
	narrowGap   = 2000
)

// narrowing bounds a sweep (zero: exact).
type narrowing struct {
	width, gap int
}

// casPasses says how the compare-and-set sweep runs: narrow first (unless
// narrow.width is 0), then exact if the narrow one did not get through
// (unless exact is false, when the verdict is then Unknown).
type casPasses struct {
	narrow narrowing
	// windows are the spans of the windows that may confirm where the
	// narrow sweep stopped (window.go).
	windows []int
	exact   bool
}

// casTwoPass runs the passes; what the sweeper reports is the last one's.
type casTwoPass struct {
	p    *problem
	grow func(bytes int64) bool
	casPasses
	cur *casSearch
	// narrowStates counts what the narrow sweep explored.
	narrowStates int64
	// stuck is set when the narrow sweep found no way through and no
	// exact one followed.
	stuck bool
}

func (t *casTwoPass) run(ctx context.Context) outcome {
	if t.narrow.width > 0 {
		s := newCASSearch(t.p)
		s.grow, s.narrow = t.grow, t.narrow
		t.cur = s
		out := s.run(ctx)
		if out == outFound || ctx.Err() != nil || s.outOfRoom {
			return out
		}
		if out == outRefuted && confirmed(ctx, t.p, s.deadAt, t.windows, t.grow) {
			return out
		}
		t.narrowStates = s.states
		if !t.exact {
			// A narrow sweep refutes nothing: Unknown.
			t.stuck = true
			return outStopped
		}
	}
	s := newCASSearch(t.p)
	s.grow = t.grow
	t.cur = s
	return s.run(ctx)
}

func (t *casTwoPass) witness() ([]int, []bool, error) { return t.cur.witness() }
func (t *casTwoPass) violation() checker.Violation    { return t.cur.violation() }

func (t *casTwoPass) gaveUp() string {
	if t.stuck {
		return fmt.Sprintf("the narrow sweep found no way through at event %d of %d", t.cur.at, len(t.p.events))
	}
	return t.cur.gaveUp()
}

func (t *casTwoPass) progress() (int, int64, int64) {
	at, states, peak := t.cur.progress()
	return at, states + t.narrowStates, peak
}

// gapFull reports whether a narrow sweep's gap holds as many
// configurations as it may explore, and some of them ended it: one that
// did not yet goes on as the exact sweep would.
func (s *casSearch) gapFull() bool {
	return s.narrow.gap > 0 && s.gap.n+s.next.n >= s.narrow.gap && s.next.n > 0
}

// keepLeastOwing cuts the next frontier down to the narrow width,
// keeping the configurations that owe the least (see owes), earlier ones
// first among equals, and of every value held its share at least: the
// way through may hold a value whose configurations owe more.
func (s *casSearch) keepLeastOwing() {
	n := s.next.n
	if s.narrow.width == 0 || n <= s.narrow.width {
		return
	}
	order := s.byOwing()
	held := make(map[uint64]int)
	for _, i := range order {
		held[s.next.cfg(int(i))[0]]++
	}
	share := (s.narrow.width + len(held) - 1) / len(held)
	keep := make([]bool, n)
	room := s.narrow.width
	clear(held)
	for _, i := range order {
		if v := s.next.cfg(int(i))[0]; held[v] < share && room > 0 {
			held[v]++
			keep[i] = true
			room--
		}
	}
	for _, i := range order {
		if !keep[i] && room > 0 {
			keep[i] = true
			room--
		}
	}
	kept := s.keepBuf[:0]
	for i, k := range keep {
		if k {
			kept = append(kept, int32(i))
		}
	}
	s.keepBuf = kept
	s.compactNext(kept)
}

// byOwing returns the next frontier's configurations ordered by how much
// they owe (a counting sort: earlier ones first among equals).
func (s *casSearch) byOwing() []int32 {
	n := s.next.n
	owes := s.owesBuf[:0]
	lo, hi := int32(1<<30), int32(-1<<30)
	for i := 0; i < n; i++ {
		x := s.owes(s.next.cfg(i))
		owes = append(owes, x)
		lo, hi = min(lo, x), max(hi, x)
	}
	s.owesBuf = owes
	at := make([]int32, hi-lo+2)
	for _, x := range owes {
		at[x-lo+1]++
	}
	for k := 1; k < len(at); k++ {
		at[k] += at[k-1]
	}
	order := make([]int32, n)
	for i, x := range owes {
		order[at[x-lo]] = int32(i)
		at[x-lo]++
	}
	return order
}

// compactNext keeps, of the next frontier, only the configurations keep
// lists (increasing), with their parents.
func (s *casSearch) compactNext(keep []int32) {
	s.spare.reset()
	par, ops := s.nextParent[:0], s.nextOp[:0]
	for _, i := range keep {
		// The parents move only down (i >= len(par)), so they can be
		// rewritten in place.
		p, o := s.nextParent[i], s.nextOp[i]
		j, added := s.spare.add(s.next.cfg(int(i)))
		switch {
		case !added:
		case j == len(par):
			par, ops = append(par, p), append(ops, o)
		default:
			par[j], ops[j] = p, o
		}
	}
	s.next, s.spare = s.spare, s.next
	s.nextParent, s.nextOp = par, ops
}

// owes scores a configuration by what it still owes: the reads waiting
// and the writes obliged, less the effects already done. The fewer, the
// likelier a valid history's way goes through it.
func (s *casSearch) owes(c []uint64) int32 {
	n := 0
	for i := s.offDone; i < s.offCrit; i++ {
		n -= bits.OnesCount64(c[i])
	}
	for i := s.offCrit; i < s.offSeen; i++ {
		n += bits.OnesCount64(c[i])
	}
	for i := s.offWDone; i < s.offObl; i++ {
		n -= bits.OnesCount64(c[i])
	}
	for i := s.offObl; i < s.offCrash; i++ {
		n += bits.OnesCount64(c[i])
	}
	return int32(n)
}
