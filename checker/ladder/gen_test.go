package ladder_test

// A generator of small random differentiated read/write histories, on
// which the fast checkers are compared with the brute force of package
// weakref and the ladder's implications are checked.

import (
	"math/rand"
	"sort"

	"github.com/histcheck/histcheck/history"
)

// rop is one operation of a small read/write history.
type rop struct {
	proc, key int
	write     bool
	val       int // value written or read; 0 is the initial value
	ver       int // version written or read (0: initial)
	call, ret int
}

type small struct {
	ops   []rop // sorted by call
	procs int
	keys  int
}

// gen builds a random differentiated history: a random interleaving in
// which each read returns the latest value of a simulated store, or a random
// value written anywhere in the history (future writes included), or rarely
// one nobody wrote.
func gen(rng *rand.Rand) small {
	h := small{procs: 2 + rng.Intn(3), keys: 1 + rng.Intn(2)}
	n := 2 + rng.Intn(7)
	type plan struct {
		proc, key int
		write     bool
	}
	plans := make([]plan, n)
	writes := make([][]int, h.keys) // values per key
	next := 1
	for i := range plans {
		plans[i] = plan{proc: rng.Intn(h.procs), key: rng.Intn(h.keys), write: rng.Intn(2) == 0}
		if plans[i].write {
			writes[plans[i].key] = append(writes[plans[i].key], next)
			next++
		}
	}
	store := make([]int, h.keys)
	verOf := map[int]int{}
	written := 0
	lastRet := make([]int, h.procs)
	for i := range lastRet {
		lastRet[i] = -1
	}
	wi := make([]int, h.keys)
	vcount := make([]int, h.keys)
	for i, pl := range plans {
		o := rop{proc: pl.proc, key: pl.key, write: pl.write}
		if pl.write {
			o.val = writes[pl.key][wi[pl.key]]
			wi[pl.key]++
			vcount[pl.key]++
			verOf[o.val] = vcount[pl.key]
			store[pl.key] = o.val
			written++
		} else {
			switch x := rng.Intn(60); {
			case x < 30:
				o.val = store[pl.key]
			case x < 59:
				vs := append([]int{0}, writes[pl.key]...)
				o.val = vs[rng.Intn(len(vs))]
			default:
				o.val = 99
			}
		}
		o.call = 10 * i
		if o.call <= lastRet[pl.proc] {
			o.call = lastRet[pl.proc] + 1
		}
		o.ret = o.call + 1 + rng.Intn(25)
		lastRet[pl.proc] = o.ret
		h.ops = append(h.ops, o)
	}
	// Versions: writes of a key are numbered in the simulated order; a read
	// carries the version of what it read (99 for a value nobody wrote).
	for i := range h.ops {
		o := &h.ops[i]
		switch {
		case o.write:
			o.ver = verOf[o.val]
		case o.val == 0:
			o.ver = 0
		case o.val == 99:
			o.ver = 99
		default:
			o.ver = verOf[o.val]
		}
	}
	sort.SliceStable(h.ops, func(a, b int) bool { return h.ops[a].call < h.ops[b].call })
	return h
}

// history converts to a validated history; with versions every op carries
// its version.
func (h *small) history(versions bool, register bool) *history.History {
	out := &history.History{Processes: h.procs, Clients: h.procs}
	for i, o := range h.ops {
		op := history.Op{Index: int64(i), Process: o.proc, Client: string(rune('A' + o.proc)),
			Value: history.IntValue(int64(o.val)), Call: int64(o.call), Return: int64(o.ret), Status: history.OK}
		if o.write {
			op.F = "write"
		} else {
			op.F = "read"
		}
		if !register {
			op.Key = history.StringValue(string(rune('x' + o.key)))
		}
		if versions {
			op.Version = history.IntValue(int64(o.ver))
		}
		out.Ops = append(out.Ops, op)
	}
	return out
}
