package main

import (
	"math/rand"
	"sync"
)

// mop is one micro-operation: an append of val to key, or a read of key
// (vals then holds what it returned; nil when the row did not exist).
type mop struct {
	append bool
	key    int
	val    int
	vals   []int
}

// generator hands out transactions as Elle's list-append generator does: a
// few keys are in play at once, each append to a key gets the key's next
// value (so values are unique per key), and a key that has had maxWrites
// appends is replaced by a fresh one, which keeps every list short.
type generator struct {
	mu        sync.Mutex
	rng       *rand.Rand
	active    []int       // keys in play
	written   map[int]int // appends handed out per key
	nextKey   int
	left      int // transactions still to hand out
	maxWrites int
	maxMops   int
	reads     float64
}

func newGenerator(c config) *generator {
	g := &generator{
		rng:       rand.New(rand.NewSource(c.seed)),
		written:   map[int]int{},
		left:      c.txns,
		maxWrites: c.maxWrites,
		maxMops:   c.maxMops,
		reads:     c.reads,
	}
	for ; g.nextKey < c.keys; g.nextKey++ {
		g.active = append(g.active, g.nextKey)
	}
	return g
}

// next returns the next transaction, or false when all have been handed out.
func (g *generator) next() ([]mop, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.left == 0 {
		return nil, false
	}
	g.left--
	n := 1 + g.rng.Intn(g.maxMops)
	txn := make([]mop, n)
	for i := range txn {
		slot := g.rng.Intn(len(g.active))
		k := g.active[slot]
		if g.rng.Float64() < g.reads {
			txn[i] = mop{key: k}
			continue
		}
		g.written[k]++
		txn[i] = mop{append: true, key: k, val: g.written[k]}
		if g.written[k] >= g.maxWrites {
			g.active[slot] = g.nextKey
			g.nextKey++
		}
	}
	return txn, true
}
