package weakref

import (
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
)

// literalSession decides a session guarantee on one execution by trying
// every arbitration order of the writes and every visibility relation, and
// checking the axioms as written. It is exponential in writes × reads.
func (e *exec) literalSession(criterion string) bool {
	var reads []int
	for r, o := range e.ops {
		if !o.write {
			reads = append(reads, r)
		}
	}
	nw := len(e.writes)
	bits := nw * len(reads)
	pos := make([]int, len(e.ops))
	ok := false
	permute(e.writes, func(ar []int) bool {
		for i, w := range ar {
			pos[w] = i
		}
		for m := 0; m < 1<<bits && !ok; m++ {
			sees := func(w, r int) bool { // w is visible to r
				wi, ri := -1, -1
				for i, x := range e.writes {
					if x == w {
						wi = i
					}
				}
				for i, x := range reads {
					if x == r {
						ri = i
					}
				}
				return m&(1<<(ri*nw+wi)) != 0
			}
			ok = e.axioms(criterion, reads, sees, func(a, b int) bool { return pos[a] < pos[b] })
		}
		return ok
	})
	return ok
}

func (e *exec) axioms(criterion string, reads []int, sees func(w, r int) bool, ar func(a, b int) bool) bool {
	// Return value: the ar-latest visible write of the key, or the initial
	// value when none is visible.
	for _, r := range reads {
		latest := fromInit
		for _, w := range e.writes {
			if e.ops[w].key == e.ops[r].key && sees(w, r) && (latest < 0 || ar(latest, w)) {
				latest = w
			}
		}
		if latest != e.rf[r] {
			return false
		}
	}
	for _, w := range e.writes {
		for _, r := range reads {
			switch criterion {
			case checker.ReadYourWrites:
				if e.po[w][r] && !sees(w, r) {
					return false
				}
			case checker.MonotonicReads:
				for _, r2 := range reads {
					if sees(w, r) && e.po[r][r2] && !sees(w, r2) {
						return false
					}
				}
			case checker.WritesFollowReads:
				for _, w2 := range e.writes {
					if sees(w, r) && e.po[r][w2] && (w == w2 || !ar(w, w2)) {
						return false
					}
				}
			}
		}
		for _, w2 := range e.writes {
			if criterion == checker.MonotonicWrites && e.po[w][w2] && !ar(w, w2) {
				return false
			}
		}
	}
	return true
}

func permute(xs []int, f func([]int) bool) bool {
	a := append([]int(nil), xs...)
	var rec func(k int) bool
	rec = func(k int) bool {
		if k == len(a) {
			return f(a)
		}
		for i := k; i < len(a); i++ {
			a[k], a[i] = a[i], a[k]
			if rec(k + 1) {
				return true
			}
			a[k], a[i] = a[i], a[k]
		}
		return false
	}
	return rec(0)
}

// TestLeastVisibilityIsExact checks, on tiny random histories, that taking
// the least visibility (as Decide does) gives the same verdict as trying
// every visibility relation and every arbitration order.
func TestLeastVisibilityIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1994))
	tried := 0
	falses := map[string]int{}
	for tried < 1500 {
		h, init := randhist.ReadWrite(rng, randhist.WeakConfig{Ops: 3 + rng.IntN(4), Keys: 1 + rng.IntN(2), FailRate: 0.05})
		ops, err := collect(h, init)
		if err != nil {
			t.Fatal(err)
		}
		e := newExec(ops, init)
		reads := len(e.ops) - len(e.writes)
		if len(e.writes)*reads > 12 || len(e.writes) > 4 {
			continue
		}
		thin := false
		for r, o := range e.ops {
			thin = thin || (!o.write && e.rf[r] == thinAir)
		}
		tried++
		for _, c := range []string{checker.ReadYourWrites, checker.MonotonicReads, checker.MonotonicWrites, checker.WritesFollowReads} {
			want := !thin && e.literalSession(c)
			if !want {
				falses[c]++
			}
			if got := e.holds(c); got != want {
				t.Fatalf("%s: least visibility says %v, every visibility says %v: %+v", c, got, want, e.ops)
			}
		}
	}
	for _, c := range []string{checker.ReadYourWrites, checker.MonotonicReads, checker.MonotonicWrites, checker.WritesFollowReads} {
		t.Logf("%s: %d of %d false", c, falses[c], tried)
		if falses[c] < 50 || falses[c] > tried-50 {
			t.Errorf("%s: unbalanced (%d of %d false)", c, falses[c], tried)
		}
	}
}

// TestDecideCases checks the brute force on small cases whose verdicts
// follow by hand from the definitions.
func TestDecideCases(t *testing.T) {
	type o struct {
		proc  int
		write bool
		val   int64
		info  bool
	}
	cases := []struct {
		name string
		ops  []o
		want map[string]bool
	}{
		{"a read of one's own later write, past an unknown write", // A: w1?; B: r2 w2 r2
			[]o{{0, true, 1, true}, {1, false, 2, false}, {1, true, 2, false}, {1, false, 2, false}},
			map[string]bool{checker.Causal: false, checker.CausalMemory: false, checker.CausalConvergence: false,
				checker.PRAM: false, checker.WritesFollowReads: false, checker.ReadYourWrites: true}},
		{"one write order for read-your-writes", // A: r1 w2 w3 r1; B: w1 r3
			[]o{{0, false, 1, false}, {0, true, 2, false}, {0, true, 3, false}, {0, false, 1, false}, {1, true, 1, false}, {1, false, 3, false}},
			map[string]bool{checker.ReadYourWrites: false}},
		{"a stale read breaks monotonic reads, not writes", // A: w1 w2; B: r2 r0
			[]o{{0, true, 1, false}, {0, true, 2, false}, {1, false, 2, false}, {1, false, 0, false}},
			map[string]bool{checker.MonotonicWrites: true, checker.MonotonicReads: false}},
		{"writes follow reads through a cycle", // A: r2 w1; B: r1 w2
			[]o{{0, false, 2, false}, {0, true, 1, false}, {1, false, 1, false}, {1, true, 2, false}},
			map[string]bool{checker.WritesFollowReads: false, checker.PRAM: true, checker.Causal: false}},
	}
	for _, c := range cases {
		h := &history.History{}
		for i, x := range c.ops {
			op := history.Op{Process: x.proc, F: "read", Value: history.IntValue(x.val), Call: int64(i), Return: int64(i), Status: history.OK}
			if x.write {
				op.F = "write"
			}
			if x.info {
				op.Status, op.Return = history.Info, history.Infinity
			}
			h.Ops = append(h.Ops, op)
		}
		for crit, want := range c.want {
			got, err := Decide(h, history.IntValue(0), crit)
			if err != nil || got != want {
				t.Errorf("%s, %s: got %v (%v), want %v", c.name, crit, got, err, want)
			}
		}
	}
}
