// Package regdp decides linearizability of single-register read/write
// histories exactly with a dynamic programme over time, rather than a search
// over orders of operations. It stays fast with many concurrent clients and
// few distinct values, the histories that make a Wing–Gong search explode:
// its configurations summarise what the past left for the future (the value
// held, which pending writes were used, which pending reads still wait) and
// are shared by every order that leads to them.
//
// The design and the exactness arguments are in docs/many-clients.md.
package regdp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Method is the name Check puts in Result.Method.
const Method = "regdp"

// Options are the register's settings.
type Options struct {
	// Init is the register's initial value; None means nil.
	Init history.Value
	// NilAny accepts a read of nil in every state (Knossos's rule).
	NilAny bool
	// Shown, when set, gives the operation that errors name, and whose
	// value a violation shows, for the one at position pos of the history
	// checked: a caller that recoded values to fit the sweep (a nil read as
	// a plain value becomes a value of its own) has them show the
	// operations its users wrote.
	Shown func(pos int) *history.Op
	// Grow, when set, is asked before the compare-and-set sweep holds more
	// memory, with the bytes it would then hold in all; false stops the
	// sweep with an Unknown verdict.
	Grow func(bytes int64) bool
}

// Applies reports whether h is a single-register history this engine
// decides: model cas-register classes every operation as a read, a write or
// a compare-and-set (model.Info.ClassOf). Keys are not looked at: the register model
// has none, so the caller splits keyed histories first.
func Applies(h *history.History) bool {
	info := model.NewCASRegister(model.Options{}).Info()
	for i := range h.Ops {
		if c := info.ClassOf(h.Ops[i].F); c != model.ReadOp && c != model.WriteOp && c != model.CASOp {
			return false
		}
	}
	return true
}

// hasCAS reports whether h has a compare-and-set: such a history is
// checked against model cas-register by the compare-and-set sweep.
func hasCAS(h *history.History) bool {
	info := model.NewCASRegister(model.Options{}).Info()
	for i := range h.Ops {
		if info.ClassOf(h.Ops[i].F) == model.CASOp {
			return true
		}
	}
	return false
}

// Operation kinds after preparation.
const (
	kRead  uint8 = iota // a completed read that observes the register
	kWrite              // a completed write
	kCrash              // a write of unknown outcome whose value some read returned
	kAny                // a completed read that is legal in every state (NilAny)
)

// blind is rop.from for a write: it takes effect in every state.
const blind int32 = -1

// rop is one operation the programme works with.
type rop struct {
	kind uint8
	val  int32 // dense value index: the value read or written
	// from is, for a compare-and-set (kind kWrite or kCrash), the value it
	// expects; blind for a write.
	from int32
	pos  int // position in history.History.Ops
	// call and ret are event indices; ret is -1 for a crashed write.
	call, ret int32
	slot      int32 // slot while pending (completed operations only)
}

// event is a call or a return of one operation.
type event struct {
	op  int32
	ret bool
}

// problem is a history prepared for the programme.
type problem struct {
	h      *history.History
	ops    []rop
	events []event
	vals   []history.Value // dense value index -> value
	init   int32           // dense index of the initial value
	// dropped lists positions left out of every witness: reads of unknown
	// outcome and writes of unknown outcome nobody observed.
	dropped []int
	nOps    int // operations that did not fail
	shown   func(pos int) *history.Op
	// cas is set when some operation is a compare-and-set: the history is
	// then decided by the compare-and-set sweep (cas.go).
	cas bool
	// anyInit lets the register start with any value (a window, see
	// window.go).
	anyInit bool
}

// op returns the operation messages name for position pos (Options.Shown).
func (p *problem) op(pos int) *history.Op {
	if p.shown != nil {
		return p.shown(pos)
	}
	return &p.h.Ops[pos]
}

// Check decides whether h, a single-register read/write history, is
// linearizable. Failed operations are ignored, reads of unknown outcome
// dropped, and writes of unknown outcome may take effect at any time after
// their call, or never. When ctx is done first the verdict is Unknown and
// Reason says how far the programme got. The error is non-nil for input the
// register rejects (an unknown operation, a write without a value). Tied
// times overlap: a caller whose history has a process's operations touching
// (history.RealTime.Touching) must order them otherwise, as the
// linearizability checker does by leaving such histories to its search.
func Check(ctx context.Context, h *history.History, opts Options) (checker.Result, error) {
	return check(ctx, h, opts, casPasses{narrow: narrowing{width: narrowWidth, gap: narrowGap}, windows: windowSpans(), exact: true})
}

// check is Check with the compare-and-set sweep's passes given.
func check(ctx context.Context, h *history.History, opts Options, passes casPasses) (checker.Result, error) {
	start := time.Now()
	res := checker.Result{Criterion: checker.Linearizable, Method: Method}
	p, err := prepare(h, opts)
	if err != nil {
		return res, err
	}
	res.Stats.Partitions = 1
	res.Stats.Ops = p.nOps - len(p.dropped)
	var sw sweeper
	if p.cas {
		sw = &casTwoPass{p: p, grow: opts.Grow, casPasses: passes}
	} else {
		sw = newSearch(p)
	}
	return conclude(ctx, p, sw, res, start)
}

// sweeper is one of the two sweeps: read/write (search.go) and
// compare-and-set (cas.go).
type sweeper interface {
	run(ctx context.Context) outcome
	// witness returns a linearization after outFound, and which
	// operations it uses.
	witness() ([]int, []bool, error)
	// violation describes the failure after outRefuted.
	violation() checker.Violation
	// gaveUp says why the sweep stopped on its own, or "".
	gaveUp() string
	// progress returns the event reached, the configurations explored and
	// the most alive at once.
	progress() (at int, states, peak int64)
}

// conclude runs sw and puts its outcome into res.
func conclude(ctx context.Context, p *problem, sw sweeper, res checker.Result, start time.Time) (checker.Result, error) {
	out := sw.run(ctx)
	at, states, peak := sw.progress()
	res.Stats.States = states
	res.Stats.MemoSize = peak
	res.Elapsed = time.Since(start)
	switch out {
	case outFound:
		order, used, err := sw.witness()
		if err != nil {
			return res, fmt.Errorf("regdp: %w", err)
		}
		res.Valid = checker.True
		res.Witness = order
		res.Dropped = append(res.Dropped, p.dropped...)
		for i := range p.ops {
			if p.ops[i].kind == kCrash && !used[i] {
				res.Dropped = append(res.Dropped, p.ops[i].pos)
			}
		}
		sort.Ints(res.Dropped)
	case outRefuted:
		res.Valid = checker.False
		res.Violations = []checker.Violation{sw.violation()}
	default:
		res.Valid = checker.Unknown
		if why := sw.gaveUp(); why != "" {
			res.Reason = why
			break
		}
		what := "cancelled"
		if ctx.Err() == context.DeadlineExceeded {
			what = "timed out"
		}
		res.Reason = fmt.Sprintf("%s after %s at event %d of %d (%d configurations explored, at most %d at once)",
			what, res.Elapsed.Round(time.Millisecond), at, len(p.events), states, peak)
	}
	return res, nil
}

// prepare compiles h for the register and lays out its events: calls before
// returns at equal times (intervals are closed), as the other engines do.
func prepare(h *history.History, opts Options) (*problem, error) {
	if model.UsesVersions(h) {
		// The sweep assumes values alone identify writes; with versions,
		// writes also follow the version order.
		return nil, errors.New("regdp: the history's operations carry versions, which the register sweep does not read; check it with package linear")
	}
	mopts := model.Options{Init: opts.Init}
	if opts.NilAny {
		mopts.NilRead = model.NilIsAny
	}
	isCAS := hasCAS(h)
	m := model.NewRegister(mopts)
	if isCAS {
		m = model.NewCASRegister(mopts)
	}
	rw := m.(model.ReadWriteRegister)
	c, err := checker.Compile(m, h, nil, nil, true)
	if err != nil {
		return nil, fmt.Errorf("model register: %w", err)
	}
	p := &problem{h: h, dropped: append([]int(nil), c.Dropped...), nOps: len(c.Ops) + len(c.Dropped), shown: opts.Shown, cas: isCAS}
	dense := map[int64]int32{}
	valIdx := func(id int64) int32 {
		d, ok := dense[id]
		if !ok {
			d = int32(len(p.vals))
			dense[id] = d
			p.vals = append(p.vals, c.Table.Value(id))
		}
		return d
	}
	p.init = valIdx(m.Init(c.Table))
	type timed struct {
		t   int64
		ret bool
		op  int32
	}
	var evs []timed
	for i := range c.Ops {
		o := &c.Ops[i]
		r := rop{val: valIdx(o.A), from: blind, pos: c.Pos[i], ret: -1, slot: -1}
		cl := rw.Class(o)
		if cl == model.OtherOp && isCAS && m.Info().ClassOf(p.h.Ops[c.Pos[i]].F) == model.CASOp {
			r.from, r.val = r.val, valIdx(o.B)
			cl = model.WriteOp
		}
		switch cl {
		case model.ReadOp:
			r.kind = kRead
		case model.WriteOp:
			r.kind = kWrite
			if o.Unknown {
				r.kind = kCrash
			}
		case model.AnyReadOp:
			if o.Unknown {
				// A read of unknown outcome observed nothing.
				p.dropped = append(p.dropped, c.Pos[i])
				continue
			}
			r.kind = kAny
		default:
			return nil, fmt.Errorf("regdp: operation %s is neither a read nor a write", p.op(c.Pos[i]).Label())
		}
		n := int32(len(p.ops))
		p.ops = append(p.ops, r)
		evs = append(evs, timed{o.Call, false, n})
		if r.kind != kCrash {
			evs = append(evs, timed{o.Return, true, n})
		}
	}
	sort.Slice(evs, func(a, b int) bool {
		x, y := evs[a], evs[b]
		if x.t != y.t {
			return x.t < y.t
		}
		if x.ret != y.ret {
			return !x.ret
		}
		return x.op < y.op
	})
	p.events = make([]event, len(evs))
	for i, e := range evs {
		p.events[i] = event{op: e.op, ret: e.ret}
		if e.ret {
			p.ops[e.op].ret = int32(i)
		} else {
			p.ops[e.op].call = int32(i)
		}
	}
	return p, nil
}

func describe(v history.Value) string {
	if v.IsNone() {
		return "unset"
	}
	return v.String()
}

// shownValue is the value a violation gives for what op read or wrote: its
// value in the history checked, or with Options.Shown that of the
// operation shown in its place (a read without a value reads nil).
func (p *problem) shownValue(op *rop) history.Value {
	if p.shown == nil {
		return p.vals[op.val]
	}
	if v := p.shown(op.pos).Value; !v.IsNone() {
		return v
	}
	return history.NilValue
}
