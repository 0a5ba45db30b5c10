package adt

import (
	"encoding/binary"

	"github.com/histcheck/histcheck/model"
)

// world steps the model over a whole history, every key at once. A state
// of the whole history is the model's state of each key, each interned to
// a dense id, packed four bytes a key into a string: comparable, so that
// memos key on it, whatever S is.
type world[S comparable] struct {
	m      model.Model[S]
	ops    []model.Op
	keyOf  []int32 // event -> key index
	nkeys  int
	ids    map[S]uint32
	states []S
}

func newWorld[S comparable](m model.Model[S], ops []model.Op, keyOf []int32, nkeys int) *world[S] {
	return &world[S]{m: m, ops: ops, keyOf: keyOf, nkeys: nkeys, ids: make(map[S]uint32)}
}

// intern returns s's id.
func (w *world[S]) intern(s S) uint32 {
	if id, ok := w.ids[s]; ok {
		return id
	}
	id := uint32(len(w.states))
	w.ids[s] = id
	w.states = append(w.states, s)
	return id
}

// init returns the state of the whole history before any event.
func (w *world[S]) init(s S) string {
	id := w.intern(s)
	b := make([]byte, 4*w.nkeys)
	for k := 0; k < w.nkeys; k++ {
		binary.LittleEndian.PutUint32(b[4*k:], id)
	}
	return string(b)
}

// state returns the model's state of key k in g.
func (w *world[S]) state(g string, k int32) S {
	return w.states[binary.LittleEndian.Uint32([]byte(g[4*k:4*k+4]))]
}

// step applies event e to g, its output hidden unless visible. It
// returns the next state and whether e is legal in g. A hidden step is
// total: when the model refuses e even with its output hidden (an
// acquire of a held lock, a cas that finds another value), e returned
// that refusal and g is unchanged.
func (w *world[S]) step(g string, e int32, visible bool) (string, bool) {
	op := w.ops[e]
	op.Unknown = op.Unknown || !visible
	k := w.keyOf[e]
	s := w.state(g, k)
	next, ok := w.m.Step(s, &op)
	if !ok {
		return g, op.Unknown
	}
	if next == s {
		return g, true
	}
	b := []byte(g)
	binary.LittleEndian.PutUint32(b[4*k:], w.intern(next))
	return string(b), true
}
