package randhist

import (
	"math/rand/v2"

	"github.com/histcheck/histcheck/history"
)

// Versions.
//
// With chance Config.Versions a history's reads and writes carry versions
// as a versioned store would record them: the writes of a key get 1, 2,
// 3, … in the order they take effect (a write of unknown outcome that never
// took effect gets the next one too, and nobody reads it), and a completed
// read the version of the write it read (0 for the initial value). Failed
// operations and reads of unknown outcome carry none, as nothing returned.
// A history with cas or append carries none either (versions are
// understood on reads and writes only). With chance Config.Corrupt one
// completed read or write then gets another version: one of its key's, 0,
// or one nobody wrote, which breaks the agreement between versions and
// values or their order.

// KVReadWrite generates a history of get and put of integers on
// Config.Keys keys ("x", "y", …): the read/write histories every criterion,
// the causal ones and the session guarantees included, can check.
func KVReadWrite(r *rand.Rand, cfg Config) *history.History {
	g := newGen(r, cfg)
	return g.run(func(st *state, op *history.Op) {
		op.Key = history.StringValue(string(rune('x' + r.IntN(g.cfg.Keys))))
		if r.IntN(2) == 0 {
			g.read(st, op, "get")
		} else {
			g.write(st, op, "put", g.intValue())
		}
	})
}

// versioner assigns versions while an execution runs.
type versioner struct {
	g    *gen
	on   bool
	cur  map[history.Value]int64 // key -> version of the write in effect
	last map[history.Value]int64 // key -> last version given to a write
	// writes lists, per key, the versions given to writes.
	writes map[history.Value][]int64
}

func (g *gen) versioner() *versioner {
	v := &versioner{g: g}
	// Draw only when asked, so that histories of other configurations stay
	// as they were for the same seed.
	if g.cfg.Versions > 0 && g.r.Float64() < g.cfg.Versions {
		v.on = true
		v.cur = make(map[history.Value]int64)
		v.last = make(map[history.Value]int64)
		v.writes = make(map[history.Value][]int64)
	}
	return v
}

// assign gives op its version, once step has applied it (applied says
// whether a write took effect).
func (v *versioner) assign(op *history.Op, applied bool) {
	if !v.on {
		return
	}
	switch op.F {
	case "write", "put":
		if op.Status == history.Fail {
			return
		}
		n := v.last[op.Key] + 1
		v.last[op.Key] = n
		if applied {
			v.cur[op.Key] = n
		}
		op.Version = history.IntValue(n)
		v.writes[op.Key] = append(v.writes[op.Key], n)
	case "read", "get":
		if op.Status == history.OK {
			op.Version = history.IntValue(v.cur[op.Key])
		}
	default:
		v.on = false // a cas or an append: no versions at all
	}
}

// corrupt strips the versions of a history that has operations other than
// reads and writes, and otherwise alters one version with chance
// Config.Corrupt.
func (v *versioner) corrupt(ops []history.Op) {
	if v.writes == nil {
		return
	}
	if !v.on {
		for i := range ops {
			ops[i].Version = history.Value{}
		}
		return
	}
	r := v.g.r
	if r.Float64() >= v.g.cfg.Corrupt {
		return
	}
	var done []int
	for i := range ops {
		if ops[i].Status == history.OK && !ops[i].Version.IsNone() {
			done = append(done, i)
		}
	}
	if len(done) == 0 {
		return
	}
	op := &ops[done[r.IntN(len(done))]]
	op.Version = history.IntValue(otherVersion(r, v.writes[op.Key], op.Version))
	if op.F == "write" || op.F == "put" {
		// Keep the writes' versions unique, so that the history still
		// uses versions: swap with the write that had the new version.
		for i := range ops {
			if o := &ops[i]; o != op && o.Key == op.Key && o.Version == op.Version && (o.F == "write" || o.F == "put") {
				o.Version = history.IntValue(unusedVersion(v.writes[op.Key]))
			}
		}
	}
}

// otherVersion returns a version other than cur: one of the key's writes'
// versions, 0 (the initial one), or one nobody wrote.
func otherVersion(r *rand.Rand, writes []int64, cur history.Value) int64 {
	c, _ := cur.Int()
	for range 8 {
		var n int64
		switch x := r.IntN(4); {
		case x < 2 && len(writes) > 0:
			n = writes[r.IntN(len(writes))]
		case x < 3:
			n = 0
		default:
			n = unusedVersion(writes)
		}
		if n != c {
			return n
		}
	}
	return unusedVersion(writes)
}

// unusedVersion returns a version above every version in writes.
func unusedVersion(writes []int64) int64 {
	m := int64(0)
	for _, w := range writes {
		m = max(m, w)
	}
	return m + 7
}
