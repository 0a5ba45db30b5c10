package ladder_test

// Brute-force deciders written straight from the definitions, for histories
// of up to about 8 operations, and a generator of random differentiated
// histories. They are the references the fast checkers of packages causal
// and session are compared with, and on which the ladder's implications are
// property-tested.

import (
	"fmt"
	"math/rand"
	"sort"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// rop is one operation of a small read/write history.
type rop struct {
	proc, key int
	write     bool
	val       int // value written or read; 0 is the initial value
	ver       int // version written or read (0: initial)
	call, ret int
	rf        int // reads: index of the write read, -1 init, -2 thin air
	idx       int // index within the process
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
	h.index()
	return h
}

func (h *small) index() {
	count := make([]int, h.procs)
	byVal := map[[2]int]int{}
	for i := range h.ops {
		o := &h.ops[i]
		o.idx = count[o.proc]
		count[o.proc]++
		if o.write {
			byVal[[2]int{o.key, o.val}] = i
		}
	}
	for i := range h.ops {
		o := &h.ops[i]
		if o.write {
			o.rf = -1
			continue
		}
		if j, ok := byVal[[2]int{o.key, o.val}]; ok {
			o.rf = j
		} else if o.val == 0 {
			o.rf = -1
		} else {
			o.rf = -2
		}
	}
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

func (h *small) String() string {
	s := ""
	for _, o := range h.ops {
		if o.write {
			s += fmt.Sprintf("%c: w(%c, %d) [%d, %d]\n", 'A'+o.proc, 'x'+o.key, o.val, o.call, o.ret)
		} else {
			s += fmt.Sprintf("%c: r(%c) -> %d [%d, %d]\n", 'A'+o.proc, 'x'+o.key, o.val, o.call, o.ret)
		}
	}
	return s
}

func (h *small) po(a, b int) bool {
	return h.ops[a].proc == h.ops[b].proc && h.ops[a].idx < h.ops[b].idx
}

// serializable reports whether the ops in set (a bitmask) have an order that
// respects prec (restricted to set) in which every read in check returns the
// latest write of its key before it (or the initial value if none).
func (h *small) serializable(set uint32, prec func(a, b int) bool, check uint32) bool {
	n := len(h.ops)
	need := make([]uint32, n)
	for b := 0; b < n; b++ {
		for a := 0; a < n; a++ {
			if a != b && set&(1<<a) != 0 && set&(1<<b) != 0 && prec(a, b) {
				need[b] |= 1 << a
			}
		}
	}
	type state struct {
		done uint32
		last [4]int8
	}
	failed := map[state]bool{}
	var dfs func(s state) bool
	dfs = func(s state) bool {
		if s.done == set {
			return true
		}
		if failed[s] {
			return false
		}
		for i := 0; i < n; i++ {
			bit := uint32(1) << i
			if set&bit == 0 || s.done&bit != 0 || need[i]&^s.done != 0 {
				continue
			}
			o := &h.ops[i]
			t := s
			t.done |= bit
			if o.write {
				t.last[o.key] = int8(i + 1)
			} else if check&bit != 0 {
				if o.rf == -2 || int(s.last[o.key])-1 != o.rf {
					continue
				}
			}
			if dfs(t) {
				return true
			}
		}
		failed[s] = true
		return false
	}
	return dfs(state{})
}

// co returns the causal order (po ∪ rf)+ and whether it is acyclic.
func (h *small) co() ([][]bool, bool) {
	n := len(h.ops)
	c := make([][]bool, n)
	for i := range c {
		c[i] = make([]bool, n)
	}
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			if h.po(a, b) || (!h.ops[b].write && h.ops[b].rf == a) {
				c[a][b] = true
			}
		}
	}
	for k := 0; k < n; k++ {
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				if c[a][k] && c[k][b] {
					c[a][b] = true
				}
			}
		}
	}
	for a := 0; a < n; a++ {
		if c[a][a] {
			return c, false
		}
	}
	return c, true
}

func (h *small) thinAir() bool {
	for _, o := range h.ops {
		if !o.write && o.rf == -2 {
			return true
		}
	}
	return false
}

// refCausal decides CC, CM or CCv from the definitions of Bouajjani et al.
// with the smallest causal order (a larger one only adds constraints).
func (h *small) refCausal(crit string) bool {
	c, ok := h.co()
	if !ok || h.thinAir() {
		return false
	}
	n := len(h.ops)
	past := func(o int) uint32 { // writes in the causal past of o
		var m uint32
		for a := 0; a < n; a++ {
			if h.ops[a].write && c[a][o] {
				m |= 1 << a
			}
		}
		return m
	}
	prec := func(a, b int) bool { return c[a][b] }
	switch crit {
	case checker.Causal:
		// Each read: its causal past's writes and itself serialise, only its
		// own output visible.
		for r := 0; r < n; r++ {
			if h.ops[r].write {
				continue
			}
			if !h.serializable(past(r)|1<<r, prec, 1<<r) {
				return false
			}
		}
		return true
	case checker.CausalMemory:
		// Each op o: its causal past, with the outputs of its process's
		// reads up to o visible (other reads hidden, hence omitted).
		for o := 0; o < n; o++ {
			var reads uint32
			for r := 0; r < n; r++ {
				if !h.ops[r].write && (r == o || h.po(r, o)) {
					reads |= 1 << r
				}
			}
			if !h.serializable(past(o)|reads, prec, reads) {
				return false
			}
		}
		return true
	case checker.CausalConvergence:
		var ws []int
		for i, o := range h.ops {
			if o.write {
				ws = append(ws, i)
			}
		}
		found := false
		permute(ws, func(arb []int) bool {
			pos := make([]int, n)
			for i, w := range arb {
				pos[w] = i
			}
			for i := range arb {
				for j := i + 1; j < len(arb); j++ {
					if c[arb[j]][arb[i]] {
						return false
					}
				}
			}
			for r := 0; r < n; r++ {
				o := &h.ops[r]
				if o.write {
					continue
				}
				best := -1
				for _, w := range arb {
					if h.ops[w].key == o.key && c[w][r] && (best < 0 || pos[w] > pos[best]) {
						best = w
					}
				}
				if best != o.rf {
					return false
				}
			}
			found = true
			return true
		})
		return found
	}
	panic(crit)
}

// permute calls f with each permutation of xs until f returns true.
func permute(xs []int, f func([]int) bool) bool {
	a := append([]int(nil), xs...)
	var rec func(k int) bool
	rec = func(k int) bool {
		if k == len(a) {
			return f(a)
		}
		for i := k; i < len(a); i++ {
			a[k], a[i] = a[i], a[k]
			if rec(k + 1) {
				return true
			}
			a[k], a[i] = a[i], a[k]
		}
		return false
	}
	return rec(0)
}

func (h *small) refSequential() bool {
	all := uint32(1)<<len(h.ops) - 1
	return h.serializable(all, h.po, all)
}

func (h *small) refLinearizable() bool {
	all := uint32(1)<<len(h.ops) - 1
	return h.serializable(all, func(a, b int) bool { return h.ops[a].ret < h.ops[b].call }, all)
}

// refPRAM: every process has a legal serialisation of all writes and its own
// operations that keeps every process's order.
func (h *small) refPRAM(versioned bool) bool {
	prec := func(a, b int) bool {
		x, y := &h.ops[a], &h.ops[b]
		return h.po(a, b) || (versioned && x.write && y.write && x.key == y.key && x.ver < y.ver)
	}
	for s := 0; s < h.procs; s++ {
		var set, reads uint32
		for i, o := range h.ops {
			if o.write || o.proc == s {
				set |= 1 << i
			}
			if !o.write && o.proc == s {
				reads |= 1 << i
			}
		}
		if !h.serializable(set, prec, reads) {
			return false
		}
	}
	return true
}

// refSession decides a session guarantee from its definition (Viotti and
// Vukolić's axioms over one abstract execution): one total order ar of the
// writes shared by every session, containing the guarantee's edges (and the
// version order when versioned), such that each read returns the ar-latest
// write of its key among the writes it sees, the least visibility the
// guarantee allows (see package session).
func (h *small) refSession(crit string, versioned bool) bool {
	if h.thinAir() {
		return false
	}
	n := len(h.ops)
	var ws []int
	for i, o := range h.ops {
		if o.write {
			ws = append(ws, i)
		}
	}
	// Global edges a → b (a before b in every ar_s).
	var glob [][2]int
	if versioned {
		for _, a := range ws {
			for _, b := range ws {
				if h.ops[a].key == h.ops[b].key && h.ops[a].ver < h.ops[b].ver {
					glob = append(glob, [2]int{a, b})
				}
			}
		}
	}
	for _, a := range ws {
		for _, b := range ws {
			if crit == checker.MonotonicWrites && h.po(a, b) {
				glob = append(glob, [2]int{a, b})
			}
		}
	}
	if crit == checker.WritesFollowReads {
		for r := 0; r < n; r++ {
			if h.ops[r].write || h.ops[r].rf < 0 {
				continue
			}
			for _, w := range ws {
				if h.po(r, w) {
					glob = append(glob, [2]int{h.ops[r].rf, w})
				}
			}
		}
	}
	// V(r) for each read, by the definition.
	vis := make([]uint32, n)
	for r := 0; r < n; r++ {
		o := &h.ops[r]
		if o.write {
			continue
		}
		var v uint32
		if o.rf >= 0 {
			v |= 1 << o.rf
		}
		switch crit {
		case checker.ReadYourWrites:
			for _, w := range ws {
				if h.po(w, r) {
					v |= 1 << w
				}
			}
		case checker.MonotonicReads:
			for r2 := 0; r2 < n; r2++ {
				if !h.ops[r2].write && h.ops[r2].rf >= 0 && h.po(r2, r) {
					v |= 1 << h.ops[r2].rf
				}
			}
		}
		vis[r] = v
	}
	// One arbitration order for every session.
	return permute(ws, func(ar []int) bool {
		pos := make([]int, n)
		for i, w := range ar {
			pos[w] = i
		}
		for _, e := range glob {
			if pos[e[0]] >= pos[e[1]] { // a self-edge (a read of one's own later write) is never satisfied
				return false
			}
		}
		for r := 0; r < n; r++ {
			o := &h.ops[r]
			if o.write {
				continue
			}
			best := -1
			for _, w := range ws {
				if vis[r]&(1<<w) != 0 && h.ops[w].key == o.key && (best < 0 || pos[w] > pos[best]) {
					best = w
				}
			}
			if best != o.rf {
				return false
			}
		}
		return true
	})
}

// reference returns the brute-force verdict of every criterion.
func (h *small) reference(versioned bool) map[string]bool {
	out := map[string]bool{
		checker.Linearizable:      h.refLinearizable(),
		checker.Sequential:        h.refSequential(),
		checker.Causal:            h.refCausal(checker.Causal),
		checker.CausalMemory:      h.refCausal(checker.CausalMemory),
		checker.CausalConvergence: h.refCausal(checker.CausalConvergence),
		checker.PRAM:              h.refPRAM(versioned),
	}
	for _, c := range []string{checker.ReadYourWrites, checker.MonotonicReads, checker.MonotonicWrites, checker.WritesFollowReads} {
		out[c] = h.refSession(c, versioned)
	}
	return out
}
