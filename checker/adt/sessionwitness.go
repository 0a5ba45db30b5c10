package adt

import (
	"encoding/binary"
	"errors"

	"github.com/histcheck/histcheck/checker"
)

// sessionWitness turns a session search's success into a result: ar as
// Witness, and each event's visible events, in ar order, itself last.
func sessionWitness[S comparable](p *problem[S], s *sessionSearch[S]) (checker.Result, error) {
	ar := append([]int32(nil), s.order...)
	for e, pure := range p.pure {
		if pure {
			ar = append(ar, int32(e))
		}
	}
	res := checker.Result{Valid: checker.True, Method: MethodSession, Witness: p.positions(ar),
		Reason: "an arbitration order in which every operation's output is legal after the operations it sees"}
	for i, e := range ar {
		vis, err := s.visible(ar[:i], e)
		if err != nil {
			return checker.Result{}, err
		}
		res.Views = append(res.Views, checker.View{Op: p.c.Pos[e], Order: p.positions(append(vis, e))})
	}
	res.Dropped = droppedOf(p, s.absent)
	return res, nil
}

// visible finds a subsequence of before that makes e's output legal.
// The search found one exists; this finds which.
func (s *sessionSearch[S]) visible(before []int32, e int32) ([]int32, error) {
	anyOne := func(int32) bool { return true }
	return s.p.visibleIn(before, e, func(int32) bool { return false }, anyOne)
}

// visibleIn finds a subsequence of the updates of before, holding every
// one must names and only ones allowed names, after which e's output is
// legal, outputs hidden.
func (p *problem[S]) visibleIn(before []int32, e int32, must, allowed func(x int32) bool) ([]int32, error) {
	failed := map[string]struct{}{}
	var path []int32
	var walk func(i int, g string) (bool, error)
	walk = func(i int, g string) (bool, error) {
		if err := p.budget.tick(); err != nil {
			return false, err
		}
		if i == len(before) {
			_, ok := p.w.step(g, e, true)
			return ok, nil
		}
		key := string(binary.AppendUvarint([]byte(g), uint64(i)))
		if _, bad := failed[key]; bad {
			return false, nil
		}
		x := before[i]
		if next, ok := p.w.step(g, x, false); ok && !p.pure[x] && allowed(x) {
			path = append(path, x)
			if ok, err := walk(i+1, next); ok || err != nil {
				return ok, err
			}
			path = path[:len(path)-1]
		}
		if !must(x) {
			if ok, err := walk(i+1, g); ok || err != nil {
				return ok, err
			}
		}
		p.remember(failed, key)
		return false, nil
	}
	ok, err := walk(0, p.init)
	if err == nil && !ok {
		return nil, errors.New("adt: the arbitration search found no visible events for " + p.h.Ops[p.c.Pos[e]].Label())
	}
	return path, err
}

// typedWitness turns a typed search's success into a result: ar as
// Witness, and each event's visible events, in ar order, itself last.
func typedWitness[S comparable](p *problem[S], s *typedSearch[S]) (checker.Result, error) {
	ar := append([]int32(nil), s.order...)
	for e, pure := range p.pure {
		if pure && !s.absent[e] {
			ar = append(ar, int32(e))
		}
	}
	at := make([]int, len(p.c.Ops))
	for i, e := range ar {
		at[e] = i
	}
	res := checker.Result{Valid: checker.True, Method: MethodSession, Witness: p.positions(ar),
		Reason: "an arbitration order in which every operation's output is legal after the operations it sees"}
	for i, e := range ar {
		bound := s.obs[e] || p.pure[e]
		must := func(x int32) bool {
			return s.ryw && bound && p.proc[x] == p.proc[e] && p.idx[x] < p.idx[e] && !p.pure[x]
		}
		cut := len(ar)
		if !s.ryw && bound {
			for _, c := range p.procs[p.proc[e]][p.idx[e]+1:] {
				if !p.pure[c] && !s.absent[c] && at[c] < cut {
					cut = at[c]
				}
			}
		}
		if s.mr && s.cpos[e] >= 0 {
			view := append(s.chainedView(ar[:i], e), e)
			res.Views = append(res.Views, checker.View{Op: p.c.Pos[e], Order: p.positions(view)})
			continue
		}
		vis, err := p.visibleIn(ar[:i], e, must, func(x int32) bool { return at[x] < cut })
		if err != nil {
			return checker.Result{}, err
		}
		res.Views = append(res.Views, checker.View{Op: p.c.Pos[e], Order: p.positions(append(vis, e))})
	}
	res.Dropped = droppedOf(p, s.absent)
	return res, nil
}

// sessionViolation gives the facts of a failed session search: the
// deepest ar found and the events that could not follow it.
func sessionViolation[S comparable](p *problem[S], s *sessionSearch[S], criterion, modelName string) checker.Result {
	return arbitrationViolation(p, s.deepest, s.stuck, criterion, modelName)
}

// arbitrationViolation gives the facts of a failed search of ar: the
// deepest ar found and the events that could not follow it.
func arbitrationViolation[S comparable](p *problem[S], deepest, stuck []int32, criterion, modelName string) checker.Result {
	v := checker.Violation{Pattern: PatternNoArbitration, Op: checker.None, Searched: len(p.c.Ops),
		Prefix: p.positions(deepest), Model: modelName, Ops: p.positions(stuck)}
	for _, e := range stuck {
		if v.Op == checker.None {
			v.Op = p.c.Pos[e]
		}
		v.Stuck = append(v.Stuck, checker.Stuck{Op: p.c.Pos[e]})
	}
	return checker.Result{Valid: checker.False, Method: MethodSession, Violations: []checker.Violation{v},
		Reason: "no arbitration order explains every output with " + criterion}
}

// typedViolation gives the facts of a failed typed search.
func typedViolation[S comparable](p *problem[S], s *typedSearch[S], criterion, modelName string) checker.Result {
	return arbitrationViolation(p, s.deepest, s.stuck, criterion, modelName)
}
