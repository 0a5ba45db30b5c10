package sequential

import (
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/model"
)

// MethodGreedy, as put in checker.Result.Method, says that a greedy order
// of a counting model's operations was the witness.
const MethodGreedy = "greedy"

// A counting model's history (a lock's) that counting does not refute is
// often ordered by a greedy pass, long before the search would find an
// order among the interleavings of many crashed clients: at each step,
// take a legal next operation, preferring one that completed to one of
// unknown outcome (which need never take effect), and among those the one
// whose process needs most from the others afterwards (for an acquire, how
// far its remaining operations release below it; for a release, how far
// they acquire above it), then the one with most operations left. A few
// passes with other preferences follow. The greedy pass only finds
// witnesses, each legal by construction (every step is the model's); when
// none completes, the search decides as before.

// greedyKey ranks a process's next operation in one pass: higher first.
type greedyKey func(g *greedy, pi int) [2]int

var greedyKeys = []greedyKey{
	// What the process needs from the others after this operation.
	func(g *greedy, pi int) [2]int { return [2]int{g.needs(pi), g.left(pi)} },
	// Whether the process's next operation after this one turns back.
	func(g *greedy, pi int) [2]int { return [2]int{g.turns(pi), g.left(pi)} },
	// Most operations left.
	func(g *greedy, pi int) [2]int { return [2]int{g.left(pi), 0} },
}

// greedy holds what the passes share: each process's deltas, and per
// process and index the least and greatest share of the operations that
// follow it (the empty prefix included).
type greedy struct {
	procs      [][]int32
	delta      []int
	below, top [][]int
	front      []int
}

// needs is how far the operations after process pi's next one go against
// it: below its level after an acquire, above it after a release.
func (g *greedy) needs(pi int) int {
	f := g.front[pi]
	if g.delta[g.procs[pi][f]] > 0 {
		return -g.below[pi][f+1]
	}
	return g.top[pi][f+1]
}

// turns is 1 when process pi's operation after its next one moves the
// count the other way.
func (g *greedy) turns(pi int) int {
	f, ops := g.front[pi], g.procs[pi]
	if f+1 < len(ops) && g.delta[ops[f+1]] != g.delta[ops[f]] {
		return 1
	}
	return 0
}

func (g *greedy) left(pi int) int { return len(g.procs[pi]) - g.front[pi] }

// greedyOrder tries the passes on p and returns the first witness found.
func greedyOrder[S comparable](p *problem[S]) (checker.Result, bool) {
	cm, ok := p.m.(model.Counting)
	if !ok || p.keyed {
		return checker.Result{}, false
	}
	g := &greedy{procs: p.procs, delta: make([]int, len(p.c.Ops))}
	for i := range p.c.Ops {
		g.delta[i] = cm.Delta(&p.c.Ops[i])
	}
	for _, ops := range p.procs {
		// Only an operation of unknown outcome that ends its process is
		// optional here; any other keeps the search.
		for _, op := range ops[:max(len(ops)-1, 0)] {
			if p.c.Ops[op].Unknown {
				return checker.Result{}, false
			}
		}
		below, top := make([]int, len(ops)+1), make([]int, len(ops)+1)
		for f := len(ops) - 1; f >= 0; f-- {
			d := g.delta[ops[f]]
			below[f], top[f] = min(0, d+below[f+1]), max(0, d+top[f+1])
		}
		g.below, g.top = append(g.below, below), append(g.top, top)
	}
	for _, key := range greedyKeys {
		if order, ok := greedyPass(p, g, key); ok {
			return greedyResult(p, g, order), true
		}
	}
	return checker.Result{}, false
}

// greedyPass runs one pass and returns the operations it placed, in order,
// when it placed every operation that completed.
func greedyPass[S comparable](p *problem[S], g *greedy, key greedyKey) ([]int32, bool) {
	g.front = make([]int, len(p.procs))
	state, order := p.init, make([]int32, 0, len(p.c.Ops))
	due := 0 // completed operations not yet placed
	for i := range p.c.Ops {
		if !p.c.Ops[i].Unknown {
			due++
		}
	}
	for due > 0 {
		best, bestKey, bestDone := -1, [2]int{}, false
		var bestNext S
		for pi, ops := range p.procs {
			if g.front[pi] == len(ops) {
				continue
			}
			mo := &p.c.Ops[ops[g.front[pi]]]
			next, legal := p.m.Step(state, mo)
			if !legal {
				continue
			}
			k, done := key(g, pi), !mo.Unknown
			if best < 0 || done && !bestDone || done == bestDone && (k[0] > bestKey[0] || k[0] == bestKey[0] && k[1] > bestKey[1]) {
				best, bestKey, bestDone, bestNext = pi, k, done, next
			}
		}
		if best < 0 {
			return nil, false
		}
		op := p.procs[best][g.front[best]]
		order = append(order, op)
		state = bestNext
		g.front[best]++
		if !p.c.Ops[op].Unknown {
			due--
		}
	}
	return order, true
}

// greedyResult is the witness of a pass: the operations placed, and those
// of unknown outcome left out.
func greedyResult[S comparable](p *problem[S], g *greedy, order []int32) checker.Result {
	res := checker.Result{Valid: checker.True, Method: MethodGreedy}
	res.Dropped = append(res.Dropped, p.c.Dropped...)
	for _, op := range order {
		res.Witness = append(res.Witness, p.c.Pos[op])
	}
	for pi, ops := range p.procs {
		for _, op := range ops[g.front[pi]:] {
			res.Dropped = append(res.Dropped, p.c.Pos[op])
		}
	}
	return res
}
