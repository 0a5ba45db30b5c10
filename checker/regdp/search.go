package regdp

import (
	"context"
	"fmt"
	"math/bits"
)

// The programme sweeps the events in order and keeps the set of
// configurations the operations so far can leave behind. Every order of the
// operations can be brought to a normal form (see docs/many-clients.md) in
// which operations take effect only in the gap just before some return
// event, and a nonempty gap ends with a write of the value of the operation
// returning there. A configuration records:
//
//   - cur: the value the register holds;
//   - for each pending completed write: whether it was used (took effect
//     and mattered), and whether it is still obliged to take effect, which
//     it is until some nonempty gap follows its call (from then on it can be
//     slipped in just before that gap's first write, unseen);
//   - for each value, the pending read of it with the earliest return among
//     those no moment since their call satisfied: the only one that matters,
//     since one write of the value satisfies them all;
//   - for each value with crashed writes, how many of them were used (they
//     are interchangeable once called).
//
// A configuration is a fixed number of words; configurations are kept in an
// arena and deduplicated through an open-addressing table.

type outcome uint8

const (
	outFound outcome = iota
	outRefuted
	outStopped
)

// emptyChoice marks a gap in which nothing takes effect; any other choice is
// 1 | mask<<1, mask selecting among the gap's candidates (see cands).
const emptyChoice uint64 = 0

// maxCands bounds the values that can get a write in one gap besides the
// returning operation's; the choices are subsets of them, so past this the
// programme gives up (Unknown) rather than enumerate millions of them.
// Histories with that many distinct values waiting at once are the zones
// algorithm's or the search's.
const maxCands = 16

type search struct {
	p *problem
	// Layout of a configuration: word 0 holds cur, then three bitsets over
	// slots (used writes, obliged writes, critical reads), then the crashed
	// write counts, four 16-bit counts a word.
	nw, stride  int
	offUsed     int
	offObl      int
	offCrit     int
	offCrash    int
	slotOp      []int32   // the operation in each slot, or -1
	pendW       [][]int32 // per value: pending completed writes, by return
	crashIdx    []int32   // per value: index among the crashed counts, or -1
	crashCalled []int32   // per value: crashed writes called so far
	crashOps    [][]int32 // per value: its crashed writes in call order
	lastRead    []int32   // per value: the last return event of a read of it
	// lastCall is, per value, the last call event of a read of it: past
	// it, holding the value and holding any other such value are alike
	// (see forget).
	lastCall []int32
	// forgetAt lists, per return event, the values with crashed writes
	// whose last read returns there: their counts no longer matter after it.
	forgetAt map[int32][]int32
	// idle is the value a configuration holds in place of one no read
	// called later can see: an index no operation has.
	idle           int32
	frontier, next []uint64
	n              int // configurations in frontier
	table          []int32
	// trail[e] holds, for the return event e, each configuration's parent
	// and choice; parent indexes the frontier before e.
	trail  []trailEntry
	states int64
	peak   int64
	at     int // the event being processed
	deadAt int // the return event at which no configuration survived
	// tooWide is set when a gap had more than maxCands candidate values.
	tooWide bool
	scratch []uint64
	cbuf    []int32
}

type trailEntry struct {
	parent []int32
	choice []uint64
}

func newSearch(p *problem) *search {
	nv := len(p.vals)
	s := &search{p: p, pendW: make([][]int32, nv), crashIdx: make([]int32, nv), crashCalled: make([]int32, nv),
		crashOps: make([][]int32, nv), lastRead: make([]int32, nv), lastCall: make([]int32, nv),
		forgetAt: map[int32][]int32{}, idle: int32(nv), deadAt: -1}
	for v := range s.crashIdx {
		s.crashIdx[v] = -1
		s.lastRead[v] = -1
		s.lastCall[v] = -1
	}
	nCrash := 0
	for i := range p.ops {
		o := &p.ops[i]
		switch o.kind {
		case kCrash:
			if s.crashIdx[o.val] < 0 {
				s.crashIdx[o.val] = int32(nCrash)
				nCrash++
			}
		case kRead:
			s.lastRead[o.val] = max(s.lastRead[o.val], o.ret)
			s.lastCall[o.val] = max(s.lastCall[o.val], o.call)
		}
	}
	for v, k := range s.crashIdx {
		if k >= 0 && s.lastRead[v] >= 0 {
			s.forgetAt[s.lastRead[v]] = append(s.forgetAt[s.lastRead[v]], int32(v))
		}
	}
	// Slots: completed operations hold one from call to return.
	var free []int32
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
			free = append(free, int32(len(s.slotOp)))
			s.slotOp = append(s.slotOp, -1)
		}
		o.slot = free[len(free)-1]
		free = free[:len(free)-1]
	}
	s.nw = max(1, (len(s.slotOp)+63)/64)
	s.offUsed = 1
	s.offObl = 1 + s.nw
	s.offCrit = 1 + 2*s.nw
	s.offCrash = 1 + 3*s.nw
	s.stride = s.offCrash + (nCrash+3)/4
	s.trail = make([]trailEntry, len(p.events))
	s.scratch = make([]uint64, s.stride)
	s.frontier = make([]uint64, s.stride)
	s.frontier[0] = uint64(s.held(p.init, -1))
	s.n = 1
	return s
}

func (s *search) cfg(i int) []uint64 { return s.frontier[i*s.stride : (i+1)*s.stride] }

func getBit(c []uint64, off int, slot int32) bool {
	return c[off+int(slot>>6)]&(1<<(uint(slot)&63)) != 0
}

func setBit(c []uint64, off int, slot int32) { c[off+int(slot>>6)] |= 1 << (uint(slot) & 63) }

func clrBit(c []uint64, off int, slot int32) { c[off+int(slot>>6)] &^= 1 << (uint(slot) & 63) }

func (s *search) crashUsed(c []uint64, v int32) int32 {
	k := s.crashIdx[v]
	if k < 0 {
		return 0
	}
	return count16(c[s.offCrash:], k)
}

func (s *search) setCrashUsed(c []uint64, v int32, n int32) {
	setCount16(c[s.offCrash:], s.crashIdx[v], n)
}

// count16 returns the k-th of the 16-bit counts packed four to a word in c.
func count16(c []uint64, k int32) int32 {
	return int32(c[k/4] >> (16 * (uint(k) % 4)) & 0xffff)
}

// setCount16 sets the k-th of the 16-bit counts packed in c to n.
func setCount16(c []uint64, k int32, n int32) {
	w := &c[k/4]
	sh := 16 * (uint(k) % 4)
	*w = *w&^(0xffff<<sh) | uint64(n)<<sh
}

// critical returns the slot of the critical read of v in c, or -1.
func (s *search) critical(c []uint64, v int32) int32 {
	return criticalRead(c[s.offCrit:s.offCrit+s.nw], s.p, s.slotOp, v)
}

// criticalRead returns the slot of the read of v among the critical reads
// crit (a bitset over slots), or -1.
func criticalRead(crit []uint64, p *problem, slotOp []int32, v int32) int32 {
	for w, x := range crit {
		for x != 0 {
			b := bits.TrailingZeros64(x)
			x &= x - 1
			slot := int32(w*64 + b)
			if p.ops[slotOp[slot]].val == v {
				return slot
			}
		}
	}
	return -1
}

// source returns the write of v that a gap would use: the pending
// completed write with the earliest return not used yet (exchange argument:
// it leaves the others available longer), else a crashed write. It returns
// the operation, or -1 if there is none.
func (s *search) source(c []uint64, v int32) int32 {
	for _, o := range s.pendW[v] {
		if !getBit(c, s.offUsed, s.p.ops[o].slot) {
			return o
		}
	}
	if s.crashIdx[v] >= 0 {
		if u := s.crashUsed(c, v); u < s.crashCalled[v] {
			return s.crashOps[v][u]
		}
	}
	return -1
}

// use marks the write o as having taken effect in c.
func (s *search) use(c []uint64, o int32) {
	op := &s.p.ops[o]
	if op.kind == kCrash {
		s.setCrashUsed(c, op.val, s.crashUsed(c, op.val)+1)
		return
	}
	setBit(c, s.offUsed, op.slot)
}

// cands lists, for the gap before the return of op ret (value u), the
// values other than u whose critical read a write could satisfy in the gap.
func (s *search) cands(c []uint64, u int32, out []int32) []int32 {
	out = out[:0]
	for w := 0; w < s.nw; w++ {
		x := c[s.offCrit+w]
		for x != 0 {
			b := bits.TrailingZeros64(x)
			x &= x - 1
			v := s.p.ops[s.slotOp[int32(w*64+b)]].val
			if v != u && s.source(c, v) >= 0 {
				out = append(out, v)
			}
		}
	}
	return out
}

// gapRecord receives, during a replay, the writes a gap makes take effect,
// in order, the value that ends it last.
type gapRecord func(writes []int32)

// apply computes into dst the configuration that follows c across the gap
// before the return event of op o with the given choice, and then the return
// itself. It reports false when the choice is not possible or leaves o
// unaccounted for.
func (s *search) apply(c, dst []uint64, o int32, choice uint64, cs []int32, rec gapRecord) bool {
	op := &s.p.ops[o]
	copy(dst, c)
	if choice == emptyChoice {
		switch op.kind {
		case kRead:
			if getBit(c, s.offCrit, op.slot) {
				return false
			}
		case kWrite:
			// An obliged write that did not take effect cannot return.
			if getBit(c, s.offObl, op.slot) {
				return false
			}
		}
	} else {
		var last int32
		switch op.kind {
		case kWrite:
			if getBit(c, s.offUsed, op.slot) {
				return false
			}
			last = o
		case kRead:
			last = s.source(c, op.val)
			if last < 0 {
				return false
			}
		}
		var ws []int32
		mask := choice >> 1
		for i, v := range cs {
			if mask&(1<<uint(i)) == 0 {
				continue
			}
			w := s.source(dst, v)
			s.use(dst, w)
			clrBit(dst, s.offCrit, s.critical(dst, v))
			if rec != nil {
				ws = append(ws, w)
			}
		}
		s.use(dst, last)
		if k := s.critical(dst, op.val); k >= 0 {
			clrBit(dst, s.offCrit, k)
		}
		for w := 0; w < s.nw; w++ {
			dst[s.offObl+w] = 0
		}
		dst[0] = uint64(op.val)
		if rec != nil {
			rec(append(ws, last))
		}
	}
	clrBit(dst, s.offUsed, op.slot)
	clrBit(dst, s.offObl, op.slot)
	clrBit(dst, s.offCrit, op.slot)
	return true
}

// call applies the call of op o to every configuration of the frontier.
func (s *search) call(o int32) {
	op := &s.p.ops[o]
	switch op.kind {
	case kCrash:
		s.crashCalled[op.val]++
		s.crashOps[op.val] = append(s.crashOps[op.val], o)
	case kWrite:
		s.slotOp[op.slot] = o
		list := append(s.pendW[op.val], o)
		for i := len(list) - 1; i > 0 && s.p.ops[list[i-1]].ret > op.ret; i-- {
			list[i], list[i-1] = list[i-1], list[i]
		}
		s.pendW[op.val] = list
		for i := 0; i < s.n; i++ {
			setBit(s.cfg(i), s.offObl, op.slot)
		}
	case kRead:
		s.slotOp[op.slot] = o
		for i := 0; i < s.n; i++ {
			c := s.cfg(i)
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
		}
	}
}

// retire updates the bookkeeping shared by all configurations after the
// return of op o.
func (s *search) retire(o int32) {
	op := &s.p.ops[o]
	s.slotOp[op.slot] = -1
	if op.kind == kWrite {
		list := s.pendW[op.val]
		for i, x := range list {
			if x == o {
				s.pendW[op.val] = append(list[:i], list[i+1:]...)
				break
			}
		}
	}
}

// held is what a configuration records as holding value v after event e:
// v itself while some read of v is still to be called, else idle. The
// value held matters only to the reads called later (a read called while
// its value is held is satisfied at once), so configurations that differ
// only in values nobody will read again are one: without this, a history
// whose values are all distinct but one (a write of the initial value, say)
// keeps one configuration per write that could have been the last, and
// the sweep grows quadratic in the writes pending at once.
func (s *search) held(v int32, e int32) int32 {
	if v == s.idle || s.lastCall[v] <= e {
		return s.idle
	}
	return v
}

// canon clears what can no longer matter after the return event e, so that
// equivalent configurations meet: the crashed-write counts of the values in
// forget, whose last read returned at e (those of values read earlier are
// already clear), and a value held that no read called later can see.
func (s *search) canon(c []uint64, e int32, forget []int32) {
	for _, v := range forget {
		s.setCrashUsed(c, v, 0)
	}
	c[0] = uint64(s.held(int32(c[0]), e))
}

// ret processes the return event e of op o: every configuration is carried
// across the gap before it in every way the normal form allows.
func (s *search) ret(e int32, o int32) bool {
	if cap(s.next) < 4*s.stride {
		s.next = make([]uint64, 0, 4*s.stride)
	}
	s.next = s.next[:0]
	s.resetTable(2 * s.n)
	tr := &s.trail[e]
	op := &s.p.ops[o]
	forget := s.forgetAt[e]
	for i := 0; i < s.n; i++ {
		c := s.cfg(i)
		if s.apply(c, s.scratch, o, emptyChoice, nil, nil) {
			s.add(s.scratch, int32(i), emptyChoice, tr, e, forget)
		}
		s.cbuf = s.cands(c, op.val, s.cbuf)
		if len(s.cbuf) > maxCands {
			s.tooWide = true
			return false
		}
		for mask := uint64(0); mask < 1<<uint(len(s.cbuf)); mask++ {
			ch := 1 | mask<<1
			if s.apply(c, s.scratch, o, ch, s.cbuf, nil) {
				s.add(s.scratch, int32(i), ch, tr, e, forget)
			}
		}
	}
	if len(s.next) == 0 {
		// Keep the last frontier for the report.
		return false
	}
	s.frontier, s.next = s.next, s.frontier
	s.n = len(s.frontier) / s.stride
	s.retire(o)
	return true
}

func (s *search) resetTable(n int) {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	s.table = emptyTable(s.table, size)
}

// emptyTable returns table, or a new one if too small, cut to size and
// with every entry free (-1).
func emptyTable(table []int32, size int) []int32 {
	if cap(table) >= size {
		table = table[:size]
	} else {
		table = make([]int32, size)
	}
	for i := range table {
		table[i] = -1
	}
	return table
}

// hashKey hashes the part of a configuration that must match exactly for
// one configuration to dominate another: the value held and the critical
// reads. The used and obliged writes and the crashed counts are compared
// by dominance instead (see add).
func (s *search) hashKey(c []uint64) uint64 {
	return mixWords(mixWords(seed, c[:1]), c[s.offCrit:s.offCrash])
}

// seed starts a hash of configuration words (mixWords).
const seed uint64 = 0x9e3779b97f4a7c15

// mixWords mixes the words ws into the hash h.
func mixWords(h uint64, ws []uint64) uint64 {
	for _, w := range ws {
		h ^= w
		h *= 0xff51afd7ed558ccd
		h ^= h >> 32
	}
	return h
}

// dominates reports whether configuration a can do everything b can, given
// the same value and critical reads: a used a subset of b's pending writes
// (an unused write that is no longer obliged can always be slipped in
// unseen before its return), is obliged to a subset of b's obligations (an
// obligation only forbids an empty gap) and used no more crashed writes of
// any value (they are interchangeable). The obliged writes of a
// configuration are those called since its last nonempty gap, so they are
// ordered by inclusion: without this, a history whose writes overlap many
// at a time keeps one configuration per recent gap, each as wide as the
// writes pending.
func (s *search) dominates(a, b []uint64) bool {
	for i := s.offUsed; i < s.offCrit; i++ {
		if a[i]&^b[i] != 0 {
			return false
		}
	}
	for i := s.offCrash; i < s.stride; i++ {
		x, y := a[i], b[i]
		for k := 0; k < 4; k++ {
			if x&0xffff > y&0xffff {
				return false
			}
			x >>= 16
			y >>= 16
		}
	}
	return true
}

func (s *search) sameKey(a, b []uint64) bool {
	return a[0] == b[0] && equal(a[s.offCrit:s.offCrash], b[s.offCrit:s.offCrash])
}

// add puts a copy of c into the next frontier unless a configuration there
// dominates it; one that c dominates is replaced by c.
func (s *search) add(c []uint64, parent int32, choice uint64, tr *trailEntry, e int32, forget []int32) {
	s.canon(c, e, forget)
	s.states++
	n := len(s.next) / s.stride
	if 2*n+2 > len(s.table) {
		s.rehash(n)
	}
	mask := uint64(len(s.table) - 1)
	for h := s.hashKey(c) & mask; ; h = (h + 1) & mask {
		j := s.table[h]
		if j < 0 {
			s.table[h] = int32(n)
			s.next = append(s.next, c...)
			tr.parent = append(tr.parent, parent)
			tr.choice = append(tr.choice, choice)
			if int64(n+1) > s.peak {
				s.peak = int64(n + 1)
			}
			return
		}
		old := s.next[int(j)*s.stride : (int(j)+1)*s.stride]
		if !s.sameKey(old, c) {
			continue
		}
		if s.dominates(old, c) {
			return
		}
		if s.dominates(c, old) {
			copy(old, c)
			tr.parent[j], tr.choice[j] = parent, choice
			return
		}
	}
}

func (s *search) rehash(n int) {
	s.resetTable(2 * n)
	mask := uint64(len(s.table) - 1)
	for j := 0; j < n; j++ {
		h := s.hashKey(s.next[j*s.stride:(j+1)*s.stride]) & mask
		for s.table[h] >= 0 {
			h = (h + 1) & mask
		}
		s.table[h] = int32(j)
	}
}

func equal(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (s *search) gaveUp() string {
	if s.tooWide {
		return fmt.Sprintf("more than %d values waited for a write at once at event %d; this engine is for few distinct values", maxCands, s.at)
	}
	return ""
}

func (s *search) progress() (int, int64, int64) { return s.at, s.states, s.peak }

// ctxEvery is how many events pass between looks at the context.
const ctxEvery = 64

// run sweeps the events and reports the outcome.
func (s *search) run(ctx context.Context) outcome {
	return sweepEvents(ctx, s.p, s, &s.at, &s.deadAt)
}

func (s *search) width() int    { return s.n }
func (s *search) stopped() bool { return s.tooWide }

// stepper is a sweep as sweepEvents drives it.
type stepper interface {
	call(o int32)
	// ret processes the return event e of op o and reports whether any
	// configuration survived.
	ret(e, o int32) bool
	// width is the number of configurations alive.
	width() int
	// stopped reports whether a failed ret gave up rather than refuted.
	stopped() bool
}

// sweepEvents feeds p's events to s, looking at ctx every ctxEvery events
// or as often as the work done (configurations carried) asks, and keeps
// *at (the event reached) and *deadAt (the return no configuration
// survived) up to date.
func sweepEvents(ctx context.Context, p *problem, s stepper, at, deadAt *int) outcome {
	work := 0
	for e, ev := range p.events {
		*at = e
		work += s.width()
		if work >= ctxEvery*64 || e%ctxEvery == 0 {
			work = 0
			if ctx.Err() != nil {
				return outStopped
			}
		}
		if p.ops[ev.op].kind == kAny {
			continue
		}
		if !ev.ret {
			s.call(ev.op)
			continue
		}
		if !s.ret(int32(e), ev.op) {
			if s.stopped() {
				return outStopped
			}
			*deadAt = e
			return outRefuted
		}
	}
	*at = len(p.events)
	return outFound
}
