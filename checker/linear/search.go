package linear

import (
	"cmp"
	"context"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/histcheck/histcheck/model"
)

// outcome is how a partition's search ended.
type outcome uint8

const (
	found   outcome = iota // a linearization exists
	refuted                // none exists
	stopped                // cancelled or out of time before deciding
)

// partResult is what the search of one partition found.
type partResult[S comparable] struct {
	outcome outcome
	// order lists the indices (into the partition's ops) of the operations
	// linearized, in order, when found.
	order []int32
	// On refutation: the operation that could not take effect at the deepest
	// point the search reached, the order that led there, and the state.
	failOp int32
	prefix []int32
	state  S
	err    error // the context's error when stopped
	// partials, when asked for (Options.Partials) and refuted, are the
	// longest legal orders the search reached that contain each operation,
	// each order once (indices into the partition's ops).
	partials [][]int32
	states   int64 // model steps taken
	memo     int64 // configurations remembered
}

// frame is one linearized operation on the search stack: the call entry
// that was lifted out of the event list, whether it was the only candidate
// tried (a legal read, see searcher.enter), and the state before it.
type frame[S comparable] struct {
	e      int32
	forced bool
	state  S
}

// ctxCheckEvery is how many search steps pass between looks at the context
// and the stop flag; a step costs tens of nanoseconds (a few microseconds
// with the slowest models), so the search notices a deadline within
// milliseconds.
const ctxCheckEvery = 1 << 12

// searcher runs the Wing–Gong backtracking search with Lowe's memo on one
// partition. Operations with unknown outcome are optional: the search
// succeeds as soon as every operation that completed is linearized. It can
// be run in slices (see run), so that one goroutine can take turns between
// several partitions.
//
// The events (a call and a return per operation) sit in a doubly linked list
// kept in arrays, sorted by time with calls before returns at equal times
// (intervals are closed). Any call before the first remaining return may be
// linearized next; reaching a return means its operation should have been
// linearized already, so the search backtracks.
type searcher[S comparable] struct {
	m   model.Model[S]
	ops []model.Op
	// doomed, when the model has foresight (model.Foresight), tells that a
	// completed operation can never become legal from a state: an order
	// that dooms a pending operation is abandoned at once.
	doomed func(s S, i int, taken []uint64) bool

	// Entries 1..2n are the sorted events; 0 is the head sentinel and
	// tail the tail sentinel.
	next, prev []int32
	entOp      []int32 // operation of each entry
	match      []int32 // for a call entry its return entry; 0 for returns
	tail       int32

	// twin[i] is an operation the search must take before ops[i], or -1:
	// one identical to it for the model (same kind, arguments and outcome
	// rule) whose interval is no later at either end (see twins). Such
	// operations are interchangeable, so the search takes them in that
	// order only: this tames the many weakened copies a core's shrinking
	// makes, and the many clients of a register with few values.
	twin []int32
	// after, when a client's operations touch, gives each operation the previous one of
	// its process, which must be taken first (-1: none); nil otherwise.
	after []int32
	// required is the set of operations that completed, and retOf the
	// return entry of each operation.
	required []uint64
	retOf    []int32

	// When the model classifies blind writes (model.ReadWriteRegister),
	// an optional blind write is worth taking only right before an
	// operation that observes the state: any order that follows it with
	// another blind write, or with an operation that observes nothing,
	// works as well without it or with it moved later (its return never
	// comes). optBlind marks those writes and observes the operations that
	// may follow one; whether the last operation taken was an optional
	// blind write is the bit after the operations' in bits, so that the
	// memo tells the two configurations apart. nil when the model does not
	// classify or there is no blind write.
	optBlind, observes []bool
	// reads marks the completed operations the model classifies as reads
	// (nil when it does not classify): one that is legal when its turn may
	// come is taken at once, as the only candidate (see enter).
	reads []bool

	bits  []uint64 // the set of linearized operations
	zob   []uint64 // Zobrist value of each operation
	sh    *stateHasher[S]
	memo  *memo[S]
	stack []frame[S]
	state S
	h     uint64 // Zobrist hash of bits
	e     int32  // the entry the search looks at next
	// forced is the entry of the read enter chose as the only candidate
	// of the current configuration, or 0.
	forced int32
	// flag is set when the last operation taken was an optional blind
	// write (see optBlind).
	flag bool
	need int // operations that completed and are not linearized
	best int // deepest stack seen at a backtrack
	// longest, when partial orders are asked for, gives each operation
	// the index in seqs of the longest legal order reached at a backtrack
	// that contains it, or -1.
	longest []int32
	seqs    [][]int32
	res     partResult[S]
	done    bool
	// budget, when set, bounds the memory of the memos of all partitions;
	// charged is this search's share of it.
	budget  *memBudget
	charged int64
}

// newSearcher prepares a search of ops from init. When prev is set (see
// checker.Compiled.Prev), ops' intervals do not keep every client's own
// order, and the search keeps it itself: an operation waits for prev[i].
func newSearcher[S comparable](m model.Model[S], ops []model.Op, init S, prev []int32) *searcher[S] {
	n := len(ops)
	s := &searcher[S]{m: m, ops: ops, state: init, best: -1}
	for i := range ops {
		if !ops[i].Unknown {
			s.need++
		}
	}
	if s.need == 0 {
		s.done = true
		s.res.outcome = found
		return s
	}
	if f, ok := m.(model.Foresight[S]); ok {
		s.doomed = f.Doomed(ops)
	}
	s.twin = twins(ops)
	if prev != nil {
		s.after = prev
		// Identical operations of different processes may wait for
		// different predecessors: neither stands for the other.
		for i := range s.twin {
			s.twin[i] = -1
		}
	}
	flags := 0
	if rw, ok := m.(model.ReadWriteRegister); ok {
		flags = s.classify(rw)
	} else if ob, ok := m.(model.Observer); ok {
		s.observers(ob)
	}
	s.link()

	words := (n + flags + 63) / 64
	s.bits = make([]uint64, words)
	if s.doomed != nil {
		s.required = make([]uint64, words)
		for i := range ops {
			if !ops[i].Unknown {
				setBit(s.required, int32(i))
			}
		}
	}
	s.zob = make([]uint64, n+flags)
	x := uint64(0x9e3779b97f4a7c15) ^ uint64(n)
	for i := range s.zob {
		s.zob[i] = splitmix(&x)
	}
	s.sh = newStateHasher[S]()
	s.memo = newMemo[S](words, s.sh.size, n)
	s.stack = make([]frame[S], 0, n)
	s.e, s.forced = s.enter(init, false)
	return s
}

// classify sets optBlind, observes and reads from the model's classes of
// the operations, and returns 1 when there is an optional blind write (the
// configurations then carry a flag bit after the operations'), 0 when
// there is none and optBlind and observes stay nil.
func (s *searcher[S]) classify(rw model.ReadWriteRegister) int {
	n, ops := len(s.ops), s.ops
	s.optBlind = make([]bool, n)
	s.observes = make([]bool, n)
	s.reads = make([]bool, n)
	flags := 0
	for i := range ops {
		switch rw.Class(&ops[i]) {
		case model.WriteOp:
			if ops[i].Unknown {
				s.optBlind[i], flags = true, 1
			}
		case model.ReadOp:
			s.observes[i] = true
			s.reads[i] = !ops[i].Unknown
		case model.AnyReadOp:
			s.reads[i] = !ops[i].Unknown
		case model.OtherOp:
			s.observes[i] = true
		}
	}
	if flags == 0 {
		s.optBlind, s.observes = nil, nil
	}
	return flags
}

// observers sets reads from a model that tells the operations that never
// change the state: a completed one that is legal when its turn may come
// is taken at once (see enter), which needs no more than that.
func (s *searcher[S]) observers(ob model.Observer) {
	s.reads = make([]bool, len(s.ops))
	some := false
	for i := range s.ops {
		s.reads[i] = !s.ops[i].Unknown && ob.Observes(&s.ops[i])
		some = some || s.reads[i]
	}
	if !some {
		s.reads = nil
	}
}

// link builds the event list: a call and a return per operation, sorted
// by time with calls before returns at equal times (intervals are closed),
// then by operation, between the head sentinel 0 and the tail. The calls
// and the returns are each put in order, then merged: the calls usually
// come in order already.
func (s *searcher[S]) link() {
	n, ops := len(s.ops), s.ops
	byEnd := func(end func(*model.Op) int64) []int32 {
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(i)
		}
		order := func(x, y int32) int { return cmp.Or(cmp.Compare(end(&ops[x]), end(&ops[y])), cmp.Compare(x, y)) }
		if !slices.IsSortedFunc(idx, order) {
			slices.SortFunc(idx, order)
		}
		return idx
	}
	calls := byEnd(func(o *model.Op) int64 { return o.Call })
	rets := byEnd(func(o *model.Op) int64 { return o.Return })
	size := 2*n + 2
	tail := int32(size - 1)
	next, prev := make([]int32, size), make([]int32, size)
	entOp, match := make([]int32, size), make([]int32, size)
	retOf := make([]int32, n)
	e := int32(1)
	for len(calls) > 0 || len(rets) > 0 {
		if len(calls) > 0 && (len(rets) == 0 || ops[calls[0]].Call <= ops[rets[0]].Return) {
			entOp[e], match[e] = calls[0], -1 // its return's entry, below
			calls = calls[1:]
		} else {
			entOp[e], retOf[rets[0]] = rets[0], e
			rets = rets[1:]
		}
		e++
	}
	for e := range match {
		if match[e] < 0 {
			match[e] = retOf[entOp[e]]
		}
	}
	for e := int32(0); e < int32(size); e++ {
		next[e] = e + 1
		prev[e] = e - 1
	}
	next[tail] = tail
	prev[0] = 0
	s.next, s.prev, s.entOp, s.match, s.retOf, s.tail = next, prev, entOp, match, retOf, tail
}

// foresightAhead is how many of the completed operations not yet taken, in
// call order, enter asks the model's foresight about: the nearest ones
// constrain the state soonest, and asking about every one of them made
// each step cost as much as the history is long.
const foresightAhead = 32

// enter returns the entry to look at first in the configuration just
// reached, and that entry again when it is the only one to try.
//
// The read rule below needs only that the operation never changes the
// state (model.Observer), whatever else the model says of it.
//
// When a completed operation not yet taken can never take effect
// (model.Foresight), that is its return: every order from here fails. The
// nearest foresightAhead of them are asked, not only those whose call has
// come: for appends, a read recorded later already rules out most orders
// of the appends before it, which would otherwise multiply until its call.
// When a completed read may come next and is legal in the state, it is the
// only candidate: any order that takes it later works with it moved here,
// since its call has passed (no operation still to come returned before
// it was called) and it changes no state. Reads then never multiply the
// orders the search explores. After an optional blind write (flag) only a
// read that observes the state may come next (see searcher.optBlind).
func (s *searcher[S]) enter(state S, flag bool) (e, forced int32) {
	next, match, entOp := s.next, s.match, s.entOp
	e = next[0]
	if s.doomed != nil {
		asked := 0
	scan:
		for w, req := range s.required {
			for left := req &^ s.bits[w]; left != 0; left &= left - 1 {
				if asked == foresightAhead {
					break scan
				}
				asked++
				if o := w<<6 | bits.TrailingZeros64(left); s.doomed(state, o, s.bits) {
					return s.retOf[o], 0
				}
			}
		}
	}
	if s.reads != nil {
		for x := e; match[x] != 0; x = next[x] {
			o := entOp[x]
			if !s.reads[o] || flag && !s.observes[o] || s.waits(o) {
				continue
			}
			if t := s.twin[o]; t >= 0 && !hasBit(s.bits, t) {
				continue
			}
			if ns, ok := s.m.Step(state, &s.ops[o]); ok && ns == state {
				return x, x
			}
		}
	}
	return e, 0
}

// run continues the search for at most budget steps, or until ctx is done
// or stop is set, and reports whether the search is over (s.res then holds
// the outcome). Each step looks at one entry. At a return or the tail it
// undoes the last choice (backtrack). At a call it tries the operation
// next: it moves on to the next candidate when the operation may not come
// next, is illegal, or leads to a configuration explored already, and
// takes it otherwise (descend).
//
// The loop keeps the entry, the state, the flag and the count of steps in
// locals, since every step reads them and only descend and backtrack
// change them (in s); the lists' contents change, never the slices.
func (s *searcher[S]) run(ctx context.Context, stop *atomic.Bool, budget int) bool {
	if s.done {
		return true
	}
	next, match, entOp, ops := s.next, s.match, s.entOp, s.ops
	e, state, flag, steps := s.e, s.state, s.flag, s.res.states
	for iter := 1; !s.done; iter++ {
		if iter&(ctxCheckEvery-1) == 0 && s.interrupted(ctx, stop) || iter >= budget {
			break
		}
		if match[e] == 0 {
			s.e = e
			s.backtrack()
			e, state, flag = s.e, s.state, s.flag
			continue
		}
		op := entOp[e]
		if skips(s.twin, s.bits, s.observes, flag, op) || waiting(s.after, s.bits, op) {
			e = next[e]
			continue
		}
		steps++
		ns, ok := s.m.Step(state, &ops[op])
		switch {
		case !ok || (ns == state && ops[op].Unknown):
			// An optional operation that changes nothing here is never
			// worth taking: any order that takes it now works without it.
			e = next[e]
		case s.descend(e, op, ns):
			e, state, flag = s.e, s.state, s.flag
		case e == s.forced:
			// The only candidate leads where the search has been: this
			// configuration fails too.
			e = s.tail
		default:
			e = next[e]
		}
	}
	s.e, s.res.states = e, steps
	s.pause()
	return s.done
}

// skips reports whether the search passes over op, which may not come
// next: its twin, earlier in the list, stands for it, or only an observing
// operation may follow an optional blind write (flag). An operation that
// waits for its client's previous one (waiting) may not come next either.
func skips(twin []int32, bits []uint64, observes []bool, flag bool, op int32) bool {
	t := twin[op]
	return t >= 0 && !hasBit(bits, t) || flag && !observes[op]
}

// pause records what the search found so far, at the end of a turn, and
// frees the search structures when it is over: only the result is needed
// then.
func (s *searcher[S]) pause() {
	s.res.memo = s.memo.size()
	if !s.done {
		return
	}
	if s.res.outcome == found {
		s.res.order = make([]int32, len(s.stack))
		for i, f := range s.stack {
			s.res.order[i] = s.entOp[f.e]
		}
	}
	if s.res.outcome == refuted && s.longest != nil {
		s.res.partials = s.keptPartials()
	}
	s.longest, s.seqs = nil, nil
	s.memo, s.stack = nil, nil
}

// interrupted ends the search as stopped when stop is set, ctx is done or
// the memos outgrow the memory budget.
func (s *searcher[S]) interrupted(ctx context.Context, stop *atomic.Bool) bool {
	var err error
	switch {
	case stop.Load():
	case ctx.Err() != nil:
		err = ctx.Err()
	case s.budget != nil && (s.memo.refused || !s.budget.charge(&s.charged, s.memo.bytes())):
		err = errMemory
	default:
		return false
	}
	s.res.outcome, s.res.err, s.done = stopped, err, true
	return true
}

// descend takes op (from call entry e), which leads to state ns, unless
// the memo shows the configuration it reaches was explored already; it
// reports whether it took it. Taking it pushes a frame, lifts the call
// and its return out of the list, and either ends the search (every
// completed operation is linearized) or enters the new configuration.
func (s *searcher[S]) descend(e, op int32, ns S) bool {
	fb := int32(len(s.ops)) // the bit after the operations': see optBlind
	nh := s.h ^ s.zob[op]
	setBit(s.bits, op)
	nflag := s.optBlind != nil && s.optBlind[op]
	if nflag != s.flag {
		nh ^= s.zob[fb]
		flipBit(s.bits, fb)
	}
	if !s.memo.add(nh^s.sh.hash(ns), ns, s.bits) {
		clearBit(s.bits, op)
		if nflag != s.flag {
			flipBit(s.bits, fb)
		}
		return false
	}
	s.stack = append(s.stack, frame[S]{e, e == s.forced, s.state})
	s.state, s.h, s.flag = ns, nh, nflag
	s.lift(e)
	if !s.ops[op].Unknown {
		s.need--
		if s.need == 0 {
			s.res.outcome, s.done = found, true
			return true
		}
	}
	s.e, s.forced = s.enter(s.state, s.flag)
	return true
}

// backtrack is reached at a return (or the tail): every order from here
// leaves its operation out too late. It remembers the deepest such point
// for the report, then undoes the last choice and moves on to the next
// candidate after it; with nothing to undo the search is refuted.
func (s *searcher[S]) backtrack() {
	if len(s.stack) > s.best {
		s.noteDeepest()
	}
	if s.longest != nil {
		s.notePartial()
	}
	if len(s.stack) == 0 {
		s.res.outcome, s.done = refuted, true
		return
	}
	top := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	e := top.e
	op := s.entOp[e]
	s.state = top.state
	s.h ^= s.zob[op]
	clearBit(s.bits, op)
	if !s.ops[op].Unknown {
		s.need++
	}
	if s.optBlind != nil {
		pflag := len(s.stack) > 0 && s.optBlind[s.entOp[s.stack[len(s.stack)-1].e]]
		if pflag != s.flag {
			fb := int32(len(s.ops))
			s.h ^= s.zob[fb]
			flipBit(s.bits, fb)
			s.flag = pflag
		}
	}
	s.relink(e)
	s.forced = 0
	if top.forced {
		// It was the only candidate: the configuration it left fails.
		s.e = s.tail
		return
	}
	s.e = s.next[e]
}

// notePartial records the order on the stack as the longest one that
// contains each of its operations, where it is longer than the one kept.
// The order is copied once, and only when some operation needs it.
func (s *searcher[S]) notePartial() {
	n := int32(len(s.stack))
	seq := int32(-1)
	for _, f := range s.stack {
		op := s.entOp[f.e]
		if l := s.longest[op]; l >= 0 && int32(len(s.seqs[l])) >= n {
			continue
		}
		if seq < 0 {
			order := make([]int32, n)
			for i, g := range s.stack {
				order[i] = s.entOp[g.e]
			}
			seq = int32(len(s.seqs))
			s.seqs = append(s.seqs, order)
		}
		s.longest[op] = seq
	}
}

// keptPartials returns the orders some operation still names, each once.
func (s *searcher[S]) keptPartials() [][]int32 {
	named := make([]bool, len(s.seqs))
	for _, l := range s.longest {
		if l >= 0 {
			named[l] = true
		}
	}
	var out [][]int32
	for i, ok := range named {
		if ok {
			out = append(out, s.seqs[i])
		}
	}
	return out
}

// noteDeepest records the current point, the deepest so far, as the one a
// refutation reports: the operation whose return (or the tail, -1) was
// reached, the order that led there and the state.
func (s *searcher[S]) noteDeepest() {
	s.best = len(s.stack)
	s.res.failOp = s.entOp[s.e]
	if s.e == s.tail {
		s.res.failOp = -1
	}
	s.res.prefix = s.res.prefix[:0]
	for _, f := range s.stack {
		s.res.prefix = append(s.res.prefix, s.entOp[f.e])
	}
	s.res.state = s.state
}

// lift takes call entry e and its return out of the event list.
func (s *searcher[S]) lift(e int32) {
	next, prev, r := s.next, s.prev, s.match[e]
	next[prev[e]] = next[e]
	prev[next[e]] = prev[e]
	next[prev[r]] = next[r]
	prev[next[r]] = prev[r]
}

// relink puts call entry e and its return back where lift took them from,
// in the reverse order.
func (s *searcher[S]) relink(e int32) {
	next, prev, r := s.next, s.prev, s.match[e]
	next[prev[r]] = r
	prev[next[r]] = r
	next[prev[e]] = e
	prev[next[e]] = e
}

// waits reports whether op must wait for its client's previous completed
// operation, not yet taken (only when a client's operations touch).
func (s *searcher[S]) waits(op int32) bool { return waiting(s.after, s.bits, op) }

// waiting reports whether op waits for after[op] (after may be nil), not
// in bits yet.
func waiting(after []int32, bits []uint64, op int32) bool {
	if after == nil {
		return false
	}
	p := after[op]
	return p >= 0 && !hasBit(bits, p)
}

// Bit sets over operations, as uint64 words.
func hasBit(bits []uint64, i int32) bool { return bits[i>>6]&(1<<(uint(i)&63)) != 0 }
func setBit(bits []uint64, i int32)      { bits[i>>6] |= 1 << (uint(i) & 63) }
func clearBit(bits []uint64, i int32)    { bits[i>>6] &^= 1 << (uint(i) & 63) }
func flipBit(bits []uint64, i int32)     { bits[i>>6] ^= 1 << (uint(i) & 63) }

// twins links each operation to the previous one identical to it for the
// model (Proc aside, which models must not depend on) in a chain whose
// intervals move forward at both ends, or to -1. Taking the operations of
// such a chain in its order loses no linearization: given one, give the
// chain's k-th operation the k-th earliest of the places its operations
// take; each then still lies within its own interval, since calls and
// returns both move forward along the chain, and the states are the same
// since the operations are. Of unknown outcome (no return), the operations
// taken can likewise be made the first ones of the chain. Each operation
// is linked to the one just before it in (identity, call, return) order,
// when that one returns no later.
func twins(ops []model.Op) []int32 {
	// Sorted by a hash of the identity first, which settles most
	// comparisons at once; equal hashes compare the identities themselves.
	type entry struct {
		h uint64
		i int32
	}
	identity := func(o *model.Op) [4]int64 {
		u := int64(0)
		if o.Unknown {
			u = 1
		}
		return [4]int64{int64(o.Kind)<<1 | u, o.A, o.B, o.C}
	}
	es := make([]entry, len(ops))
	for i := range ops {
		k := identity(&ops[i])
		h := uint64(k[0])
		for _, x := range k[1:] {
			h = (h ^ uint64(x)) * 0x9e3779b97f4a7c15
		}
		es[i] = entry{h ^ h>>29, int32(i)}
	}
	slices.SortFunc(es, func(x, y entry) int {
		if x.h != y.h {
			return cmp.Compare(x.h, y.h)
		}
		ox, oy := &ops[x.i], &ops[y.i]
		kx, ky := identity(ox), identity(oy)
		if kx != ky {
			return slices.Compare(kx[:], ky[:])
		}
		return cmp.Or(cmp.Compare(ox.Call, oy.Call), cmp.Compare(ox.Return, oy.Return), cmp.Compare(x.i, y.i))
	})
	tw := make([]int32, len(ops))
	for k := range es {
		i := es[k].i
		tw[i] = -1
		if k == 0 {
			continue
		}
		j := es[k-1].i
		if identity(&ops[j]) == identity(&ops[i]) && (ops[i].Unknown || ops[j].Return <= ops[i].Return) {
			tw[i] = j
		}
	}
	return tw
}
