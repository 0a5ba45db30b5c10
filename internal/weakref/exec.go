package weakref

// exec is one execution: the operations that happened, with reads-from
// and the orders every definition builds on.
type exec struct {
	ops       []op
	rf        []int    // per read: the write it read, fromInit, thinAir or anyValue
	po        [][]bool // po[a][b]: a precedes b in their process
	writes    []int
	versioned bool // vo orders each key's writes
	free      uint32
}

func newExec(ops []op, versioned bool) *exec {
	n := len(ops)
	e := &exec{ops: ops, rf: make([]int, n), po: make([][]bool, n), versioned: versioned}
	for a := range ops {
		e.rf[a] = ops[a].from
		e.po[a] = make([]bool, n)
		for b := a + 1; b < n; b++ {
			e.po[a][b] = ops[a].proc == ops[b].proc
		}
		if ops[a].write {
			e.writes = append(e.writes, a)
		}
		if ops[a].from == anyValue {
			e.free |= 1 << a
		}
	}
	return e
}

// vo reports whether a and b are writes of one key with a's version older.
func (e *exec) vo(a, b int) bool {
	x, y := &e.ops[a], &e.ops[b]
	return e.versioned && x.write && y.write && x.key == y.key && x.ver < y.ver
}

// rt reports whether a returned before b was called.
func (e *exec) rt(a, b int) bool { return e.ops[a].ret < e.ops[b].call }

// thinAir reports whether a read returned what no write of the execution
// wrote, which no criterion allows.
func (e *exec) thinAir() bool {
	for _, f := range e.rf {
		if f == thinAir {
			return true
		}
	}
	return false
}

func (e *exec) writeMask() uint32 {
	var m uint32
	for _, w := range e.writes {
		m |= 1 << w
	}
	return m
}

// serialisable reports whether the operations in set have a total order
// that respects prec and vo in which every read in check returns the
// latest write of its key before it (the initial value when there is
// none). Reads not in check, and reads that observed nothing, are
// unconstrained.
func (e *exec) serialisable(set uint32, prec func(a, b int) bool, check uint32) bool {
	n := len(e.ops)
	need := make([]uint32, n)
	for b := 0; b < n; b++ {
		for a := 0; a < n; a++ {
			if a != b && set&(1<<a) != 0 && set&(1<<b) != 0 && (prec(a, b) || e.vo(a, b)) {
				need[b] |= 1 << a
			}
		}
	}
	check &^= e.free
	type state struct {
		done uint32
		last [MaxKeys]int8 // per key: 1 + the latest write, 0 for none
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
			o := &e.ops[i]
			t := s
			t.done |= bit
			if o.write {
				t.last[o.key] = int8(i + 1)
			} else if check&bit != 0 && int(s.last[o.key])-1 != e.rf[i] {
				continue
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

// orderExists reports whether the writes have a total order, built from
// first to last, in which ok(placed, w) holds whenever w is placed after
// the writes in placed.
func (e *exec) orderExists(ok func(placed uint32, w int) bool) bool {
	all := e.writeMask()
	failed := map[uint32]bool{}
	var dfs func(placed uint32) bool
	dfs = func(placed uint32) bool {
		if placed == all {
			return true
		}
		if failed[placed] {
			return false
		}
		for _, w := range e.writes {
			if placed&(1<<w) == 0 && ok(placed, w) && dfs(placed|1<<w) {
				return true
			}
		}
		failed[placed] = true
		return false
	}
	return dfs(0)
}

// waits reports whether a write not yet placed must come before w, as
// before says.
func (e *exec) waits(placed uint32, w int, before func(u, w int) bool) bool {
	for _, u := range e.writes {
		if placed&(1<<u) == 0 && u != w && before(u, w) {
			return true
		}
	}
	return false
}
