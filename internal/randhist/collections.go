package randhist

import (
	"math/rand/v2"

	"github.com/histcheck/histcheck/history"
)

// This file generates histories for the set, the FIFO and unordered queues
// and the counter. As for the other models, each history is a real
// sequential execution (every operation takes effect at a point inside its
// interval; one of unknown outcome takes effect or not, at random) that is
// linearizable until Config.Corrupt alters one operation: a read or a
// dequeue returns something else, two dequeues swap results, or a failed
// operation is reported as completed.

// Set generates a history of adds of integers and reads of the whole set.
// Reads return an EDN-style set or, now and then, a list in any order,
// which must be compared as a set.
func Set(r *rand.Rand, cfg Config) *history.History {
	g := newGen(r, cfg)
	var elems []history.Value // in the set, in order of addition
	ops := g.timeline(func(op *history.Op, _ int64) {
		if r.IntN(10) < 6 {
			op.F, op.Value = "add", g.intValue()
			if g.applies(op) && !containsValue(elems, op.Value) {
				elems = append(elems, op.Value)
			}
			return
		}
		op.F, op.Value = "read", history.NilValue
		if op.Status == history.OK {
			op.Value = g.collection(elems)
		}
	})
	if r.Float64() < g.cfg.Corrupt {
		g.corruptSet(ops)
	}
	return g.assemble(ops)
}

// FIFOQueue generates a history of enqueues of integers and dequeues, which
// return the head; one that finds the queue empty fails, as Jepsen records
// it.
func FIFOQueue(r *rand.Rand, cfg Config) *history.History {
	return queueHistory(r, cfg, false)
}

// UnorderedQueue generates a history of enqueues of integers and dequeues,
// which return any element present; one that finds the queue empty fails.
func UnorderedQueue(r *rand.Rand, cfg Config) *history.History {
	return queueHistory(r, cfg, true)
}

func queueHistory(r *rand.Rand, cfg Config, unordered bool) *history.History {
	g := newGen(r, cfg)
	var q []history.Value // head first
	ops := g.timeline(func(op *history.Op, _ int64) {
		if r.IntN(10) < 5 {
			op.F, op.Value = "enqueue", g.intValue()
			if g.applies(op) {
				q = append(q, op.Value)
			}
			return
		}
		op.F, op.Value = "dequeue", history.NilValue
		if !g.applies(op) {
			return
		}
		if len(q) == 0 {
			if op.Status == history.OK {
				op.Status = history.Fail
			}
			return
		}
		i := 0
		if unordered {
			i = r.IntN(len(q))
		}
		if op.Status == history.OK {
			op.Value = q[i]
		}
		q = append(q[:i:i], q[i+1:]...)
	})
	if r.Float64() < g.cfg.Corrupt {
		g.corruptQueue(ops)
	}
	return g.assemble(ops)
}

// Counter generates a history of adds of small integers (some negative,
// some 0) and reads of the counter, which starts at Config.Init when that
// is an integer, else 0.
func Counter(r *rand.Rand, cfg Config) *history.History {
	g := newGen(r, cfg)
	value, _ := g.cfg.Init.Int()
	seen := []int64{value}
	ops := g.timeline(func(op *history.Op, _ int64) {
		if r.IntN(10) < 6 {
			n := int64(r.IntN(6) - 2)
			op.F, op.Value = "add", history.IntValue(n)
			if g.applies(op) {
				value += n
				seen = append(seen, value)
			}
			return
		}
		op.F, op.Value = "read", history.NilValue
		if op.Status == history.OK {
			op.Value = history.IntValue(value)
		}
	})
	if r.Float64() < g.cfg.Corrupt {
		var changes []func()
		for i := range ops {
			op := &ops[i]
			switch {
			case op.Status == history.OK && op.F == "read":
				n, _ := op.Value.Int()
				changes = append(changes, func() {
					w := seen[r.IntN(len(seen))]
					if w == n {
						w = n + 1 - 2*int64(r.IntN(2))
					}
					op.Value = history.IntValue(w)
				})
			case op.Status == history.Fail && op.F == "add":
				changes = append(changes, func() { op.Status = history.OK })
			}
		}
		if len(changes) > 0 {
			changes[r.IntN(len(changes))]()
		}
	}
	return g.assemble(ops)
}

// collection renders elements as a read returns them: mostly a set,
// sometimes a shuffled list.
func (g *gen) collection(elems []history.Value) history.Value {
	if g.r.IntN(4) != 0 {
		return history.SetValue(elems...)
	}
	l := append([]history.Value(nil), elems...)
	g.r.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
	return history.ListValue(l...)
}

// corruptSet alters one read (an element left out, one too many, or one
// read twice) or reports a failed add as completed.
func (g *gen) corruptSet(ops []history.Op) {
	var changes []func()
	for i := range ops {
		op := &ops[i]
		switch {
		case op.Status == history.OK && op.F == "read":
			changes = append(changes, func() {
				es := op.Value.Elems()
				if len(es) > 0 && g.r.IntN(8) == 0 {
					// A set holds each element once.
					op.Value = history.ListValue(append(es[:len(es):len(es)], es[g.r.IntN(len(es))])...)
					return
				}
				x := history.IntValue(int64(g.r.IntN(g.cfg.Values + 1)))
				out := es[:0:0]
				for _, e := range es {
					if e != x {
						out = append(out, e)
					}
				}
				if len(out) == len(es) {
					out = append(out, x)
				}
				op.Value = history.SetValue(out...)
			})
		case op.Status == history.Fail && op.F == "add":
			changes = append(changes, func() { op.Status = history.OK })
		}
	}
	if len(changes) > 0 {
		changes[g.r.IntN(len(changes))]()
	}
}

// corruptQueue alters one dequeue: another result (an element enqueued
// elsewhere, nil, or a value never enqueued), or two dequeues swap results;
// or reports a failed operation as completed (a failed dequeue with an
// element enqueued somewhere).
func (g *gen) corruptQueue(ops []history.Op) {
	var changes []func()
	var deqs []int
	var enqueued []history.Value
	for i := range ops {
		if ops[i].F == "enqueue" && ops[i].Status != history.Fail {
			enqueued = append(enqueued, ops[i].Value)
		}
	}
	for i := range ops {
		op := &ops[i]
		switch {
		case op.Status == history.OK && op.F == "dequeue":
			deqs = append(deqs, i)
			changes = append(changes, func() {
				switch g.r.IntN(6) {
				case 0:
					op.Value = history.NilValue
				default:
					op.Value = history.IntValue(int64(g.r.IntN(g.cfg.Values + 1)))
				}
			})
		case op.Status == history.Fail && op.F == "enqueue":
			changes = append(changes, func() { op.Status = history.OK })
		case op.Status == history.Fail && op.F == "dequeue":
			// A failed dequeue found the queue empty, or did nothing: now
			// it returned an element.
			changes = append(changes, func() {
				op.Status, op.Value = history.OK, history.IntValue(int64(g.r.IntN(g.cfg.Values+1)))
				if len(enqueued) > 0 {
					op.Value = enqueued[g.r.IntN(len(enqueued))]
				}
			})
		}
	}
	if len(deqs) >= 2 {
		for range 2 {
			changes = append(changes, func() {
				a, b := &ops[deqs[g.r.IntN(len(deqs))]], &ops[deqs[g.r.IntN(len(deqs))]]
				a.Value, b.Value = b.Value, a.Value
			})
		}
	}
	if len(changes) > 0 {
		changes[g.r.IntN(len(changes))]()
	}
}

func containsValue(vs []history.Value, v history.Value) bool {
	for _, w := range vs {
		if w == v {
			return true
		}
	}
	return false
}
