package adt

import (
	"encoding/binary"

	"github.com/histcheck/histcheck/model"
)

// The session guarantees' typed forms bind the observations: the events
// whose output is observed. An event observes unless the model classes
// it a blind write (model.WriteOp, a fenced write included), its outcome
// is unknown (its output is hidden everywhere), or every state a context
// can reach accepts it with its output visible (an append, an enqueue, an
// add: it returns nothing that depends on the state). The states a
// context can reach are those sequences of distinct events reach from the
// initial state, outputs hidden.

// maxObserveNodes bounds the states the search for a refusal visits per
// event; past it the event's class is left unsure (see observations).
const maxObserveNodes = 4096

// observations classes every event: obs marks the observations found,
// unsure the events whose search for a refusing state gave up (they
// are neither blind writes nor of unknown outcome, and no state visited
// refused them).
func (p *problem[S]) observations() (obs, unsure []bool) {
	n := len(p.c.Ops)
	obs, unsure = make([]bool, n), make([]bool, n)
	info := p.w.m.Info()
	for e := range p.c.Ops {
		if p.unknown[e] || info.ClassOf(p.h.Ops[p.c.Pos[e]].F) == model.WriteOp {
			continue
		}
		found, done := p.refusedSomewhere(int32(e))
		obs[e], unsure[e] = found, !found && !done
	}
	return obs, unsure
}

// refusedSomewhere searches the states contexts reach, on e's key, for
// one that refuses e with its output visible. done is false when the
// search gave up.
func (p *problem[S]) refusedSomewhere(e int32) (found, done bool) {
	var evs []int32
	for x := range p.c.Ops {
		if p.w.keyOf[x] == p.w.keyOf[e] && !p.pure[x] {
			evs = append(evs, int32(x))
		}
	}
	seen := map[string]struct{}{}
	nodes := 0
	placed := make([]byte, (len(evs)+7)/8)
	var walk func(g string) bool
	walk = func(g string) bool {
		key := string(binary.AppendUvarint(append([]byte(g), placed...), 0))
		if _, ok := seen[key]; ok {
			return false
		}
		seen[key] = struct{}{}
		nodes++
		if _, ok := p.w.step(g, e, true); !ok {
			found = true
			return true
		}
		if nodes > maxObserveNodes {
			return true
		}
		for i, x := range evs {
			if placed[i/8]&(1<<(i%8)) != 0 {
				continue
			}
			next, _ := p.w.step(g, x, false)
			placed[i/8] |= 1 << (i % 8)
			stop := walk(next)
			placed[i/8] &^= 1 << (i % 8)
			if stop {
				return true
			}
		}
		return false
	}
	walk(p.init)
	return found, found || nodes <= maxObserveNodes
}
