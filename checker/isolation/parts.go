package isolation

import (
	"context"
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// A history whose transactions fall into parts that share no key and no
// session satisfies a level exactly when each part does: nothing orders a
// part's transactions against another's, so the parts' commit orders,
// one after another, are one for the whole. The searched levels are
// decided part by part: a search on the whole takes the parts' choices in
// one sweep, and a choice one part forces wrong is undone only after
// every choice of the others taken since (on the long-fork store's 10,000
// transactions, whose four of a long fork stand apart, parallel snapshot
// isolation was unknown after the step budget; by part, the
// serializable store's part has a serializable commit order at once).

// parts lists the index's nodes' transactions (positions, ascending) by
// the parts they fall into, when there is more than one.
func (ix *index) parts() [][]int {
	n := len(ix.op)
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(v int32) int32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]]
			v = parent[v]
		}
		return v
	}
	join := func(a, b int32) {
		if ra, rb := find(a), find(b); ra != rb {
			parent[ra] = rb
		}
	}
	for _, sess := range ix.sessions {
		for i := 1; i < len(sess); i++ {
			join(sess[i-1], sess[i])
		}
	}
	byKey := make([]node, len(ix.keys)) // a node that touches the key, 0: none
	touch := func(v node, k int32) {
		if byKey[k] == initial {
			byKey[k] = v
		} else {
			join(v, byKey[k])
		}
	}
	for v := 1; v < n; v++ {
		for _, r := range ix.reads[v] {
			touch(node(v), r.key)
		}
		for _, k := range ix.writes[v] {
			touch(node(v), k)
		}
	}
	at := map[int32]int{}
	var out [][]int
	for v := 1; v < n; v++ {
		root := find(int32(v))
		i, ok := at[root]
		if !ok {
			i = len(out)
			at[root] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], ix.op[v])
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// decideParts decides a searched level part by part (parts), or on the
// whole when it has one part or reads no commit order explains.
func decideParts(ctx context.Context, h *history.History, txns []txn.Txn, ix *index, level string, o Options) (checker.Result, error) {
	var parts [][]int
	if len(ix.issues) == 0 {
		parts = ix.parts()
	}
	if parts == nil {
		return decide(ctx, ix, level, o)
	}
	c := &cutter{ctx: ctx, h: h, txns: txns, init: ix.init, level: level, o: o}
	steps := o.Steps
	if steps <= 0 {
		steps = DefaultSteps
	}
	out := checker.Result{Valid: checker.True, Method: methodSearch, Stats: checker.Stats{Ops: len(ix.op) - 1}}
	for _, part := range parts {
		r, at, err := c.decideCut(part, steps)
		if err != nil {
			return r, err
		}
		steps -= r.Stats.States
		out.Stats.States += r.Stats.States
		switch r.Valid {
		case checker.False:
			// The parts that passed before gave a commit order; a
			// violation has none.
			out.Valid, out.Reason, out.Method, out.Witness = checker.False, r.Reason, r.Method, nil
			for _, v := range r.Violations {
				out.Violations = append(out.Violations, mapViolation(v, at))
			}
			return out, nil
		case checker.Unknown:
			out.Valid, out.Reason = checker.Unknown, r.Reason
		default:
			for _, p := range r.Witness {
				out.Witness = append(out.Witness, at[p])
			}
		}
	}
	if out.Valid == checker.True {
		out.Witness = out.Witness[:len(out.Witness):len(out.Witness)]
		out.Reason = fmt.Sprintf("the commit order shown is the %d independent parts' (no key or session in common), one after another", len(parts))
	} else {
		out.Witness = nil
	}
	return out, nil
}

// decideCut decides level on part cut out, with the positions in h of
// the cut-out history's operations.
func (c *cutter) decideCut(part []int, steps int64) (checker.Result, []int, error) {
	sub, at, err := c.cutAt(part)
	if err != nil {
		return checker.Result{}, nil, fmt.Errorf("cutting out a part: %w", err)
	}
	if len(sub.Ops) != len(at) {
		return checker.Result{}, nil, fmt.Errorf("internal error: a part of %d transactions cut out as %d", len(at), len(sub.Ops))
	}
	ts, err := txn.FromHistory(sub)
	if err != nil {
		return checker.Result{}, nil, err
	}
	ix, err := build(sub, ts, c.init)
	if err != nil {
		return checker.Result{}, nil, err
	}
	r, err := decide(c.ctx, ix, c.level, Options{Init: c.init, Steps: max(steps, 1), MaxNodes: c.o.MaxNodes})
	return r, at, err
}

// mapViolation maps a violation of a cut-out history to the positions in
// the whole (at), leaving out the markers below zero.
func mapViolation(v checker.Violation, at []int) checker.Violation {
	m := func(p int) int {
		if p >= 0 && p < len(at) {
			return at[p]
		}
		return p
	}
	ops := make([]int, len(v.Ops))
	for i, p := range v.Ops {
		ops[i] = m(p)
	}
	v.Ops, v.Op = ops, m(v.Op)
	if v.Isolation != nil {
		f := *v.Isolation
		f.Reader, f.Writer = m(f.Reader), m(f.Writer)
		f.Steps, f.Other = mapSteps(f.Steps, m), mapSteps(f.Other, m)
		v.Isolation = &f
	}
	return v
}

func mapSteps(steps []checker.IsolationStep, m func(int) int) []checker.IsolationStep {
	if steps == nil {
		return nil
	}
	out := make([]checker.IsolationStep, len(steps))
	for i, st := range steps {
		st.From, st.To = m(st.From), m(st.To)
		if st.Type == "co" {
			st.Reader = m(st.Reader)
		}
		out[i] = st
	}
	return out
}
