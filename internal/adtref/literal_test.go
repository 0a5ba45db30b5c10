package adtref

import (
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// This file decides the criteria of tiny executions literally, as the
// definitions are written: every relation on the events is tried as a
// causal order, every permutation as a linearization, every relation
// contained in ar as vis, with the session rules over all events. Decide's
// enumerations (pasts as prefixes, pruning, visible sets of updates only)
// must agree with it.

// inspectable is what the tests ask of an execution, whatever its model's
// state type.
type inspectable interface {
	choices() []inspectable // an execution per choice of the operations of unknown outcome
	size() int
	decide(criterion string) bool
	literal(criterion string) bool
	readChanges(r *rand.Rand) int
}

// prepared compiles h for the named model.
func prepared(t *testing.T, name string, opts model.Options, h *history.History) inspectable {
	t.Helper()
	b, err := bind(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	x, err := b.prepare(h)
	if err != nil {
		t.Fatal(err)
	}
	return x.(inspectable)
}

func (x *exec[S]) choices() []inspectable {
	unknown := x.unknown()
	var out []inspectable
	for took := 0; took < 1<<len(unknown); took++ {
		out = append(out, x.without(unknown, took))
	}
	return out
}

func (x *exec[S]) size() int { return len(x.ev) }

func (x *exec[S]) decide(criterion string) bool { return decider[S](criterion)(x) }

func (x *exec[S]) literal(criterion string) bool {
	switch criterion {
	case checker.Sequential:
		return x.literalView(x.all())
	case checker.PRAM:
		for p := range x.procs {
			if !x.literalView(x.ofProc(p)) {
				return false
			}
		}
		return true
	case checker.Causal, checker.CausalMemory, checker.CausalConvergence:
		return x.literalCausal(criterion)
	}
	return x.literalSession(criterion)
}

// permutations calls f with every permutation of evs until it returns true.
func permutations(evs []int, f func(seq []int) bool) bool {
	if len(evs) <= 1 {
		return f(evs)
	}
	for k := range evs {
		rest := append(append([]int(nil), evs[:k]...), evs[k+1:]...)
		if permutations(rest, func(seq []int) bool { return f(append([]int{evs[k]}, seq...)) }) {
			return true
		}
	}
	return false
}

func members(s mask, n int) []int {
	var out []int
	for e := range n {
		if s.has(e) {
			out = append(out, e)
		}
	}
	return out
}

// respects reports whether seq keeps every pair of rel between its events.
func respects(seq []int, rel func(a, b int) bool) bool {
	for i := range seq {
		for j := 0; j < i; j++ {
			if rel(seq[i], seq[j]) {
				return false
			}
		}
	}
	return true
}

// literalView: some permutation of every event keeping ↦ is legal with
// the outputs of visible checked.
func (x *exec[S]) literalView(visible mask) bool {
	return permutations(members(x.all(), len(x.ev)), func(seq []int) bool {
		return respects(seq, x.po) && x.legal(seq, visible)
	})
}

// literalCausal tries every relation on the events as the causal order.
func (x *exec[S]) literalCausal(criterion string) bool {
	n := len(x.ev)
	for bits := 0; bits < 1<<(n*n); bits++ {
		rel := func(a, b int) bool { return bits&(1<<(a*n+b)) != 0 }
		if !x.isCausalOrder(rel) {
			continue
		}
		past := make([]mask, n)
		for e := range n {
			past[e] = 1 << e
			for a := range n {
				if rel(a, e) {
					past[e] |= 1 << a
				}
			}
		}
		if x.literalPasts(criterion, rel, past) {
			return true
		}
	}
	return false
}

// isCausalOrder: irreflexive, transitive, containing ↦.
func (x *exec[S]) isCausalOrder(rel func(a, b int) bool) bool {
	n := len(x.ev)
	for a := range n {
		if rel(a, a) {
			return false
		}
		for b := range n {
			if x.po(a, b) && !rel(a, b) {
				return false
			}
			for c := range n {
				if rel(a, b) && rel(b, c) && !rel(a, c) {
					return false
				}
			}
		}
	}
	return true
}

func (x *exec[S]) literalPasts(criterion string, rel func(a, b int) bool, past []mask) bool {
	n := len(x.ev)
	if criterion == checker.CausalConvergence {
		return permutations(members(x.all(), n), func(total []int) bool {
			if !respects(total, rel) {
				return false
			}
			for e := range n {
				if !x.legal(inOrder(total, past[e]), 1<<e) {
					return false
				}
			}
			return true
		})
	}
	for e := range n {
		visible := mask(1) << e
		if criterion == checker.CausalMemory {
			visible = past[e] & x.ofProc(x.ev[e].proc)
		}
		ok := permutations(members(past[e], n), func(seq []int) bool {
			return respects(seq, rel) && x.legal(seq, visible)
		})
		if !ok {
			return false
		}
	}
	return true
}

// literalSession tries every total order ar and every relation vis ⊆ ar,
// with the guarantee's rule, in its typed form, over all events.
func (x *exec[S]) literalSession(criterion string) bool {
	n := len(x.ev)
	return permutations(members(x.all(), n), func(ar []int) bool {
		rank := make([]int, n)
		for i, e := range ar {
			rank[e] = i
		}
		var pairs [][2]int
		for a := range n {
			for b := range n {
				if rank[a] < rank[b] {
					pairs = append(pairs, [2]int{a, b})
				}
			}
		}
		for bits := 0; bits < 1<<len(pairs); bits++ {
			var vis [MaxEvents][MaxEvents]bool
			for k, p := range pairs {
				vis[p[0]][p[1]] = bits&(1<<k) != 0
			}
			arBefore := func(a, b int) bool { return rank[a] < rank[b] }
			if x.sessionRule(criterion, &vis, arBefore) && x.contextsLegal(ar, &vis) {
				return true
			}
		}
		return false
	})
}

func (x *exec[S]) sessionRule(criterion string, vis *[MaxEvents][MaxEvents]bool, ar func(a, b int) bool) bool {
	n := len(x.ev)
	for a := range n {
		for b := range n {
			switch {
			case criterion == checker.ReadYourWrites && x.po(a, b) && x.ev[a].update && x.ev[b].observes && !vis[a][b]:
				return false
			case criterion == checker.MonotonicWrites && x.po(a, b) && x.ev[a].update && x.ev[b].update && !ar(a, b):
				return false
			}
			for c := range n {
				if !vis[a][b] || !x.po(b, c) || !x.ev[b].observes {
					continue
				}
				if criterion == checker.MonotonicReads && x.ev[c].observes && !vis[a][c] {
					return false
				}
				if criterion == checker.WritesFollowReads && x.ev[c].update && !ar(a, c) {
					return false
				}
			}
		}
	}
	return true
}

// contextsLegal: every event is legal after the events visible to it, in
// ar order.
func (x *exec[S]) contextsLegal(ar []int, vis *[MaxEvents][MaxEvents]bool) bool {
	for e := range x.ev {
		var ctx []int
		for _, a := range ar {
			if vis[a][e] {
				ctx = append(ctx, a)
			}
		}
		if !x.legal(append(ctx, e), 1<<e) {
			return false
		}
	}
	return true
}

// readChanges steps the events in a random order, outputs hidden, and
// steps every pure read, hidden, in every state reached; it returns a read
// that was refused or changed the state, or -1.
func (x *exec[S]) readChanges(r *rand.Rand) int {
	s := x.init
	for _, e := range append(r.Perm(len(x.ev)), -1) {
		for rd := range x.ev {
			if next, ok := x.step(s, rd, false); !x.ev[rd].update && (!ok || next != s) {
				return rd
			}
		}
		if e >= 0 {
			s, _ = x.step(s, e, false)
		}
	}
	return -1
}

// TestLiteral compares Decide's enumerations with the literal ones on the
// executions of random histories of every model that are small enough:
// four events for the causal family (every relation on them), five for
// the session guarantees (every vis within every ar).
func TestLiteral(t *testing.T) {
	n := 80
	if testing.Short() {
		n = 30
	}
	limit := map[string]int{checker.Sequential: MaxEvents, checker.PRAM: MaxEvents,
		checker.Causal: 4, checker.CausalMemory: 4, checker.CausalConvergence: 4,
		checker.ReadYourWrites: 5, checker.MonotonicReads: 5, checker.MonotonicWrites: 5, checker.WritesFollowReads: 5}
	if testing.Short() {
		for _, c := range []string{checker.ReadYourWrites, checker.MonotonicReads, checker.MonotonicWrites, checker.WritesFollowReads} {
			limit[c] = 4
		}
	}
	compared := map[string]int{}
	for _, name := range WeakModels {
		r := rand.New(rand.NewPCG(11, uint64(len(name))))
		for range n {
			h, opts, err := Generate(r, name)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range prepared(t, name, opts, h).choices() {
				for _, c := range Criteria {
					if x.size() > limit[c] {
						continue
					}
					compared[c]++
					if got, want := x.decide(c), x.literal(c); got != want {
						t.Fatalf("%s %s: Decide's enumeration %v, the literal one %v, on an execution of %s", name, c, got, want, show(h))
					}
				}
			}
		}
	}
	t.Logf("executions compared: %v", compared)
}
