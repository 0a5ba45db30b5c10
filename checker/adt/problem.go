package adt

import (
	"context"
	"errors"
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// errBudget ends a search that has explored Options.MaxNodes nodes.
var errBudget = errors.New("adt: node budget spent")

// problem is a history prepared for the searches: its events (the
// operations that did not fail, compiled), grouped by process.
type problem[S comparable] struct {
	h     *history.History
	c     *checker.Compiled
	w     *world[S]
	init  string
	procs [][]int32 // per process, its events in process order
	proc  []int32   // event -> process index
	idx   []int32   // event -> place in its process
	// pure marks events of a pure read (model.ReadOp): hidden, such an
	// event is legal anywhere and changes nothing.
	pure []bool
	// update marks events that can change the state (see Update).
	update  []bool
	unknown []bool // events of unknown outcome
	// blind marks blind writes of a register model: legal in every state
	// (model.ReadWriteRegister's WriteOp).
	blind  []bool
	budget *counter
	// memoBytes is what the searches' memos of failed configurations
	// hold, bounded by maxMemoBytes.
	memoBytes int64
}

// maxMemoBytes bounds the memos of failed configurations of one check.
// A memo only saves work: past the bound a search remembers nothing more
// and may repeat itself, which the node budget then bounds.
const maxMemoBytes = 256 << 20

// remember records key as failed in memo, while the memos are within
// their bound.
func (p *problem[S]) remember(memo map[string]struct{}, key string) {
	if p.memoBytes+int64(len(key)) > maxMemoBytes {
		return
	}
	p.memoBytes += int64(len(key)) + 48
	memo[key] = struct{}{}
}

// counter counts the nodes a search explores, against a budget, and
// watches the context every so often.
type counter struct {
	ctx   context.Context
	n     int64
	max   int64
	cause error
}

// tick counts one node; it fails once the budget is spent or ctx is done.
func (c *counter) tick() error {
	c.n++
	if c.cause != nil {
		return c.cause
	}
	if c.max > 0 && c.n > c.max {
		c.cause = errBudget
		return c.cause
	}
	if (c.n == 1 || c.n&1023 == 0) && c.ctx.Err() != nil {
		c.cause = c.ctx.Err()
		return c.cause
	}
	return nil
}

// newProblem compiles h for m. Every event is kept: pruning operations
// of unknown outcome is argued for the strong criteria only (a crashed
// enqueue nobody dequeued still moves what a hidden dequeue removes).
func newProblem[S comparable](ctx context.Context, m model.Model[S], h *history.History, maxNodes int64) (*problem[S], error) {
	c, err := checker.Compile(m, h, nil, nil, false)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Info().Name, err)
	}
	n := len(c.Ops)
	p := &problem[S]{h: h, c: c, proc: make([]int32, n), idx: make([]int32, n),
		pure: make([]bool, n), update: make([]bool, n), unknown: make([]bool, n),
		budget: &counter{ctx: ctx, max: maxNodes}}
	info := m.Info()
	keyOf := make([]int32, n)
	keys := map[history.Value]int32{}
	byProc := map[int]int32{}
	for e, pos := range c.Pos {
		op := &h.Ops[pos]
		if info.Keyed {
			k, ok := keys[op.Key]
			if !ok {
				k = int32(len(keys))
				keys[op.Key] = k
			}
			keyOf[e] = k
		}
		pi, ok := byProc[op.Process]
		if !ok {
			pi = int32(len(p.procs))
			byProc[op.Process] = pi
			p.procs = append(p.procs, nil)
		}
		p.proc[e], p.idx[e] = pi, int32(len(p.procs[pi]))
		p.procs[pi] = append(p.procs[pi], int32(e))
		p.pure[e] = info.ClassOf(op.F) == model.ReadOp
		p.update[e] = Update(info, op.F)
		p.unknown[e] = c.Ops[e].Unknown
	}
	p.w = newWorld(m, c.Ops, keyOf, max(len(keys), 1))
	p.blind = make([]bool, n)
	if rw, ok := any(m).(model.ReadWriteRegister); ok {
		for e := range c.Ops {
			p.blind[e] = rw.Class(&c.Ops[e]) == model.WriteOp
		}
	}
	p.init = p.w.init(m.Init(c.Table))
	return p, nil
}

// Update reports whether an operation named f can change the state of a
// model described by info: every class but the pure reads.
func Update(info model.Info, f string) bool {
	c := info.ClassOf(f)
	return c != model.ReadOp && c != model.AnyReadOp
}

// positions returns the history positions of events.
func (p *problem[S]) positions(events []int32) []int {
	out := make([]int, len(events))
	for i, e := range events {
		out[i] = p.c.Pos[e]
	}
	return out
}
