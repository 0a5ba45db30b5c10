package adt

import (
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/model"
)

// causalWitness turns a causal search's success into a result: each
// event's view and, for causal-convergence, the order ≤ as Witness.
func causalWitness[S comparable](p *problem[S], s *causalSearch[S]) checker.Result {
	res := checker.Result{Valid: checker.True, Method: MethodCausal,
		Reason: "a causal order whose every causal past explains its operation's output"}
	if s.crit == checker.CausalConvergence {
		// The commit order is the total order ≤, part of the witness; for
		// the others it is only one of the causal order's extensions.
		res.Witness = p.positions(s.order)
	}
	for _, e := range s.order {
		res.Views = append(res.Views, checker.View{Op: p.c.Pos[e], Order: p.positions(s.views[e])})
	}
	res.Dropped = droppedOf(p, s.absent)
	return res
}

// droppedOf lists the positions of the events of unknown outcome marked
// absent.
func droppedOf[S comparable](p *problem[S], absent []bool) []int {
	var out []int
	for e, a := range absent {
		if a && p.unknown[e] {
			out = append(out, p.c.Pos[e])
		}
	}
	return out
}

// causalViolation gives the facts of a failed causal search: where its
// deepest branch stopped and which operation no past explained there.
func causalViolation[S comparable](p *problem[S], s *causalSearch[S], criterion, modelName string) checker.Result {
	v := checker.Violation{Pattern: PatternNoPast, Op: checker.None, Searched: len(p.c.Ops),
		Prefix: p.positions(s.deepest), Model: modelName, Ops: p.positions(s.stuck)}
	if s.isolated {
		v.Pattern = PatternUnexplained
	}
	for i, e := range s.stuck {
		st := checker.Stuck{Op: p.c.Pos[e], Legal: s.legal[i]}
		if !st.Legal {
			st.Said = p.said(e)
			if v.Op == checker.None {
				v.Op = p.c.Pos[e]
			}
		}
		v.Stuck = append(v.Stuck, st)
	}
	if v.Op == checker.None && len(v.Ops) > 0 {
		v.Op = v.Ops[0]
	}
	return checker.Result{Valid: checker.False, Method: MethodCausal, Violations: []checker.Violation{v},
		Reason: fmt.Sprintf("no causal order explains every output (%s)", criterion)}
}

// said is what the model says about e in the initial state when it is
// illegal there (the reason an empty past cannot explain it), else "".
func (p *problem[S]) said(e int32) string {
	ex, ok := p.w.m.(model.Explainer[S])
	if !ok {
		return ""
	}
	k := p.w.keyOf[e]
	s := p.w.state(p.init, k)
	op := p.c.Ops[e]
	if _, legal := p.w.m.Step(s, &op); legal {
		return ""
	}
	return ex.Explain(s, &op, p.c.Table)
}

// pramWitness turns a pram search's success into a result: each
// process's view.
func pramWitness[S comparable](p *problem[S], s *pramSearch[S]) checker.Result {
	res := checker.Result{Valid: checker.True, Method: MethodPRAM,
		Reason: "every process has a view that keeps every process's order and explains its outputs"}
	for r, evs := range p.procs {
		for _, e := range evs {
			if !s.absent[e] {
				res.Views = append(res.Views, checker.View{Op: p.c.Pos[e], Process: true, Order: p.positions(s.views[r])})
				break
			}
		}
	}
	res.Dropped = droppedOf(p, s.absent)
	return res
}

// pramViolation gives the facts of a failed pram search: the first
// process found without a view, the longest start of one, and what could
// not follow it.
func pramViolation[S comparable](p *problem[S], s *pramSearch[S], modelName string) checker.Result {
	f := s.failFact
	v := checker.Violation{Pattern: PatternNoView, Op: checker.None, Searched: len(p.c.Ops),
		Session: p.c.Pos[p.procs[s.fail][0]], Prefix: p.positions(f.best), Model: modelName,
		Ops: p.positions(f.stuck)}
	for _, e := range f.stuck {
		if v.Op == checker.None && int(p.proc[e]) == s.fail {
			v.Op = p.c.Pos[e]
		}
		v.Stuck = append(v.Stuck, checker.Stuck{Op: p.c.Pos[e]})
	}
	reason := "a process has no view that keeps every process's order and explains its outputs"
	if anyUnknown(p) {
		reason += ", whichever operations of unknown outcome took effect"
	}
	return checker.Result{Valid: checker.False, Method: MethodPRAM, Violations: []checker.Violation{v}, Reason: reason}
}

func anyUnknown[S comparable](p *problem[S]) bool {
	for _, u := range p.unknown {
		if u {
			return true
		}
	}
	return false
}
