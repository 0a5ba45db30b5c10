package checker

import (
	"errors"
	"fmt"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Compiled is a history (or one partition of it) prepared for a search: the
// operations that did not fail, in the model's compact form.
type Compiled struct {
	Ops []model.Op
	// Pos[i] is the position in history.History.Ops of Ops[i].
	Pos []int
	// Dropped lists positions of operations with unknown outcome that the
	// model's Pruner showed nothing observed; they are not in Ops.
	Dropped []int
	Table   *model.Table
	// Touching reports that some client's operation returns at the
	// instant its next is called. Operations whose times tie overlap, so
	// Call and Return then do not keep that client's order (a client runs
	// one operation after another whatever its clock says), and Prev
	// gives it: a search must keep it itself.
	Touching bool
	// Prev, when Touching, gives each operation the last operation of its
	// client before it that completed (an index into Ops), which must
	// take effect first; -1 when there is none.
	Prev []int32
}

// Compile prepares the operations at the given positions of h (all of them
// when positions is nil) for model m. Failed operations are skipped; with
// prune, unobserved operations of unknown outcome are dropped when the model
// can tell. A model's complaint about an operation becomes an
// *history.InputError naming its line or index.
func Compile[S comparable](m model.Model[S], h *history.History, positions []int, t *model.Table, prune bool) (*Compiled, error) {
	return compile(m, h, positions, t, prune, true)
}

// CompileGroup is Compile for a group of h's operations (one key's, say)
// by a caller that knows whether h.Touching(): a group's operations can
// touch only where the whole history's do (what lies between two of a
// client's operations at one instant lies at that instant too), so when
// touching is false no group is looked at for it.
func CompileGroup[S comparable](m model.Model[S], h *history.History, positions []int, prune, touching bool) (*Compiled, error) {
	return compile(m, h, positions, nil, prune, touching)
}

func compile[S comparable](m model.Model[S], h *history.History, positions []int, t *model.Table, prune, mayTouch bool) (*Compiled, error) {
	if t == nil {
		t = model.NewTable()
	}
	n := len(positions)
	if positions == nil {
		n = len(h.Ops)
	}
	if r, ok := any(m).(model.Reserver); ok {
		r.Reserve(n)
	}
	c := &Compiled{Table: t, Ops: make([]model.Op, 0, n), Pos: make([]int, 0, n)}
	add := func(i int) error {
		op := &h.Ops[i]
		if op.Status == history.Fail {
			return nil
		}
		mo, err := m.Compile(op, t)
		if err != nil {
			return OpError(op, i, err)
		}
		mo.Unknown = op.Status == history.Info
		mo.Call, mo.Return, mo.Proc = op.Call, op.Return, int32(op.Process)
		mo.Start, mo.End = Clock(h, op)
		c.Ops = append(c.Ops, mo)
		c.Pos = append(c.Pos, i)
		return nil
	}
	if positions == nil {
		for i := range h.Ops {
			if err := add(i); err != nil {
				return nil, err
			}
		}
	} else {
		for _, i := range positions {
			if err := add(i); err != nil {
				return nil, err
			}
		}
	}
	if err := finish(m, h, c.Ops, c.Pos, t); err != nil {
		return nil, err
	}
	if p, ok := any(m).(model.Pruner); ok && prune {
		keep := p.Keep(c.Ops)
		n := 0
		for i := range c.Ops {
			if keep[i] {
				c.Ops[n], c.Pos[n] = c.Ops[i], c.Pos[i]
				n++
			} else {
				c.Dropped = append(c.Dropped, c.Pos[i])
			}
		}
		c.Ops, c.Pos = c.Ops[:n], c.Pos[:n]
	}
	if mayTouch && touching(h, c) {
		c.Touching, c.Prev = true, clientPrev(h, c)
	}
	return c, nil
}

// touching reports whether some client's operation returns at the
// instant its next is called (c's operations are in call order, each
// client's in its order).
func touching(h *history.History, c *Compiled) bool {
	last := map[string]int64{}
	for _, p := range c.Pos {
		o := &h.Ops[p]
		if r, ok := last[o.Client]; ok && r == o.Call {
			return true
		}
		last[o.Client] = o.Return
	}
	return false
}

// clientPrev gives each of c's operations the last operation of its
// client before it that completed, or -1. An operation of unknown outcome
// precedes nothing: it may take effect after what its client did next.
func clientPrev(h *history.History, c *Compiled) []int32 {
	prev := make([]int32, len(c.Ops))
	last := map[string]int32{}
	for k, p := range c.Pos {
		o := &h.Ops[p]
		q, ok := last[o.Client]
		if !ok {
			q = -1
		}
		prev[k] = q
		if !c.Ops[k].Unknown {
			last[o.Client] = int32(k)
		}
	}
	return prev
}

// Clock returns an operation's recorded times: Call and Return in time
// order, else the times its events carried, else its positions.
func Clock(h *history.History, op *history.Op) (start, end int64) {
	if h.Order == history.FileOrder && h.Timed {
		if op.Status == history.Info {
			return op.Times.Call, history.Infinity
		}
		return op.Times.Call, op.Times.Return
	}
	return op.Call, op.Return
}

// finish lets a model that is a model.Finisher complete ops (compiled from
// the operations of h at positions pos), and turns its complaint into an
// input error naming the first operation concerned.
func finish[S comparable](m model.Model[S], h *history.History, ops []model.Op, pos []int, t *model.Table) error {
	f, ok := any(m).(model.Finisher)
	if !ok {
		return nil
	}
	err := f.Finish(ops, t)
	if err == nil {
		return nil
	}
	var oe *model.OpsError
	if !errors.As(err, &oe) || len(oe.Ops) == 0 {
		return err
	}
	msg := oe.Msg
	if len(oe.Ops) > 1 {
		msg += " (so does " + h.Ops[pos[oe.Ops[1]]].Label() + ")"
	}
	i := pos[oe.Ops[0]]
	return OpError(&h.Ops[i], i, errors.New(msg))
}

// OpError wraps a model's complaint about the operation at position i as an
// input error that names where the operation came from.
func OpError(op *history.Op, i int, err error) error {
	var ie *history.InputError
	if errors.As(err, &ie) {
		return err
	}
	e := &history.InputError{Line: op.Line, Msg: fmt.Sprintf("operation %s: %v", op.Label(), err)}
	if op.Line == 0 {
		e.Op = i + 1
	}
	return e
}

// Partition groups the positions of h's operations by key, in order of each
// key's first appearance. Operations without a key form one group.
func Partition(h *history.History) (keys []history.Value, groups [][]int) {
	idx := make(map[history.Value]int)
	of := make([]int32, len(h.Ops)) // each operation's group
	var sizes []int
	for i := range h.Ops {
		k := h.Ops[i].Key
		g, ok := idx[k]
		if !ok {
			g = len(keys)
			idx[k] = g
			keys = append(keys, k)
			sizes = append(sizes, 0)
		}
		of[i] = int32(g)
		sizes[g]++
	}
	if len(keys) == 0 {
		return nil, nil
	}
	// The groups share one array, each with room for exactly its own.
	all := make([]int, len(h.Ops))
	groups = make([][]int, len(keys))
	start := 0
	for g, n := range sizes {
		groups[g] = all[start : start : start+n]
		start += n
	}
	for i, g := range of {
		groups[g] = append(groups[g], i)
	}
	return keys, groups
}
