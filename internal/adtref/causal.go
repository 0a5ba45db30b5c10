package adtref

// The causal family quantifies over causal orders: strict partial orders →
// on E that contain ↦. Such an order is given by the causal past of every
// event, past[e] = ⌊e⌋ = {e' : e' → e} ∪ {e}, as a set of events. Since →
// is transitive and contains ↦, ⌊e⌋ holds with any event of a process
// every earlier event of that process: its part in each process is a
// prefix. So someCausalOrder enumerates, for each event e, a prefix of
// every other process (and of e's own process exactly the events up to e),
// and keeps the choices that make a strict partial order:
//
//   - transitive: a ∈ ⌊b⌋ ⇒ ⌊a⌋ ⊆ ⌊b⌋;
//   - antisymmetric: a ∈ ⌊b⌋, a ≠ b ⇒ b ∉ ⌊a⌋ (irreflexive by
//     construction: e' → e means e' ∈ ⌊e⌋, e' ≠ e).
//
// Every causal order arises exactly once, from its own pasts, and every
// choice kept is a causal order; so "some causal order satisfies P" is
// "some choice kept satisfies P". The events are given pasts one at a time,
// in the history's order; a pair of events is checked as soon as both
// have a past, and an event's own condition as soon as every event of its
// past has one (it depends on nothing else), so abandoning a partial
// choice that fails a check skips only choices that would fail it too.

// someCausalOrder reports whether some causal order, in which every a → e
// also has allowed(a, e) when allowed is not nil, gives every event e a
// past for which holds(past, e) is true. holds may read the pasts of the
// events in past[e] only.
func (x *exec[S]) someCausalOrder(allowed func(a, e int) bool, holds func(past []mask, e int) bool) bool {
	n := len(x.ev)
	past := make([]mask, n)
	var assign func(e int) bool
	assign = func(e int) bool {
		if e == n {
			return true
		}
		for _, d := range x.candidatePasts(e, past) {
			if !allowedPast(d, e, allowed) {
				continue
			}
			past[e] = d
			if x.consistent(past, e) && x.conditionsHold(past, e, holds) && assign(e+1) {
				return true
			}
		}
		past[e] = 0
		return false
	}
	return assign(0)
}

// candidatePasts lists the sets ⌊e⌋ may be: e's process up to e, with a
// prefix of every other process, containing the past of e's previous
// event in its process (which, earlier in the history, has its past
// already; → contains ↦, so that past is in ⌊e⌋).
func (x *exec[S]) candidatePasts(e int, past []mask) []mask {
	p := x.ev[e].proc
	var base mask
	for _, a := range x.procs[p] {
		base |= 1 << a
		if a == e {
			break
		}
		base |= past[a]
	}
	out := []mask{base}
	for q, evs := range x.procs {
		if q == p {
			continue
		}
		var next []mask
		for _, d := range out {
			next = append(next, prefixesOver(d, evs)...)
		}
		out = next
	}
	return out
}

// prefixesOver returns d with each prefix of evs added that contains d's
// events among evs.
func prefixesOver(d mask, evs []int) []mask {
	var out []mask
	var prefix mask
	for k := 0; k <= len(evs); k++ {
		if d&^prefix&maskOf(evs) == 0 {
			out = append(out, d|prefix)
		}
		if k < len(evs) {
			prefix |= 1 << evs[k]
		}
	}
	return out
}

func maskOf(evs []int) mask {
	var m mask
	for _, e := range evs {
		m |= 1 << e
	}
	return m
}

// allowedPast reports whether every event of d other than e may precede e.
func allowedPast(d mask, e int, allowed func(a, e int) bool) bool {
	if allowed == nil {
		return true
	}
	for a := 0; a < 16; a++ {
		if a != e && d.has(a) && !allowed(a, e) {
			return false
		}
	}
	return true
}

// consistent checks transitivity and antisymmetry between e, just given
// its past, and every event given one before it.
func (x *exec[S]) consistent(past []mask, e int) bool {
	for a := 0; a < e; a++ {
		if past[e].has(a) && (past[a]&^past[e] != 0 || past[a].has(e)) {
			return false
		}
		if past[a].has(e) && (past[e]&^past[a] != 0 || past[e].has(a)) {
			return false
		}
	}
	return true
}

// conditionsHold checks holds for every event whose past has become
// complete (every event in it has a past) now that e has one: e itself if
// its past lies within events 0..e, and each earlier event whose past
// contains e and otherwise lies within them.
func (x *exec[S]) conditionsHold(past []mask, e int, holds func(past []mask, e int) bool) bool {
	given := mask(1)<<(e+1) - 1
	for f := 0; f <= e; f++ {
		if past[f]&^given == 0 && (f == e || past[f].has(e)) && !holds(past, f) {
			return false
		}
	}
	return true
}

// causedBy returns the causal order of the pasts: a → b when a is in ⌊b⌋
// and differs from b.
func causedBy(past []mask) func(a, b int) bool {
	return func(a, b int) bool { return a != b && past[b].has(a) }
}

// causal (weak causal consistency): some causal order gives every event e
// a sequence in lin(⌊e⌋, →) that is in L(T) with only e's output visible.
func (x *exec[S]) causal() bool {
	return x.someCausalOrder(nil, func(past []mask, e int) bool {
		return x.someOrder(past[e], causedBy(past), 1<<e)
	})
}

// causalMemory (causal consistency): as causal, with the outputs of every
// event of e's process in ⌊e⌋ visible.
func (x *exec[S]) causalMemory() bool {
	return x.someCausalOrder(nil, func(past []mask, e int) bool {
		return x.someOrder(past[e], causedBy(past), past[e]&x.ofProc(x.ev[e].proc))
	})
}

// causalConvergence: some causal order and some total order ≤ containing
// it give every event e the sequence of ⌊e⌋ in ≤'s order, in L(T) with
// only e's output visible. ≤ contains → ⊇ ↦, so every total order that
// matters is among those respecting ↦, which eachOrder lists; for each,
// the causal orders it contains are those whose every a → e has a ≤ e.
func (x *exec[S]) causalConvergence() bool {
	return x.eachOrder(x.po, func(total []int) bool {
		rank := make([]int, len(x.ev))
		for i, e := range total {
			rank[e] = i
		}
		earlier := func(a, e int) bool { return rank[a] < rank[e] }
		return x.someCausalOrder(earlier, func(past []mask, e int) bool {
			return x.legal(inOrder(total, past[e]), 1<<e)
		})
	})
}

// inOrder returns the events of set in the order of seq.
func inOrder(seq []int, set mask) []int {
	var out []int
	for _, e := range seq {
		if set.has(e) {
			out = append(out, e)
		}
	}
	return out
}
