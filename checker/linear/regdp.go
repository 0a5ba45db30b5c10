package linear

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/regdp"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// decideRegDP decides with the register sweep (checker/regdp) every
// partition left undecided whose operations the model classifies as reads
// and blind writes of one register, or, for model cas-register, also
// compare-and-sets: the histories with many clients and repeated values on
// which the search explodes. A partition the sweep cannot settle (too many
// distinct values waiting at once, too many configurations in one gap) is
// left to the search. It returns how many partitions it decided.
func decideRegDP[S comparable](ctx context.Context, h *history.History, parts []*part[S], memos *memBudget) int {
	n := 0
	for _, p := range parts {
		// The sweep orders by the recorded times, which tie where a
		// process's operations touch: the search keeps their order.
		if p.done || len(p.comp.Ops) == 0 || p.comp.Touching {
			continue
		}
		rw, ok := any(p.m).(model.ReadWriteRegister)
		init, isID := any(p.init).(int64)
		if !ok || !isID {
			continue
		}
		cas := p.m.Info().Name == casRegister
		if !sweepable(h, p.comp, rw, cas) {
			continue
		}
		// The search settles most compare-and-set registers: the sweep's
		// input is built only for those it does not.
		if cas && searchFirst(ctx, p, memos) {
			continue
		}
		sub, opts, ok := regdpProblem(h, p.comp, rw, init, cas)
		if !ok {
			continue
		}
		var charged int64
		if memos != nil {
			// The sweep's memory counts against the memos' limit.
			opts.Grow = func(bytes int64) bool {
				return memos.fits(bytes-charged) && memos.charge(&charged, bytes)
			}
		}
		res, err := regdp.Check(ctx, sub, opts)
		if memos != nil {
			memos.charge(&charged, 0)
		}
		if err != nil || res.Valid == checker.Unknown {
			continue
		}
		p.direct = &res
		p.settle(res.Valid == checker.True, res.Witness)
		n++
	}
	return n
}

// casSearchSteps is how many steps the search takes on a compare-and-set
// register before the sweep is tried: the search settles histories with
// few clients in a fraction of that, where the sweep's gaps can be wide,
// and explodes with many, where the sweep stays small.
const casSearchSteps = 1 << 19

// searchFirst runs the search on p for casSearchSteps steps, within the
// memos' budget, and settles p when it finishes.
func searchFirst[S comparable](ctx context.Context, p *part[S], memos *memBudget) bool {
	s := newSearcher(p.m, p.comp.Ops, p.init, p.comp.Prev)
	s.budget = memos
	if memos != nil && s.memo != nil {
		s.memo.grows = memos.fits
	}
	var stop atomic.Bool
	done := s.run(ctx, &stop, casSearchSteps) && s.res.err == nil
	if memos != nil {
		memos.charge(&s.charged, 0) // its memo is freed
	}
	if done {
		p.res, p.done = s.res, true
	}
	return done
}

// regdpProblem builds the sweep's input from a partition: its operations in
// partition order (so positions in the sub-history are indices into
// c.Ops), reads that are legal in every state given nil as
// their value with NilAny set, and the initial value recovered from an
// operation that names its id (or, when none does, a value no operation
// has). Equal values have equal ids, so the sweep sees the same equalities
// the model does.
func regdpProblem(h *history.History, c *checker.Compiled, rw model.ReadWriteRegister, init int64, cas bool) (*history.History, regdp.Options, bool) {
	var opts regdp.Options
	if !sweepable(h, c, rw, cas) {
		return nil, opts, false
	}
	isCAS := func(i int) bool { return cas && casInfo().ClassOf(h.Ops[c.Pos[i]].F) == model.CASOp }
	sub := &history.History{Ops: make([]history.Op, len(c.Ops))}
	values := make(map[history.Value]bool)
	for i := range c.Ops {
		values[h.Ops[c.Pos[i]].Value] = true
	}
	// fresh returns a value no operation has, for nil read or written as a
	// plain value (the sweep takes a nil read as "any") and for an initial
	// value nothing names.
	fresh := func(base string) history.Value {
		v := history.StringValue(base)
		for values[v] {
			v = history.StringValue(v.Text() + "'")
		}
		values[v] = true
		return v
	}
	var plainNil history.Value
	// plain recodes nil, read or written as a plain value.
	plain := func(v history.Value) history.Value {
		if !v.IsNil() {
			return v
		}
		if plainNil.IsNone() {
			plainNil = fresh("\x00nil")
		}
		return plainNil
	}
	for i := range c.Ops {
		o := h.Ops[c.Pos[i]]
		// The model classified these as blind writes and plain reads, so it
		// did not read versions; neither does the sweep.
		o.Version = history.Value{}
		if isCAS(i) {
			// A cas from or to nil means the value nil, as a write of it.
			e := o.Value.Elems()
			o.Value = history.ListValue(plain(e[0]), plain(e[1]))
			if opts.Init.IsNone() && c.Ops[i].A == init {
				opts.Init = o.Value.Elems()[0]
			} else if opts.Init.IsNone() && c.Ops[i].B == init {
				opts.Init = o.Value.Elems()[1]
			}
			sub.Ops[i] = o
			continue
		}
		switch rw.Class(&c.Ops[i]) {
		case model.ReadOp:
			if o.Value.IsNone() {
				o.Value = history.NilValue
			}
			o.Value = plain(o.Value)
		case model.AnyReadOp:
			// A read of unknown outcome (which the sweep ignores) or one
			// legal in every state: nil under NilAny says exactly that.
			o.Value = history.NilValue
			if o.Status != history.Info {
				opts.NilAny = true
			}
		case model.WriteOp:
			o.Value = plain(o.Value)
		default:
			return nil, opts, false
		}
		if cl := rw.Class(&c.Ops[i]); opts.Init.IsNone() && (cl == model.ReadOp || cl == model.WriteOp) && c.Ops[i].A == init {
			opts.Init = o.Value
		}
		sub.Ops[i] = o
	}
	if opts.Init.IsNone() {
		opts.Init = fresh("\x00initial value")
	}
	// The values above are the sweep's own: its violations show the
	// operations as the user wrote them (a read of nil as r(nil)).
	opts.Shown = func(pos int) *history.Op { return &h.Ops[c.Pos[pos]] }
	return sub, opts, true
}

// sweepable reports whether the sweep takes every operation of c: reads
// and blind writes of the register, and, when cas, compare-and-sets. It
// looks before anything is built: most partitions of a key-value history
// with appends end here.
func sweepable(h *history.History, c *checker.Compiled, rw model.ReadWriteRegister, cas bool) bool {
	for i := range c.Ops {
		switch rw.Class(&c.Ops[i]) {
		case model.ReadOp, model.AnyReadOp, model.WriteOp:
		default:
			if !cas || casInfo().ClassOf(h.Ops[c.Pos[i]].F) != model.CASOp {
				return false
			}
		}
	}
	return true
}

// casInfo is the cas-register's Info, which names its compare-and-sets.
var casInfo = sync.OnceValue(func() model.Info { return model.NewCASRegister(model.Options{}).Info() })

// casRegister is the name of the model whose compare-and-sets the sweep
// decides: expected value first, then the value set.
const casRegister = "cas-register"

// directViolations maps the sweep's violations back to positions in the
// whole history.
func directViolations[S comparable](p *part[S], keyed bool) []checker.Violation {
	var vs []checker.Violation
	for _, v := range p.direct.Violations {
		v = v.MapOps(func(x int) int { return p.comp.Pos[x] })
		if keyed {
			v.Key = p.key.String()
		}
		vs = append(vs, v)
	}
	return vs
}
