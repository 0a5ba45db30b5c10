package regdp

import (
	"context"
)

// The compare-and-set sweep decides histories with cas operations (see
// docs/many-clients.md, "Compare-and-set"). Writes and cas are effects: an
// effect of class (from, to) takes the register from "from" (any value for
// a write) to "to". Every order of the operations can be brought to a form
// in which effects take place only in the gap just before some return
// event, and a gap ends with the returning operation's own effect (or, for
// a read, the first moment its value is held). Effects of one class are
// interchangeable but for their intervals, so a gap always uses the
// pending completed one with the earliest return (then a crashed one): a
// configuration records
//
//   - cur: the value the register holds;
//   - done: the pending completed effects that took effect already;
//   - crit: per value, the pending read of it with the earliest return among
//     those no moment since their call satisfied (as in the read/write sweep);
//   - per class with crashed operations, how many of them took effect.
//
// Within a gap, the configurations reachable by effects that do not yet
// end it are explored breadth first and shared by every configuration of
// the frontier; those that end it form the next frontier. Configurations
// with the same value, done set and critical reads are compared by the
// crashed operations used: fewer dominates.

// casSearch is the state of the compare-and-set sweep.
type casSearch struct {
	p *problem
	// Layout of a configuration: word 0 holds cur, then four bitsets over
	// slots (compare-and-sets done, critical reads, writes done, writes
	// still obliged to take effect), then the crashed counts, four 16-bit
	// counts a word. The words before offWDone are the key; the rest are
	// compared by dominance (cfgSet).
	nw, stride       int
	offDone, offCrit int
	offWDone, offObl int
	offCrash         int
	// offSeen is one word of an inner configuration of a gap: 1 when
	// its last effects since a read or a completed cas saw anything are a
	// write or crashed operations nobody saw. The next effect may then not
	// be a write: the unseen effects could be left out (crashed ones are
	// optional, a completed write is then free to slip in unseen before
	// that write, which frees every obligation they freed), and the
	// configuration reached that way dominates. Compared by dominance.
	offSeen   int
	classOf   []int32   // per op: its effect class, or -1
	classFrom []int32   // per class: the value expected, or blind
	classTo   []int32   // per class: the value set
	crashIdx  []int32   // per class: index among the crashed counts, or -1
	pend      [][]int32 // per class: pending completed effects, by return
	crashOps  [][]int32 // per class: crashed effects called, in call order
	slotOp    []int32
	// need is, per value, how many operations may still observe it: reads
	// of it and compare-and-sets from it that have not returned (crashed
	// ones never do). See canon.
	need []int32
	// idle is the value a configuration holds in place of one nothing will
	// observe again: an index no operation has.
	idle              int32
	front             cfgSet // the frontier
	gap, next         cfgSet // a gap's inner configurations, and the next frontier
	gapParent, gapOp  []int32
	nextParent        []int32 // per next configuration: its inner parent (encoded, see enc)
	nextOp            []int32
	queue             []int32
	trail             []casTrail
	states, peak      int64
	at, deadAt        int
	scratch, scratch2 []uint64
	// limit bounds the configurations of one gap; past it the sweep gives
	// up (Unknown) rather than exhaust memory.
	limit   int
	tooMany bool
	// recorded counts the configurations whose way back the trail keeps.
	recorded int64
	// grow, when set, is asked before the sweep holds more memory
	// (Options.Grow); held is what it last agreed to.
	grow      func(bytes int64) bool
	held      int64
	outOfRoom bool
	// maxStates, when positive, bounds the configurations explored in
	// all (a window's, see window.go); past it the sweep gives up.
	maxStates int64
	// narrow bounds a narrow sweep (see narrow.go); spare, owesBuf and
	// keepBuf are its scratch.
	narrow           narrowing
	spare            cfgSet
	owesBuf, keepBuf []int32
}

// casTrail records, for one return event, how each configuration of the
// frontier after it was reached: its parent in the frontier before, and the
// effects of the gap (ops[start[i]:start[i+1]]).
type casTrail struct {
	parent []int32
	start  []int32
	ops    []int32
}

// maxGapConfigs bounds the configurations of one gap (inner and next), and
// maxRecorded those of all frontiers together, whose parents and effects
// the trail keeps for the witness (some 12 bytes each).
const (
	maxGapConfigs = 1 << 21
	maxRecorded   = 1 << 25
)

func newCASSearch(p *problem) *casSearch {
	s := &casSearch{p: p, classOf: make([]int32, len(p.ops)), deadAt: -1, limit: maxGapConfigs}
	classes := map[[2]int32]int32{}
	nCrash := 0
	for i := range p.ops {
		o := &p.ops[i]
		s.classOf[i] = -1
		if o.kind != kWrite && o.kind != kCrash {
			continue
		}
		k, ok := classes[[2]int32{o.from, o.val}]
		if !ok {
			k = int32(len(s.classTo))
			classes[[2]int32{o.from, o.val}] = k
			s.classFrom = append(s.classFrom, o.from)
			s.classTo = append(s.classTo, o.val)
			s.crashIdx = append(s.crashIdx, -1)
		}
		s.classOf[i] = k
		if o.kind == kCrash && s.crashIdx[k] < 0 {
			s.crashIdx[k] = int32(nCrash)
			nCrash++
		}
	}
	s.need = make([]int32, len(p.vals)+1)
	s.idle = int32(len(p.vals))
	for i := range p.ops {
		if v, ok := s.observes(int32(i)); ok {
			s.need[v]++
		}
	}
	s.pend = make([][]int32, len(s.classTo))
	s.crashOps = make([][]int32, len(s.classTo))
	s.slotOp = assignSlots(p)
	s.nw = max(1, (len(s.slotOp)+63)/64)
	s.offDone = 1
	s.offCrit = 1 + s.nw
	s.offSeen = 1 + 2*s.nw
	s.offWDone = s.offSeen + 1
	s.offObl = s.offWDone + s.nw
	s.offCrash = s.offObl + s.nw
	s.stride = s.offCrash + (nCrash+3)/4
	s.trail = make([]casTrail, len(p.events))
	s.scratch = make([]uint64, s.stride)
	s.scratch2 = make([]uint64, s.stride)
	s.front = newCfgSet(s.stride, s.offSeen, s.offCrash)
	s.gap = newCfgSet(s.stride, s.offSeen, s.offCrash)
	s.next = newCfgSet(s.stride, s.offSeen, s.offCrash)
	s.spare = newCfgSet(s.stride, s.offSeen, s.offCrash)
	c := make([]uint64, s.stride)
	c[0] = uint64(p.init)
	s.front.add(c)
	for v := 0; p.anyInit && v < len(p.vals); v++ {
		c[0] = uint64(v)
		s.front.add(c)
	}
	return s
}

// assignSlots gives every completed read, write and cas a slot it holds
// from call to return, and returns the slot table (every slot free).
func assignSlots(p *problem) []int32 {
	var slots, free []int32
	for _, e := range p.events {
		o := &p.ops[e.op]
		if o.kind == kCrash || o.kind == kAny {
			continue
		}
		if e.ret {
			free = append(free, o.slot)
			continue
		}
		if len(free) == 0 {
			free = append(free, int32(len(slots)))
			slots = append(slots, -1)
		}
		o.slot = free[len(free)-1]
		free = free[:len(free)-1]
	}
	return slots
}

// observes reports whether op o observes a value, and which: a completed
// read, or a compare-and-set (of any outcome) that expects it.
func (s *casSearch) observes(o int32) (int32, bool) {
	op := &s.p.ops[o]
	switch {
	case op.kind == kRead:
		return op.val, true
	case op.from != blind && (op.kind == kWrite || op.kind == kCrash):
		return op.from, true
	}
	return 0, false
}

// canon clears what can no longer matter, so that equivalent
// configurations meet. A value nothing will observe again is held as idle.
// And each use of a crashed operation of value v that matters is observed
// before the register changes again: by a read of v or a compare-and-set
// from v, one each (an unobserved one can be left out: the write after it
// frees as many obligations, and it frees none of its own). So of the
// crashed operations of a class still available, no more than need[v]
// matter; the rest are counted as used.
func (s *casSearch) canon(c []uint64) {
	if v := int32(c[0]); v == s.idle || s.need[v] == 0 {
		c[0] = uint64(s.idle)
	}
	for k, i := range s.crashIdx {
		if i < 0 {
			continue
		}
		called, need := int32(len(s.crashOps[k])), s.need[s.classTo[k]]
		if called-s.crashUsed(c, int32(k)) > need {
			s.setCrashUsed(c, int32(k), called-need)
		}
	}
}

// crashUsed is how many crashed operations of class k c used.
func (s *casSearch) crashUsed(c []uint64, k int32) int32 {
	return count16(c[s.offCrash:], s.crashIdx[k])
}

func (s *casSearch) setCrashUsed(c []uint64, k int32, n int32) {
	setCount16(c[s.offCrash:], s.crashIdx[k], n)
}

// doneOff is the bitset that records whether op took effect: writes and
// compare-and-sets are kept apart, as the writes done are compared by
// dominance (one not done and not obliged can do all a done one can: slip
// in unseen, see effect) and the compare-and-sets done must match.
func (s *casSearch) doneOff(op *rop) int {
	if op.from == blind {
		return s.offWDone
	}
	return s.offDone
}

// source returns the effect of class k a gap would use in c: the pending
// completed one with the earliest return not done yet (it leaves the others
// available longer), else a crashed one not used yet, else -1.
func (s *casSearch) source(c []uint64, k int32) int32 {
	for _, o := range s.pend[k] {
		op := &s.p.ops[o]
		if !getBit(c, s.doneOff(op), op.slot) {
			return o
		}
	}
	if s.crashIdx[k] >= 0 {
		if u := s.crashUsed(c, k); int(u) < len(s.crashOps[k]) {
			return s.crashOps[k][u]
		}
	}
	return -1
}

// effect makes op o take effect in c: the register takes its value, and
// every read waiting for that value is satisfied. It reports whether a
// waiting read was. A write (blind) frees
// every pending write not done yet from its obligation: it can be slipped
// in just before this one, unseen, when it returns.
func (s *casSearch) effect(c []uint64, o int32) bool {
	op := &s.p.ops[o]
	if op.from == blind {
		for w := 0; w < s.nw; w++ {
			c[s.offObl+w] = 0
		}
	}
	if op.kind == kCrash {
		k := s.classOf[o]
		s.setCrashUsed(c, k, s.crashUsed(c, k)+1)
	} else {
		setBit(c, s.doneOff(op), op.slot)
	}
	c[0] = uint64(op.val)
	if k := s.critical(c, op.val); k >= 0 {
		clrBit(c, s.offCrit, k)
		return true
	}
	return false
}

// critical returns the slot of the critical read of v in c, or -1.
func (s *casSearch) critical(c []uint64, v int32) int32 {
	return criticalRead(c[s.offCrit:s.offCrit+s.nw], s.p, s.slotOp, v)
}

// call applies the call of op o to every configuration of the frontier.
func (s *casSearch) call(o int32) {
	op := &s.p.ops[o]
	k := s.classOf[o]
	switch op.kind {
	case kCrash:
		s.crashOps[k] = append(s.crashOps[k], o)
	case kWrite:
		s.slotOp[op.slot] = o
		list := append(s.pend[k], o)
		for i := len(list) - 1; i > 0 && s.p.ops[list[i-1]].ret > op.ret; i-- {
			list[i], list[i-1] = list[i-1], list[i]
		}
		s.pend[k] = list
		if op.from == blind {
			// A write must take effect before it returns, until some
			// write after its call lets it slip in unseen.
			for i := 0; i < s.front.n; i++ {
				setBit(s.front.cfg(i), s.offObl, op.slot)
			}
		}
	case kRead:
		s.slotOp[op.slot] = o
		s.callRead(op)
	}
}

// callRead marks a read just called as waiting in every configuration that
// does not hold its value, unless a read of the value returning earlier
// already waits there (whatever satisfies that one satisfies this one).
func (s *casSearch) callRead(op *rop) {
	changed := false
	for i := 0; i < s.front.n; i++ {
		c := s.front.cfg(i)
		if int32(c[0]) == op.val {
			continue
		}
		k := s.critical(c, op.val)
		if k >= 0 && s.p.ops[s.slotOp[k]].ret < op.ret {
			continue
		}
		if k >= 0 {
			clrBit(c, s.offCrit, k)
		}
		setBit(c, s.offCrit, op.slot)
		changed = true
	}
	if changed {
		s.front.rehash()
	}
}

// retire updates the bookkeeping shared by all configurations after the
// return of op o.
func (s *casSearch) retire(o int32) {
	op := &s.p.ops[o]
	s.slotOp[op.slot] = -1
	if op.kind == kWrite {
		k := s.classOf[o]
		list := s.pend[k]
		for i, x := range list {
			if x == o {
				s.pend[k] = append(list[:i], list[i+1:]...)
				break
			}
		}
	}
}

// settled reports whether the return of o needs nothing more of c: a
// read not waiting, an effect that took place already, or a write that
// some write after its call let slip in unseen. The gap may then be empty:
// anything else it could do can wait for a later gap.
func (s *casSearch) settled(c []uint64, o int32) bool {
	op := &s.p.ops[o]
	switch {
	case op.kind == kRead:
		return !getBit(c, s.offCrit, op.slot)
	case op.from == blind && !getBit(c, s.offObl, op.slot):
		return true
	}
	return getBit(c, s.doneOff(op), op.slot)
}

// open reports whether the gap before the return of o may let effects
// take place in c: o is a waiting read, or an effect not done yet.
func (s *casSearch) open(c []uint64, o int32) bool {
	op := &s.p.ops[o]
	if op.kind == kRead {
		return getBit(c, s.offCrit, op.slot)
	}
	return !getBit(c, s.doneOff(op), op.slot)
}

// ends reports whether letting effect w take place ends the gap before the
// return of o: w is o, or o is a read and w sets its value.
func (s *casSearch) ends(o, w int32) bool {
	op := &s.p.ops[o]
	if op.kind == kRead {
		return s.p.ops[w].val == op.val
	}
	return w == o
}

// enc encodes a parent: an inner configuration of the gap (i >= 0) or a
// configuration of the frontier before it (-1-i).
func enc(frontier int) int32 { return int32(-1 - frontier) }

// ret processes the return event e of op o. It reports false when no
// configuration survives (or the gap grew past the limit).
func (s *casSearch) ret(e int32, o int32) bool {
	s.gap.reset()
	s.next.reset()
	s.gapParent, s.gapOp = s.gapParent[:0], s.gapOp[:0]
	s.nextParent, s.nextOp = s.nextParent[:0], s.nextOp[:0]
	s.queue = s.queue[:0]
	if v, ok := s.observes(o); ok {
		s.need[v]--
	}
	for i := 0; i < s.front.n; i++ {
		c := s.front.cfg(i)
		if s.settled(c, o) {
			s.finish(c, enc(i), -1, o)
		}
		if !s.open(c, o) {
			continue
		}
		if j, added := s.gap.add(c); added {
			s.setGapParent(j, enc(i), -1)
		}
	}
	for q := 0; q < len(s.queue) && !s.gapFull(); q++ {
		if !s.expand(s.queue[q], o) {
			s.tooMany = true
			return false
		}
	}
	s.states += int64(s.gap.n + s.next.n)
	if s.maxStates > 0 && s.states > s.maxStates {
		s.tooMany = true
		return false
	}
	s.peak = max(s.peak, int64(s.gap.n+s.next.n))
	if s.next.n == 0 {
		return false
	}
	// A narrow sweep records only what it keeps.
	s.keepLeastOwing()
	if s.recorded += int64(s.next.n); s.recorded > maxRecorded {
		s.tooMany = true
		return false
	}
	if !s.room() {
		return false
	}
	s.record(e)
	s.front, s.next = s.next, s.front
	s.retire(o)
	return true
}

// setGapParent records how inner configuration j was reached and queues it
// for expansion (again, when a better one replaced it).
func (s *casSearch) setGapParent(j int, parent, op int32) {
	for len(s.gapParent) <= j {
		s.gapParent = append(s.gapParent, 0)
		s.gapOp = append(s.gapOp, 0)
	}
	s.gapParent[j], s.gapOp[j] = parent, op
	s.queue = append(s.queue, int32(j))
}

// expand lets every effect that can take place in inner configuration j
// do so. It reports false when the gap grew past the limit.
func (s *casSearch) expand(j int32, o int32) bool {
	c := s.scratch2
	copy(c, s.gap.cfg(int(j)))
	cur := int32(c[0])
	unseen := c[s.offSeen] != 0
	for k := range s.classTo {
		from := s.classFrom[k]
		if from != blind && from != cur || from == blind && unseen {
			continue
		}
		w := s.source(c, int32(k))
		if w < 0 {
			continue
		}
		d := s.scratch
		copy(d, c)
		seen := s.effect(d, w)
		if s.ends(o, w) {
			s.finish(d, j, w, o)
			continue
		}
		switch {
		case seen || s.p.ops[w].kind == kWrite && from != blind:
			d[s.offSeen] = 0
		case from == blind || s.p.ops[w].kind == kCrash:
			d[s.offSeen] = 1
		}
		if i, added := s.gap.add(d); added {
			s.setGapParent(i, j, w)
		}
		if s.gap.n+s.next.n > s.limit {
			return false
		}
	}
	return true
}

// finish puts c, which the return of o may follow, into the next frontier
// once the return is applied: o's slot is freed.
func (s *casSearch) finish(c []uint64, parent, w, o int32) {
	d := s.scratch
	if &d[0] != &c[0] {
		copy(d, c)
	}
	slot := s.p.ops[o].slot
	for _, off := range []int{s.offDone, s.offCrit, s.offWDone, s.offObl} {
		clrBit(d, off, slot)
	}
	d[s.offSeen] = 0
	s.canon(d)
	if i, added := s.next.add(d); added {
		for len(s.nextParent) <= i {
			s.nextParent = append(s.nextParent, 0)
			s.nextOp = append(s.nextOp, 0)
		}
		s.nextParent[i], s.nextOp[i] = parent, w
	}
}

// room asks Options.Grow, in steps of growStep, for the memory the sweep
// holds: its sets and its trail. It reports false, and marks the sweep as
// stopped, when refused.
func (s *casSearch) room() bool {
	if s.grow == nil {
		return true
	}
	bytes := s.front.bytes() + s.gap.bytes() + s.next.bytes() + s.recorded*12 + int64(cap(s.gapParent)+cap(s.gapOp))*4
	if bytes <= s.held {
		return true
	}
	want := bytes + growStep
	if !s.grow(want) {
		s.tooMany, s.outOfRoom = true, true
		return false
	}
	s.held = want
	return true
}

// growStep is how much more memory the sweep asks for at a time.
const growStep = 4 << 20

// record stores, for the return event e, how each configuration of the
// next frontier was reached.
func (s *casSearch) record(e int32) {
	tr := &s.trail[e]
	var buf []int32
	for i := 0; i < s.next.n; i++ {
		buf = buf[:0]
		if s.nextOp[i] >= 0 {
			buf = append(buf, s.nextOp[i])
		}
		par := s.nextParent[i]
		for par >= 0 {
			if s.gapOp[par] >= 0 {
				buf = append(buf, s.gapOp[par])
			}
			par = s.gapParent[par]
		}
		tr.parent = append(tr.parent, -1-par)
		tr.start = append(tr.start, int32(len(tr.ops)))
		for x := len(buf) - 1; x >= 0; x-- {
			tr.ops = append(tr.ops, buf[x])
		}
	}
	tr.start = append(tr.start, int32(len(tr.ops)))
}

// run sweeps the events and reports the outcome.
func (s *casSearch) run(ctx context.Context) outcome {
	return sweepEvents(ctx, s.p, s, &s.at, &s.deadAt)
}

func (s *casSearch) width() int    { return s.front.n }
func (s *casSearch) stopped() bool { return s.tooMany }
