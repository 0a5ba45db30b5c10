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

// axioms checks the return-value rule, vo ⊆ ar and the guarantee's axiom
// as Viotti and Vukolić write them, for the visibility sees and the
// arbitration ar.
func (e *exec) axioms(criterion string, reads []int, sees func(w, r int) bool, ar func(a, b int) bool) bool {
	if !e.returnValues(reads, sees, ar) {
		return false
	}
	for _, w := range e.writes {
		for _, w2 := range e.writes {
			if e.vo(w, w2) && !ar(w, w2) {
				return false
			}
		}
	}
	switch criterion {
	case checker.ReadYourWrites: // so[wr→rd] ⊆ vis
		return e.every(e.writes, reads, func(w, r int) bool { return !e.po[w][r] || sees(w, r) })
	case checker.MonotonicReads: // vis;so[rd→rd] ⊆ vis
		return e.every(e.writes, reads, func(w, r int) bool {
			return !sees(w, r) || all(reads, func(r2 int) bool { return !e.po[r][r2] || sees(w, r2) })
		})
	case checker.MonotonicWrites: // so[wr→wr] ⊆ ar
		return e.every(e.writes, e.writes, func(w, w2 int) bool { return !e.po[w][w2] || ar(w, w2) })
	case checker.WritesFollowReads: // vis;so[rd→wr] ⊆ ar
		return e.every(e.writes, reads, func(w, r int) bool {
			return !sees(w, r) || all(e.writes, func(w2 int) bool { return !e.po[r][w2] || (w != w2 && ar(w, w2)) })
		})
	}
	return true
}

// returnValues checks that every read returned the ar-latest visible write
// of its key, or the initial value when it sees none.
func (e *exec) returnValues(reads []int, sees func(w, r int) bool, ar func(a, b int) bool) bool {
	for _, r := range reads {
		latest := fromInit
		for _, w := range e.writes {
			if e.ops[w].key == e.ops[r].key && sees(w, r) && (latest < 0 || ar(latest, w)) {
				latest = w
			}
		}
		if latest != e.rf[r] && e.rf[r] != anyValue {
			return false
		}
	}
	return true
}

// every reports whether f holds for every pair of xs × ys.
func (e *exec) every(xs, ys []int, f func(x, y int) bool) bool {
	return all(xs, func(x int) bool { return all(ys, func(y int) bool { return f(x, y) }) })
}

// all reports whether f holds for every element of xs.
func all(xs []int, f func(x int) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
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
		rec, err := collect(h, Options{Init: init})
		if err != nil {
			t.Fatal(err)
		}
		e := rec.execution(nil, 0)
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

// TestDecideStrongAndVersions checks, on small cases whose verdicts follow
// by hand from the definitions, linearizability and sequential
// consistency, versions (which name the write each read read and order
// each key's writes) and nil reads that observe nothing.
// regOp is an operation of a register with initial value 0; a version
// below 0 is none, and ret below 0 an unknown outcome.
func regOp(proc int, f string, val, ver, call, ret int64) history.Op {
	o := history.Op{Process: proc, F: f, Value: history.IntValue(val), Call: call, Return: ret, Status: history.OK}
	if ver >= 0 {
		o.Version = history.IntValue(ver)
	}
	if ret < 0 {
		o.Status, o.Return = history.Info, history.Infinity
	}
	return o
}

func TestDecideStrongAndVersions(t *testing.T) {
	op := regOp
	cases := []struct {
		name string
		ops  []history.Op
		opts Options
		want map[string]bool
	}{
		{"a write's older version puts it after a write that began later", // A: w1 v2; B: w2 v1; C: r2 v1
			[]history.Op{op(0, "write", 1, 2, 0, 1), op(1, "write", 2, 1, 2, 3), op(2, "read", 2, 1, 4, 5)}, Options{},
			map[string]bool{checker.Linearizable: false, checker.Sequential: true, checker.Causal: true}},
		{"a read returned another value than its version's write", // A: w1 v1; B: r2 v1
			[]history.Op{op(0, "write", 1, 1, 0, 1), op(1, "read", 2, 1, 2, 3)}, Options{},
			map[string]bool{checker.Linearizable: false, checker.Sequential: false, checker.Causal: false, checker.MonotonicWrites: false}},
		{"a version nobody wrote reads the initial value", // A: w1 v1, r0 v42
			[]history.Op{op(0, "write", 1, 1, 0, 1), op(0, "read", 0, 42, 2, 3)}, Options{},
			map[string]bool{checker.Sequential: false, checker.ReadYourWrites: false, checker.MonotonicReads: true, checker.Causal: false}},
		{"versions against a process's order", // A: w1 v2, w2 v1
			[]history.Op{op(0, "write", 1, 2, 0, 1), op(0, "write", 2, 1, 2, 3)}, Options{},
			map[string]bool{checker.Sequential: false, checker.Causal: false, checker.CausalMemory: false, checker.CausalConvergence: false,
				checker.PRAM: false, checker.MonotonicWrites: false, checker.ReadYourWrites: true, checker.WritesFollowReads: true}},
		{"a value written twice, told apart by versions", // A: w1 v1; B: w1 v2; C: r1 v1
			[]history.Op{op(0, "write", 1, 1, 0, 1), op(1, "write", 1, 2, 2, 3), op(2, "read", 1, 1, 4, 5)}, Options{},
			map[string]bool{checker.Linearizable: false, checker.Sequential: true}},
		{"a nil read that observes nothing", // A: w1; B: r(nil)
			[]history.Op{op(0, "write", 1, -1, 0, 1), {Process: 1, F: "read", Value: history.NilValue, Call: 2, Return: 3, Status: history.OK}},
			Options{NilIsAny: true}, map[string]bool{checker.Linearizable: true, checker.Causal: true, checker.ReadYourWrites: true}},
		{"a nil read that returned nil", // A: w1; B: r(nil)
			[]history.Op{op(0, "write", 1, -1, 0, 1), {Process: 1, F: "read", Value: history.NilValue, Call: 2, Return: 3, Status: history.OK}},
			Options{}, map[string]bool{checker.Linearizable: false, checker.Causal: false}},
		{"a write of unknown outcome seen, then unseen", // A: w1?; B: r1 r0
			[]history.Op{op(0, "write", 1, -1, 0, -1), op(1, "read", 1, -1, 1, 2), op(1, "read", 0, -1, 3, 4)}, Options{},
			map[string]bool{checker.Linearizable: false, checker.Sequential: false, checker.PRAM: false}},
		{"a write of unknown outcome unseen, then seen", // A: w1?; B: r0 r1
			[]history.Op{op(0, "write", 1, -1, 0, -1), op(1, "read", 0, -1, 1, 2), op(1, "read", 1, -1, 3, 4)}, Options{},
			map[string]bool{checker.Linearizable: true, checker.Sequential: true, checker.PRAM: true}},
	}
	for _, c := range cases {
		c.opts.Init = history.IntValue(0)
		for crit, want := range c.want {
			got, err := DecideWith(&history.History{Ops: c.ops}, c.opts, crit)
			if err != nil || got != want {
				t.Errorf("%s, %s: got %v (%v), want %v", c.name, crit, got, err, want)
			}
		}
	}
}

// TestRepeatedValues checks the choice of reads-from when values repeat:
// a read may have read any write of its value, or the initial state.
func TestRepeatedValues(t *testing.T) {
	op := func(proc int, f string, val, call, ret int64) history.Op { return regOp(proc, f, val, -1, call, ret) }
	cases := []struct {
		name string
		ops  []history.Op
		want map[string]bool
	}{
		{"a second write of 1 explains reading 1 after 2", // A: w1 w2; B: w1; C: r2 r1
			[]history.Op{op(0, "write", 1, 0, 1), op(0, "write", 2, 2, 3), op(1, "write", 1, 4, 5), op(2, "read", 2, 6, 7), op(2, "read", 1, 8, 9)},
			map[string]bool{checker.Linearizable: false, checker.Sequential: true, checker.Causal: true, checker.PRAM: true}},
		{"without it, it does not", // A: w1 w2; C: r2 r1
			[]history.Op{op(0, "write", 1, 0, 1), op(0, "write", 2, 2, 3), op(2, "read", 2, 6, 7), op(2, "read", 1, 8, 9)},
			map[string]bool{checker.Sequential: false, checker.Causal: false, checker.PRAM: false, checker.MonotonicReads: true}},
		{"the initial value written again, read in either order", // A: w1 w0; B: r1 r0 r1
			[]history.Op{op(0, "write", 1, 0, 1), op(0, "write", 0, 2, 3), op(1, "read", 1, 4, 5), op(1, "read", 0, 6, 7), op(1, "read", 1, 8, 9)},
			map[string]bool{checker.Sequential: false, checker.Causal: false, checker.PRAM: false, checker.ReadYourWrites: true}},
		{"the initial state or its second write", // A: w1 w0; B: r0 r1
			[]history.Op{op(0, "write", 1, 0, 1), op(0, "write", 0, 2, 3), op(1, "read", 0, 4, 5), op(1, "read", 1, 6, 7)},
			map[string]bool{checker.Linearizable: false, checker.Sequential: true, checker.CausalMemory: true}},
		{"a crashed write of a repeated value need not have happened", // A: w1?; B: w1; C: r1 r0
			[]history.Op{op(0, "write", 1, 0, -1), op(1, "write", 1, 0, 1), op(2, "read", 1, 2, 3), op(2, "read", 0, 4, 5)},
			map[string]bool{checker.Sequential: false, checker.Causal: false, checker.MonotonicReads: false}},
	}
	for _, c := range cases {
		for crit, want := range c.want {
			got, err := Decide(&history.History{Ops: c.ops}, history.IntValue(0), crit)
			if err != nil || got != want {
				t.Errorf("%s, %s: got %v (%v), want %v", c.name, crit, got, err, want)
			}
		}
	}
}
