// Package online decides linearizability of one object's operations as
// their events arrive, in memory that grows with what is still open rather
// than with the history: an event-ordered sweep over the configurations
// the past leaves for the future (the model's state and which of the open
// operations are already linearized), the sweep of package regdp made
// generic over any model.
//
// Operations are linearized just in time: only when one returns are
// orders of the open operations that end with it tried, so the
// configurations hold only orders the future can still extend. A
// returned operation is linearized in every configuration and leaves the
// sweep (it is settled); one of unknown outcome stays, optional, until
// every configuration has used it. A configuration that used fewer
// operations of unknown outcome than another with the same state and the
// same required operations can do everything the other can, so the other
// is dropped: that keeps a crashed write from doubling the frontier.
//
// The caller hands an operation over only once its outcome is known
// (check.Stream holds back a key's later events until then), so every
// open operation the sweep sees has its final value.
package online

import (
	"fmt"
	"math/bits"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// MaxOpen is how many operations one object may have open at once
// (returned ones not yet, and those of unknown outcome not yet used
// everywhere); past it the object's verdict is unknown.
const MaxOpen = 128

// DefaultMaxConfigs bounds the configurations one return may reach.
const DefaultMaxConfigs = 1 << 16

// Status is what a sweep knows after an event.
type Status uint8

// Statuses.
const (
	// Open: every operation so far can be linearized.
	Open Status = iota
	// Violated: the returning operation cannot be linearized in any order
	// the past allows, whatever comes later.
	Violated
	// Exceeded: the frontier grew past a bound; the object's verdict is
	// unknown (Reason says why).
	Exceeded
)

// Object is one object's sweep, without its model's state type.
type Object interface {
	// Invoke adds an operation whose outcome is known: OK, or Info
	// (unknown). Failed operations are never added. It returns the
	// operation's slot for Return.
	Invoke(op *history.Op) (slot int, st Status, err error)
	// Return linearizes the operation in slot in every configuration and
	// settles it.
	Return(slot int) Status
	// Open is how many operations are open (unknown ones included).
	Open() int
	// Configs is how many configurations the frontier holds.
	Configs() int
	// Reason says why the sweep was exceeded.
	Reason() string
	// Holds reports whether the operation called at call (history.Op's
	// Call) is still open in slot: an operation of unknown outcome leaves
	// once every configuration used it.
	Holds(slot int, call int64) bool
	// Restart starts the sweep again from the value init that Base gave,
	// the operations of unknown outcome still open and used in no
	// configuration. It reports whether it built the model afresh: its
	// operations were then dropped, and the caller hands those of
	// unknown outcome over again.
	Restart(init history.Value) (rebuilt bool)
	// Base returns the model's value that every configuration can be
	// reached from by the open operations of unknown outcome, when there
	// is one and no other operation is open: the object can then be
	// checked again from that value (see Valued).
	Base() (history.Value, bool)
}

// mask is a set of slots.
type mask [2]uint64

func (m mask) has(i int) bool     { return m[i>>6]&(1<<(i&63)) != 0 }
func (m *mask) set(i int)         { m[i>>6] |= 1 << (i & 63) }
func (m mask) and(o mask) mask    { return mask{m[0] & o[0], m[1] & o[1]} }
func (m mask) andNot(o mask) mask { return mask{m[0] &^ o[0], m[1] &^ o[1]} }
func (m mask) subset(o mask) bool { return m[0]&^o[0] == 0 && m[1]&^o[1] == 0 }
func (m mask) count() int         { return bits.OnesCount64(m[0]) + bits.OnesCount64(m[1]) }
func (m mask) empty() bool        { return m[0]|m[1] == 0 }

// cfg is a configuration: the state, and the open operations linearized.
type cfg[S comparable] struct {
	s S
	m mask
}

// group is a configuration without its operations of unknown outcome.
type group[S comparable] struct {
	s   S
	req mask
}

// Sweep is the online check of one object against model m.
//
// The fields every event reads come first and the operations last, so
// that an event touches few cache lines of a sweep (a keyed history has
// one sweep per key, seldom in cache).
type Sweep[S comparable] struct {
	reason  string
	m       model.Model[S]
	t       *model.Table
	rw      model.ReadWriteRegister
	used    mask // slots holding an operation
	unknown mask // slots holding an operation of unknown outcome
	blind   mask // slots holding a blind write (model.ReadWriteRegister)
	// useful holds the blind writes of unknown outcome after which some
	// open operation that is not a blind write is legal: the others are
	// never worth trying (see pointless), and a long run's keys each
	// keep dozens of crashed writes open that nothing reads.
	useful  mask
	cfgs    []cfg[S]
	next    []cfg[S]
	queue   []cfg[S]
	seen    map[cfg[S]]struct{}
	seenAny bool // seen may hold configurations (most returns add none)
	best    map[group[S]][]mask
	max     int
	build   func(model.Options) model.Model[S]
	opts    model.Options
	valued  model.Valued[S]
	// base is the state Base last found, and restarts counts Restart's
	// calls: most restarts keep the model and its values and start
	// from base; every rebuildEvery-th builds the model afresh from the
	// value, which drops the values the past interned.
	base     S
	restarts int
	// written holds, by slot, the state each blind write of unknown
	// outcome leaves (whatever the state before it): markUseful reads
	// these, a few cache lines, rather than the operations.
	written [MaxOpen]S
	ops     [MaxOpen]model.Op
}

// rebuildEvery is how often Restart builds the model afresh.
const rebuildEvery = 8

// NewSweep returns the sweep of an object that starts in the initial
// state of the model build makes from opts. maxConfigs bounds the
// configurations (0: DefaultMaxConfigs).
func NewSweep[S comparable](build func(model.Options) model.Model[S], opts model.Options, maxConfigs int) *Sweep[S] {
	if maxConfigs <= 0 {
		maxConfigs = DefaultMaxConfigs
	}
	w := &Sweep[S]{build: build, opts: opts, max: maxConfigs, seen: map[cfg[S]]struct{}{}, best: map[group[S]][]mask{}}
	w.start(opts)
	return w
}

// start makes the model from opts and starts the sweep in its initial
// state, with no operation open.
func (w *Sweep[S]) start(opts model.Options) {
	w.m = w.build(opts)
	w.t = model.NewTable()
	w.rw, _ = w.m.(model.ReadWriteRegister)
	w.valued, _ = w.m.(model.Valued[S])
	w.used, w.unknown, w.blind, w.useful = mask{}, mask{}, mask{}, mask{}
	clear(w.ops[:])
	w.cfgs = append(w.cfgs[:0], cfg[S]{s: w.m.Init(w.t)})
	w.reason = ""
}

// Holds implements Object.
func (w *Sweep[S]) Holds(slot int, call int64) bool {
	return slot >= 0 && slot < MaxOpen && w.used.has(slot) && w.ops[slot].Call == call
}

// Restart implements Object.
func (w *Sweep[S]) Restart(init history.Value) bool {
	w.restarts++
	if w.restarts%rebuildEvery != 0 {
		// Base found no required operation open; those of unknown
		// outcome keep their slots, used in no configuration.
		w.cfgs = append(w.cfgs[:0], cfg[S]{s: w.base})
		return false
	}
	opts := w.opts
	opts.Init = init
	w.start(opts)
	return true
}

// Open implements Object.
func (w *Sweep[S]) Open() int { return w.used.count() }

// Configs implements Object.
func (w *Sweep[S]) Configs() int { return len(w.cfgs) }

// Reason implements Object.
func (w *Sweep[S]) Reason() string { return w.reason }

// Invoke implements Object.
func (w *Sweep[S]) Invoke(op *history.Op) (int, Status, error) {
	if w.reason != "" {
		return -1, Exceeded, nil
	}
	mo, err := w.m.Compile(op, w.t)
	if err != nil {
		return -1, Open, err
	}
	free := mask{^w.used[0], ^w.used[1]}
	slot := -1
	switch {
	case free[0] != 0:
		slot = bits.TrailingZeros64(free[0])
	case free[1] != 0:
		slot = 64 + bits.TrailingZeros64(free[1])
	default:
		w.reason = fmt.Sprintf("more than %d operations of one object were open at once (%d of unknown outcome, which stay open for good): the frontier cannot be kept small", MaxOpen, w.unknown.count())
		return -1, Exceeded, nil
	}
	mo.Unknown = op.Status == history.Info
	mo.Call, mo.Return, mo.Proc = op.Call, op.Return, int32(op.Process)
	mo.Start, mo.End = op.Times.Call, op.Times.Return
	if op.Status == history.Info {
		mo.End = history.Infinity
	}
	w.ops[slot] = mo
	w.used.set(slot)
	// Class takes the stored copy: mo's address, passed to an interface
	// method, would make every operation a heap allocation.
	if w.rw != nil && w.rw.Class(&w.ops[slot]) == model.WriteOp {
		w.blind.set(slot)
	}
	if mo.Unknown {
		w.unknown.set(slot)
	}
	if w.rw != nil {
		w.markUseful(slot)
	}
	return slot, Open, nil
}

// Return implements Object.
func (w *Sweep[S]) Return(o int) Status {
	if w.reason != "" {
		return Exceeded
	}
	w.next = w.next[:0]
	if w.seenAny { // clearing an empty map still reads it
		clear(w.seen)
		w.seenAny = false
	}
	for _, c := range w.cfgs {
		if c.m.has(o) {
			w.next = append(w.next, c)
			continue
		}
		if !w.extend(c, o) {
			return Exceeded
		}
	}
	w.next = w.prune(w.next)
	if len(w.next) == 0 {
		return Violated
	}
	w.cfgs, w.next = w.next, w.cfgs
	w.settle(o)
	return Open
}

// extend adds to w.next every configuration that linearizing open
// operations in some order ending with o reaches from c.
func (w *Sweep[S]) extend(c cfg[S], o int) bool {
	w.queue = append(w.queue[:0], c)
	for len(w.queue) > 0 {
		x := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		free := w.used.andNot(x.m).andNot(w.unknown.and(w.blind).andNot(w.useful))
		if free.andNot(w.blind).empty() {
			// Only blind writes are left: one of unknown outcome is
			// never worth trying (see pointless).
			free = free.andNot(w.unknown.and(w.blind))
		}
		for q := range slots(free) {
			op := &w.ops[q]
			s2, ok := w.m.Step(x.s, op)
			if !ok {
				continue
			}
			y := cfg[S]{s: s2, m: x.m}
			y.m.set(q)
			if q == o {
				w.next = append(w.next, y)
				continue
			}
			if op.Unknown && w.pointless(x, s2, q) {
				continue
			}
			if _, dup := w.seen[y]; dup {
				continue
			}
			if len(w.seen) >= w.max {
				w.reason = fmt.Sprintf("more than %d configurations at one return: the operations open at once leave too many orders", w.max)
				return false
			}
			w.seen[y] = struct{}{}
			w.seenAny = true
			w.queue = append(w.queue, y)
		}
	}
	return true
}

// markUseful adds to useful what the operation just added in slot makes
// useful: itself, a blind write of unknown outcome after which an open
// operation that is not a blind write is legal, or, being such an
// operation, the blind writes of unknown outcome after which it is. A
// blind write's state does not depend on the state before it, so it is
// stepped from any configuration's. Bits are cleared only when their
// operations settle: useful may hold more than it must, never less.
func (w *Sweep[S]) markUseful(slot int) {
	writes := w.unknown.and(w.blind)
	readers := w.used.andNot(w.blind)
	if writes.has(slot) {
		after, _ := w.m.Step(w.cfgs[0].s, &w.ops[slot])
		w.written[slot] = after
		for q := range slots(readers) {
			if _, ok := w.m.Step(after, &w.ops[q]); ok {
				w.useful.set(slot)
				return
			}
		}
		return
	}
	if !readers.has(slot) {
		return
	}
	op := &w.ops[slot]
	for q := range slots(writes.andNot(w.useful)) {
		if _, ok := w.m.Step(w.written[q], op); ok {
			w.useful.set(q)
		}
	}
}

// pointless reports that linearizing op, of unknown outcome, from x to
// state s2 cannot lead anywhere that not linearizing it does not: it
// changed nothing (a read), or it is a blind write, whose value only a
// read can make use of (anything that writes next erases it; see
// useful).
func (w *Sweep[S]) pointless(x cfg[S], s2 S, q int) bool {
	if s2 == x.s {
		return true
	}
	if !w.blind.has(q) {
		return false
	}
	return !w.readsNext(s2, x.m)
}

// readsNext reports whether some open operation not linearized in m,
// and not a blind write, is legal in s: after a blind write of unknown
// outcome only such an operation can use the value it wrote.
func (w *Sweep[S]) readsNext(s S, m mask) bool {
	for q := range slots(w.used.andNot(m).andNot(w.blind)) {
		if _, ok := w.m.Step(s, &w.ops[q]); ok {
			return true
		}
	}
	return false
}

// prune drops duplicate configurations and those another dominates: the
// same state and required operations, with a subset of the operations of
// unknown outcome used.
func (w *Sweep[S]) prune(cs []cfg[S]) []cfg[S] {
	if len(cs) <= 1 {
		return cs
	}
	clear(w.best)
	for _, c := range cs {
		g := group[S]{s: c.s, req: c.m.andNot(w.unknown)}
		u := c.m.and(w.unknown)
		list := w.best[g]
		dominated := false
		for _, v := range list {
			if v.subset(u) {
				dominated = true
				break
			}
		}
		if dominated {
			continue
		}
		keep := list[:0]
		for _, v := range list {
			if !u.subset(v) { // else u dominates v
				keep = append(keep, v)
			}
		}
		w.best[g] = append(keep, u)
	}
	out := cs[:0]
	for g, list := range w.best {
		for _, u := range list {
			out = append(out, cfg[S]{s: g.s, m: mask{g.req[0] | u[0], g.req[1] | u[1]}})
		}
	}
	return out
}

// settle frees o's slot, linearized in every configuration, and the
// slots of operations of unknown outcome that every configuration used.
func (w *Sweep[S]) settle(o int) {
	all := mask{^uint64(0), ^uint64(0)}
	for _, c := range w.cfgs {
		all = all.and(c.m)
	}
	done := all.and(w.unknown)
	done.set(o)
	for i := range w.cfgs {
		w.cfgs[i].m = w.cfgs[i].m.andNot(done)
	}
	w.used = w.used.andNot(done)
	w.unknown = w.unknown.andNot(done)
	w.blind = w.blind.andNot(done)
	w.useful = w.useful.andNot(done)
	for q := range slots(done) {
		w.ops[q] = model.Op{}
	}
	if len(w.cfgs) > 1 {
		w.cfgs = w.prune(w.cfgs)
	}
}

// Base implements Object: with no required operation open, a state s0
// reached without any operation of unknown outcome such that every
// configuration is s0 or one operation of unknown outcome applied to s0.
func (w *Sweep[S]) Base() (history.Value, bool) {
	if w.valued == nil || !w.used.andNot(w.unknown).empty() {
		return history.Value{}, false
	}
	var s0 S
	found := false
	for _, c := range w.cfgs {
		if c.m.empty() {
			if found && c.s != s0 {
				return history.Value{}, false
			}
			s0, found = c.s, true
		}
	}
	if !found {
		return history.Value{}, false
	}
	for _, c := range w.cfgs {
		if c.m.empty() {
			continue
		}
		if c.m.count() != 1 {
			return history.Value{}, false
		}
		for q := range slots(c.m) {
			if s, ok := w.m.Step(s0, &w.ops[q]); !ok || s != c.s {
				return history.Value{}, false
			}
		}
	}
	w.base = s0
	return w.valued.Value(s0, w.t)
}

// slots iterates over the members of m.
func slots(m mask) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := 0; k < 2; k++ {
			for b := m[k]; b != 0; b &= b - 1 {
				if !yield(k<<6 | bits.TrailingZeros64(b)) {
					return
				}
			}
		}
	}
}

// Method is the name a verdict of the sweep puts in Result.Method.
const Method = "online"
