package weakref

import "github.com/histcheck/histcheck/checker"

// linearizable: one serialisation of every operation that keeps po and
// real time.
func (e *exec) linearizable() bool {
	return e.serialisesAll(func(a, b int) bool { return e.po[a][b] || e.rt(a, b) })
}

// sequential: one serialisation of every operation that keeps po.
func (e *exec) sequential() bool {
	return e.serialisesAll(func(a, b int) bool { return e.po[a][b] })
}

func (e *exec) serialisesAll(prec func(a, b int) bool) bool {
	all := uint32(1)<<len(e.ops) - 1
	return e.serialisable(all, prec, all)
}

// causalOrder returns (po ∪ rf)+ and whether it is a strict partial order.
func (e *exec) causalOrder() ([][]bool, bool) {
	n := len(e.ops)
	co := make([][]bool, n)
	for a := range co {
		co[a] = append([]bool(nil), e.po[a]...)
	}
	for r := range e.ops {
		if !e.ops[r].write && e.rf[r] >= 0 {
			co[e.rf[r]][r] = true
		}
	}
	for k := 0; k < n; k++ {
		for a := 0; a < n; a++ {
			if !co[a][k] {
				continue
			}
			for b := 0; b < n; b++ {
				if co[k][b] {
					co[a][b] = true
				}
			}
		}
	}
	for a := 0; a < n; a++ {
		if co[a][a] {
			return co, false
		}
	}
	return co, true
}

// causalPast returns the causal order, the writes of each operation's
// causal past, and whether co is a partial order (else no causal
// criterion holds).
func (e *exec) causalPast() (co [][]bool, past []uint32, ok bool) {
	co, ok = e.causalOrder()
	if !ok {
		return nil, nil, false
	}
	past = make([]uint32, len(e.ops))
	for o := range e.ops {
		for _, w := range e.writes {
			if co[w][o] {
				past[o] |= 1 << w
			}
		}
	}
	return co, past, true
}

// causal: CC. Each operation, with the writes of its causal past, has a
// serialisation respecting co in which it (if a read) is legal; only its
// own output is checked.
func (e *exec) causal() bool {
	return e.pastsSerialise(func(o int) (reads uint32) {
		if !e.ops[o].write {
			reads = 1 << o
		}
		return reads
	})
}

// causalMemory: CM. As CC, but each operation's serialisation must also
// explain every read of its process up to it.
func (e *exec) causalMemory() bool {
	return e.pastsSerialise(func(o int) (reads uint32) {
		for r := 0; r <= o; r++ {
			if !e.ops[r].write && (r == o || e.po[r][o]) {
				reads |= 1 << r
			}
		}
		return reads
	})
}

// pastsSerialise reports whether every operation o, with the writes of its
// causal past and the reads explained(o), has a serialisation respecting
// co in which those reads are legal.
func (e *exec) pastsSerialise(explained func(o int) uint32) bool {
	co, past, ok := e.causalPast()
	if !ok {
		return false
	}
	prec := func(a, b int) bool { return co[a][b] }
	for o := range e.ops {
		reads := explained(o)
		if !e.serialisable(past[o]|1<<o|reads, prec, reads) {
			return false
		}
	}
	return true
}

// causalConvergence: CCv. One arbitration order of the writes extends co
// (and vo), and each read returns the arb-latest write of its key in its
// causal past.
func (e *exec) causalConvergence() bool {
	co, _, ok := e.causalPast()
	if !ok {
		return false
	}
	before := func(u, w int) bool { return co[u][w] || e.vo(u, w) }
	return e.orderExists(func(placed uint32, w int) bool {
		return !e.waits(placed, w, before) && e.latestInPast(co, placed, w)
	})
}

// latestInPast reports whether placing w after the writes in placed keeps
// every read of w's key that has w in its causal past returning the
// arb-latest write of its past.
func (e *exec) latestInPast(co [][]bool, placed uint32, w int) bool {
	for r := range e.ops {
		o := &e.ops[r]
		if o.write || o.key != e.ops[w].key || !co[w][r] {
			continue
		}
		switch f := e.rf[r]; {
		case f == fromInit:
			return false // a write of the key is in the past of an initial read
		case f >= 0 && f != w && placed&(1<<f) != 0:
			return false // w would be arb-later than the write r returned
		}
	}
	return true
}

// pram: each process's view, a serialisation of every write and its own
// reads keeping po (and vo), explains its reads. A process without reads
// still needs a view, which versions can deny it.
func (e *exec) pram() bool {
	prec := func(a, b int) bool { return e.po[a][b] }
	reads := map[int]uint32{} // process → its reads
	for r, o := range e.ops {
		var bit uint32
		if !o.write {
			bit = 1 << r
		}
		reads[o.proc] |= bit
	}
	all := e.writeMask()
	for _, own := range reads {
		if !e.serialisable(all|own, prec, own) {
			return false
		}
	}
	return true
}

// visibility returns, per read, the least set of writes it must see under
// criterion: what it read, plus the guarantee's closure rule.
func (e *exec) visibility(criterion string) []uint32 {
	n := len(e.ops)
	vis := make([]uint32, n)
	for r := range e.ops {
		if !e.ops[r].write && e.rf[r] >= 0 {
			vis[r] = 1 << e.rf[r]
		}
	}
	switch criterion {
	case checker.ReadYourWrites: // so[wr→rd] ⊆ vis
		for r := range e.ops {
			for _, w := range e.writes {
				if !e.ops[r].write && e.po[w][r] {
					vis[r] |= 1 << w
				}
			}
		}
	case checker.MonotonicReads: // vis;so[rd→rd] ⊆ vis, to a fixpoint
		for changed := true; changed; {
			changed = false
			for a := range e.ops {
				for b := range e.ops {
					if !e.ops[a].write && !e.ops[b].write && e.po[a][b] && vis[a]&^vis[b] != 0 {
						vis[b] |= vis[a]
						changed = true
					}
				}
			}
		}
	}
	return vis
}

// session decides a session guarantee: an arbitration order of all writes
// that keeps vo, satisfies the guarantee's rule on ar and the return-value
// rule for the least visibility.
func (e *exec) session(criterion string) bool {
	vis := e.visibility(criterion)
	if e.initialReadSees(vis) {
		return false
	}
	// mustPrecede reports that vo or the guarantee puts a before b in ar.
	mustPrecede := func(a, b int) bool { return e.vo(a, b) || e.arRule(criterion, vis, a, b) }
	for _, w := range e.writes {
		if mustPrecede(w, w) {
			return false // ar is irreflexive
		}
	}
	return e.orderExists(func(placed uint32, w int) bool {
		return !e.waits(placed, w, mustPrecede) && e.latestVisible(vis, placed, w)
	})
}

// initialReadSees reports whether a read returned the initial value while
// seeing a write of its key.
func (e *exec) initialReadSees(vis []uint32) bool {
	for r, o := range e.ops {
		if o.write || e.rf[r] != fromInit {
			continue
		}
		for _, w := range e.writes {
			if vis[r]&(1<<w) != 0 && e.ops[w].key == o.key {
				return true
			}
		}
	}
	return false
}

// arRule reports that the guarantee puts write a before write b in ar.
func (e *exec) arRule(criterion string, vis []uint32, a, b int) bool {
	switch criterion {
	case checker.MonotonicWrites: // so[wr→wr] ⊆ ar
		return e.po[a][b]
	case checker.WritesFollowReads: // vis;so[rd→wr] ⊆ ar
		for r, o := range e.ops {
			if !o.write && vis[r]&(1<<a) != 0 && e.po[r][b] {
				return true
			}
		}
	}
	return false
}

// latestVisible is the return-value rule when w is placed after the
// writes in placed: a read that sees w and returned another write of w's
// key needs w ar-before that write.
func (e *exec) latestVisible(vis []uint32, placed uint32, w int) bool {
	for r, o := range e.ops {
		if o.write || o.key != e.ops[w].key || vis[r]&(1<<w) == 0 {
			continue
		}
		if f := e.rf[r]; f >= 0 && f != w && placed&(1<<f) != 0 {
			return false
		}
	}
	return true
}
