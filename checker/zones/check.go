package zones

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// ErrNotApplicable is returned by Check for a history that is not made of
// reads and writes of unique values.
var ErrNotApplicable = errors.New("zones: the history is not made of reads and writes of unique values per key")

// registerModel picks the model a history of reads and writes is checked
// against: the key-value store when operations carry keys, else the
// register.
func registerModel(h *history.History, init history.Value, nilAny bool) model.Model[int64] {
	// With versions, writes are not blind (they follow the version order),
	// so the models classify them as other operations and zones does not
	// apply: it assumes values alone identify writes.
	o := model.Options{Init: init, Versions: model.UsesVersions(h)}
	if nilAny {
		o.NilRead = model.NilIsAny
	}
	for i := range h.Ops {
		if !h.Ops[i].Key.IsNone() {
			return model.NewKV(o)
		}
	}
	return model.NewRegister(o)
}

// part is one key's operations, compiled.
type part struct {
	key  history.Value
	m    model.Model[int64]
	comp *checker.Compiled
	init int64
}

func compileParts(h *history.History, m model.Model[int64]) ([]part, error) {
	var keys []history.Value
	var groups [][]int
	if m.Info().Keyed {
		keys, groups = checker.Partition(h)
	} else {
		keys, groups = []history.Value{{}}, [][]int{nil}
	}
	parts := make([]part, len(groups))
	for i, g := range groups {
		pm := m
		if f, ok := m.(model.Forker[int64]); ok {
			pm = f.Fork()
		}
		c, err := checker.Compile(pm, h, g, nil, true)
		if err != nil {
			return nil, fmt.Errorf("model %s: %w", m.Info().Name, err)
		}
		parts[i] = part{key: keys[i], m: pm, comp: c, init: pm.Init(c.Table)}
	}
	return parts, nil
}

func applicable(parts []part) bool {
	for _, p := range parts {
		rw, ok := p.m.(model.ReadWriteRegister)
		if !ok || p.comp.Touching || !Applicable(p.comp.Ops, rw, p.init) {
			return false
		}
	}
	return true
}

// Applies reports whether Check can decide h: every operation that did not
// fail is a read or a write (with keys, of the key-value store), and on each
// key no value is written twice nor is the initial value init written. A
// history the models reject does not apply.
func Applies(h *history.History, init history.Value) bool {
	parts, err := compileParts(h, registerModel(h, init, false))
	return err == nil && applicable(parts)
}

// Check decides whether h, a history of reads and writes of unique values
// (see Applies), is linearizable for a register (or, with keys, a map of
// registers) starting at init; with nilAny a read of nil is accepted in
// every state. The result carries a witness order when it is, and the at
// most six operations of two conflicting clusters when it is not. The
// error is ErrNotApplicable, an input error, or ctx's error.
func Check(ctx context.Context, h *history.History, init history.Value, nilAny bool) (checker.Result, error) {
	start := time.Now()
	res := checker.Result{Criterion: checker.Linearizable, Method: Method}
	m := registerModel(h, init, nilAny)
	parts, err := compileParts(h, m)
	if err != nil {
		return res, err
	}
	if !applicable(parts) {
		return res, ErrNotApplicable
	}
	res.Stats.Partitions = len(parts)
	type point struct {
		at        int64
		part, seq int
		pos       int
	}
	var all []point
	for pi, p := range parts {
		res.Stats.Ops += len(p.comp.Ops)
		res.Dropped = append(res.Dropped, p.comp.Dropped...)
		out, err := Decide(ctx, p.comp.Ops, p.m.(model.ReadWriteRegister), p.init)
		if err != nil {
			return res, err
		}
		if !out.Linearizable {
			res.Valid = checker.False
			res.Violations = []checker.Violation{Violation(&out, h, p.comp, p.m, m.Info().Keyed, p.key)}
			res.Elapsed = time.Since(start)
			return res, nil
		}
		inOrder := make([]bool, len(p.comp.Ops))
		for seq, j := range out.Order {
			inOrder[j] = true
			all = append(all, point{out.Points[seq], pi, seq, p.comp.Pos[j]})
		}
		for j, pos := range p.comp.Pos {
			if !inOrder[j] {
				res.Dropped = append(res.Dropped, pos)
			}
		}
	}
	// Points respect real time across keys too, so one sort merges them.
	slices.SortFunc(all, func(x, y point) int {
		if c := cmp.Compare(x.at, y.at); c != 0 {
			return c
		}
		if c := cmp.Compare(x.part, y.part); c != 0 {
			return c
		}
		return cmp.Compare(x.seq, y.seq)
	})
	res.Witness = make([]int, len(all))
	for i, p := range all {
		res.Witness[i] = p.pos
	}
	sort.Ints(res.Dropped)
	res.Valid = checker.True
	res.Elapsed = time.Since(start)
	return res, nil
}

// Violation gives the facts of a refutation of one object (compiled as c
// by m) for a result: the operations as positions in h, the read and its
// value, or the zones that cannot both hold.
func Violation[S comparable](out *Outcome, h *history.History, c *checker.Compiled, m model.Model[S], keyed bool, key history.Value) checker.Violation {
	v := checker.Violation{Pattern: out.Kind.String(), Op: checker.None}
	if keyed {
		v.Key = key.String()
	}
	for _, j := range out.Ops() {
		v.Ops = append(v.Ops, c.Pos[j])
	}
	pos := func(j int) int {
		if j < 0 {
			return checker.None
		}
		return c.Pos[j]
	}
	// Values as the model describes them.
	value := func(id int64) string {
		var s S
		if p, ok := any(&s).(*int64); ok {
			*p = id
			return m.Describe(s, c.Table)
		}
		return fmt.Sprint(id)
	}
	zone := func(z *Zone) checker.Zone {
		return checker.Zone{Value: value(z.Value), Initial: z.IsInitialValue, Write: pos(z.Write),
			From: z.From, To: z.To, FromOp: pos(z.FromOp), ToOp: pos(z.ToOp)}
	}
	switch out.Kind {
	case ThinAir:
		v.Op, v.Value = pos(out.Read), value(out.A.Value)
	case ReadBeforeWrite:
		v.Op, v.Value, v.Source = pos(out.Read), value(out.A.Value), pos(out.A.Write)
	case Overlap, Inside:
		v.Zones = []checker.Zone{zone(&out.A), zone(&out.B)}
	}
	return v
}

// String names the kind as violation patterns do.
func (k Kind) String() string {
	switch k {
	case ThinAir:
		return "thin-air-read"
	case ReadBeforeWrite:
		return "read-before-write"
	case Overlap:
		return "overlapping-zones"
	case Inside:
		return "zone-inside-zone"
	}
	return "unknown"
}
