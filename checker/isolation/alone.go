package isolation

import (
	"context"
	"slices"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// A searched level's violation names the cycle left when neither order of
// two writers can be taken (or the writers whose orders the search
// exhausted); the orders pruning forced before may rest on transactions
// the cycle does not name. A violation must claim no more than its
// transactions show, so the first violation of a searched level is
// checked again on its transactions alone, cut out as a history of their
// own (as recorded, with the writers of what they read, those writes
// alone), and, when that history passes, grown along the history's
// sessions and keys until it fails, then shrunk again, the cycle's
// transactions kept first and always.

// maxRechecks bounds the histories cut out for one violation.
const maxRechecks = 64

// kvPair is a key and a value written to it.
type kvPair struct{ k, v history.Value }

// cutter cuts sets of transactions out of a history and decides a level
// on them, within a budget of checks and search steps.
type cutter struct {
	ctx    context.Context
	h      *history.History
	txns   []txn.Txn
	init   history.Value
	level  string
	o      Options
	writer map[kvPair]int
	checks int
	steps  int64 // the search steps left
}

// alone returns v with transactions that violate level on their own: v's
// when they do, else v's and the fewest others the budget lets it find;
// when the budget runs out, every transaction connected to v's (those
// fail, as the search's proof stays among them), or for a violation that
// is not a cycle every transaction.
func alone(ctx context.Context, h *history.History, txns []txn.Txn, init history.Value, level string, v checker.Violation, o Options) checker.Violation {
	c := &cutter{ctx: ctx, h: h, txns: txns, init: init, level: level, o: o, steps: o.Steps}
	if c.steps <= 0 {
		c.steps = DefaultSteps
	}
	seeds := dedupe(slices.DeleteFunc(slices.Clone(v.Ops), func(p int) bool { return p < 0 || p >= len(txns) }))
	if len(seeds) == 0 || c.fails(seeds) {
		return v
	}
	order, connected := c.growthOrder(seeds)
	var found []int
	if v.Pattern != "no-commit-order" {
		found = c.grow(order, len(seeds), connected)
	} else {
		found = c.grow(order, len(seeds), len(order))
	}
	v.Ops = c.shrink(found, len(seeds))
	return v
}

// fails cuts keep out and reports whether level is false on it; false
// too when the budget is spent or the verdict unknown.
func (c *cutter) fails(keep []int) bool {
	if c.spent() {
		return false
	}
	c.checks++
	sub, err := c.cut(keep)
	if err != nil {
		return false
	}
	ts, err := txn.FromHistory(sub)
	if err != nil {
		return false
	}
	ix, err := build(sub, ts, c.init)
	if err != nil {
		return false
	}
	res, err := decide(c.ctx, ix, c.level, Options{Init: c.init, Steps: c.steps, MaxNodes: c.o.MaxNodes})
	c.steps -= res.Stats.States + int64(len(ts))
	return err == nil && res.Valid == checker.False
}

// spent reports whether the budget is.
func (c *cutter) spent() bool {
	return c.checks >= maxRechecks || c.steps <= 0 || c.ctx.Err() != nil
}

// cut is the history of keep's transactions as recorded and, with their
// writes alone, the writers of values they read (reads nobody's verdict
// rests on are left out, as those of a transaction of unknown outcome
// are; the writer stays in its session, so that session order is as
// recorded).
func (c *cutter) cut(keep []int) (*history.History, error) {
	sub, _, err := c.cutAt(keep)
	return sub, err
}

// cutAt is cut, with the positions in h of the cut-out history's
// operations.
func (c *cutter) cutAt(keep []int) (*history.History, []int, error) {
	if c.writer == nil {
		c.writer = map[kvPair]int{}
		for _, t := range c.txns {
			for _, m := range t.Mops {
				if m.Kind == txn.Write {
					c.writer[kvPair{m.Key, m.Value}] = t.Op
				}
			}
		}
	}
	whole := map[int]bool{}
	for _, p := range keep {
		whole[p] = true
	}
	writes := map[int]bool{}
	for _, p := range keep {
		if c.txns[p].Status != history.OK {
			continue
		}
		for _, m := range c.txns[p].Mops {
			if w, ok := c.writer[kvPair{m.Key, m.Value}]; ok && m.Kind == txn.Read && !whole[w] {
				writes[w] = true
			}
		}
	}
	ps := make([]int, 0, len(whole)+len(writes))
	for p := range whole {
		ps = append(ps, p)
	}
	for p := range writes {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	ops := make([]history.Op, 0, len(ps))
	for _, p := range ps {
		o := c.h.Ops[p]
		if writes[p] {
			o.Value = history.ListValue(c.writesOf(p)...)
		}
		ops = append(ops, o)
	}
	sub, err := c.h.Derive(ops)
	if err != nil {
		return nil, nil, err
	}
	sub.Meta = c.h.Meta
	return sub, ps, nil
}

// writesOf is transaction p's value with its writes alone.
func (c *cutter) writesOf(p int) []history.Value {
	var out []history.Value
	mops := c.txns[p].Mops
	for i, e := range c.h.Ops[p].Value.Elems() {
		if i < len(mops) && mops[i].Kind == txn.Write {
			out = append(out, e)
		}
	}
	return out
}

// growthOrder lists the transactions that did not fail breadth first from
// seeds, over session order and the keys they read or write, then the
// rest; connected counts those reached from seeds.
func (c *cutter) growthOrder(seeds []int) (order []int, connected int) {
	byKey := map[history.Value][]int{}
	byProc := map[int][]int{}
	at := make([]int, len(c.txns)) // position in its session
	for ti := range c.txns {
		t := &c.txns[ti]
		if t.Status == history.Fail {
			continue
		}
		at[ti] = len(byProc[t.Process])
		byProc[t.Process] = append(byProc[t.Process], ti)
		for _, m := range t.Mops {
			if ks := byKey[m.Key]; len(ks) == 0 || ks[len(ks)-1] != ti {
				byKey[m.Key] = append(ks, ti)
			}
		}
	}
	seen := make([]bool, len(c.txns))
	visit := func(p int) {
		if !seen[p] && c.txns[p].Status != history.Fail {
			seen[p] = true
			order = append(order, p)
		}
	}
	for _, p := range seeds {
		visit(p)
	}
	for qi := 0; qi < len(order); qi++ {
		t := &c.txns[order[qi]]
		sess := byProc[t.Process]
		if i := at[order[qi]]; i > 0 {
			visit(sess[i-1])
		}
		if i := at[order[qi]]; i+1 < len(sess) {
			visit(sess[i+1])
		}
		for _, m := range t.Mops {
			for _, p := range byKey[m.Key] {
				visit(p)
			}
			delete(byKey, m.Key) // a key's transactions are visited once
		}
	}
	connected = len(order)
	for p := range c.txns {
		visit(p)
	}
	return order, connected
}

// grow takes ever longer prefixes of order, doubling from the seeds'
// count, until one fails; past the budget, order's first fallback.
func (c *cutter) grow(order []int, seeds, fallback int) []int {
	for m := 2 * seeds; m < fallback && !c.spent(); m *= 2 {
		if c.fails(order[:m]) {
			return order[:m]
		}
	}
	return order[:fallback]
}

// shrink leaves out of s, while what is left still fails, runs of the
// transactions after its first fixed, the last first and the runs
// halving (a simple delta debugging), within the budget.
func (c *cutter) shrink(s []int, fixed int) []int {
	seeds, extra := s[:fixed:fixed], slices.Clone(s[fixed:])
	for chunk := (len(extra) + 1) / 2; chunk > 0 && !c.spent(); chunk /= 2 {
		for end := len(extra); end > 0 && !c.spent(); {
			start := max(0, end-chunk)
			try := append(append(slices.Clone(seeds), extra[:start]...), extra[end:]...)
			if c.fails(try) {
				extra = slices.Delete(extra, start, end)
			}
			end = start
		}
	}
	return append(slices.Clone(seeds), extra...)
}
