package adt

import "encoding/binary"

// reach answers a relaxation of "can some causal past of e explain it":
// is there a union of per-process prefixes containing at least the
// prefixes lo (e's process's prefix exactly), in some order that keeps
// only each process's order, after which e is legal with the outputs
// shown? Every causal past of e that contains lo is such a union, and
// every sequence that respects a causal order keeps process order, so
// "no" means no past e can ever have explains it: the configuration that
// forced lo on e is dead.
type reach[S comparable] struct {
	p      *problem[S]
	e      int32
	lo     []int32
	shown  func(x int32) bool
	failed map[string]struct{}
	key    []byte
}

// explainable runs the relaxation, caching its answers per event and
// lower bound.
func (s *causalSearch[S]) explainable(e int32, lo []int32) (bool, error) {
	k := string(binary.AppendUvarint(s.keyOf(lo), uint64(e)))
	if ok, hit := s.reachable[k]; hit {
		return ok, nil
	}
	shown := func(x int32) bool { return x == e }
	if s.crit == "causal-memory" {
		own := s.p.proc[e]
		shown = func(x int32) bool { return s.p.proc[x] == own }
	}
	r := &reach[S]{p: s.p, e: e, lo: lo, shown: shown, failed: map[string]struct{}{}}
	ok, err := r.dfs(make([]int32, len(s.p.procs)), s.p.init)
	if err == nil {
		s.reachable[k] = ok
	}
	return ok, err
}

func (s *causalSearch[S]) keyOf(v []int32) []byte {
	var b []byte
	for _, n := range v {
		b = binary.AppendUvarint(b, uint64(n))
	}
	return b
}

func (r *reach[S]) dfs(u []int32, g string) (bool, error) {
	if err := r.p.budget.tick(); err != nil {
		return false, err
	}
	own := r.p.proc[r.e]
	if r.covers(u) {
		if _, ok := r.p.w.step(g, r.e, true); ok {
			return true, nil
		}
	}
	r.key = r.key[:0]
	for _, n := range u {
		r.key = binary.AppendUvarint(r.key, uint64(n))
	}
	key := string(append(r.key, g...))
	if _, bad := r.failed[key]; bad {
		return false, nil
	}
	// What lo demands first, e's own process before all: a past that
	// holds just that is the likeliest to explain e, and is tried first.
	for _, needed := range []bool{true, false} {
		for _, q := range r.order(own) {
			evs := r.p.procs[q]
			limit := int32(len(evs))
			if q == own {
				limit = r.p.idx[r.e]
			}
			if u[q] >= limit || (u[q] < r.lo[q] || q == own) != needed {
				continue
			}
			if ok, err := r.move(u, g, int(q), evs[u[q]]); ok || err != nil {
				return ok, err
			}
		}
	}
	r.p.remember(r.failed, key)
	return false, nil
}

// move takes x, the next event of process q, and goes on; an event of
// unknown outcome may also be passed over, as not taking effect.
func (r *reach[S]) move(u []int32, g string, q int, x int32) (bool, error) {
	v := append([]int32(nil), u...)
	v[q]++
	if r.p.unknown[x] || (r.p.pure[x] && !r.shown(x)) {
		if ok, err := r.dfs(v, g); ok || err != nil || r.p.pure[x] {
			return ok, err
		}
	}
	next, legal := r.p.w.step(g, x, r.shown(x))
	if !legal {
		return false, nil
	}
	return r.dfs(v, next)
}

// covers reports whether u holds lo and all of e's process before e.
func (r *reach[S]) covers(u []int32) bool {
	for q, n := range r.lo {
		if u[q] < n {
			return false
		}
	}
	return u[r.p.proc[r.e]] == r.p.idx[r.e]
}

// maxRelaxStates bounds the states the relaxation of
// causal-convergence keeps before it gives way to the plain one.
const maxRelaxStates = 64

// stillExplainable is explainable for the configuration at hand. For
// causal-convergence the committed events are already in the order ≤, so
// the relaxation keeps it: any subset of them that holds lo's, in commit
// order, then (from any state that reaches) the events still to commit,
// each process's in its order.
func (s *causalSearch[S]) stillExplainable(e int32, lo []int32) (bool, error) {
	if s.crit != "causal-convergence" {
		return s.explainable(e, lo)
	}
	set := stateSet{s.p.init}
	for _, x := range s.order {
		if s.p.pure[x] {
			continue
		}
		var stepped []string
		for _, g := range set {
			if err := s.p.budget.tick(); err != nil {
				return false, err
			}
			if next, ok := s.p.w.step(g, x, false); ok {
				stepped = append(stepped, next)
			}
		}
		if s.p.idx[x] < lo[s.p.proc[x]] {
			set = union(nil, stepped)
		} else {
			set = union(set, stepped)
		}
		if len(set) > maxRelaxStates {
			// Updates that commute (adds to a set) make the subsets'
			// states many: the plain relaxation is cheaper.
			return s.explainable(e, lo)
		}
	}
	shown := func(x int32) bool { return x == e }
	for _, g := range set {
		r := &reach[S]{p: s.p, e: e, lo: lo, shown: shown, failed: map[string]struct{}{}}
		if ok, err := r.dfs(append([]int32(nil), s.next...), g); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// order lists the processes, own first.
func (r *reach[S]) order(own int32) []int32 {
	out := []int32{own}
	for q := range r.p.procs {
		if int32(q) != own {
			out = append(out, int32(q))
		}
	}
	return out
}
