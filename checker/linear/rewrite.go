package linear

import (
	"context"

	"github.com/histcheck/histcheck/checker/zones"
	"github.com/histcheck/histcheck/model"
)

// A register whose written values are all distinct but for one write of
// the initial value is out of the zones algorithm's reach as it stands: a
// read of the initial value may read the register before any write, or
// after the rewrite. Often the times settle which: a read called after
// some write returned cannot precede every write, and a read that returned
// before the rewrite was called cannot follow it. When every read of the
// initial value is settled so, giving the rewrite and the reads that
// follow it a value of their own makes a history of unique values that is
// linearizable exactly when the original is (the last write before such a
// read is the rewrite in every order), and zones decides it; its witness
// is one of the original too.

// initRewrite returns ops with the one write of init and the reads it must
// have given their value renamed to fresh, an id no operation has, and
// whether the renaming applies: one write of init, and no read of init
// that could come either before every write or after the rewrite.
func initRewrite(ops []model.Op, rw model.ReadWriteRegister, init int64) ([]model.Op, int64, bool) {
	rewrite := -1
	firstReturn := int64(0)
	completed := false
	fresh := init
	for i := range ops {
		o := &ops[i]
		fresh = max(fresh, o.A)
		if rw.Class(o) != model.WriteOp {
			continue
		}
		if o.A == init {
			if rewrite >= 0 {
				return nil, 0, false
			}
			rewrite = i
		}
		if !o.Unknown && (!completed || o.Return < firstReturn) {
			firstReturn, completed = o.Return, true
		}
	}
	if rewrite < 0 || fresh == maxID {
		return nil, 0, false
	}
	fresh++
	out := append([]model.Op(nil), ops...)
	out[rewrite].A = fresh
	for i := range out {
		o := &out[i]
		if rw.Class(o) != model.ReadOp || o.A != init {
			continue
		}
		// Tied times overlap, so only a strict order of times rules a
		// side out.
		before := !completed || o.Call <= firstReturn
		after := o.Return >= ops[rewrite].Call
		switch {
		case before && after:
			return nil, 0, false
		case after:
			o.A = fresh
		}
	}
	return out, fresh, true
}

// maxID is the largest value id.
const maxID = int64(^uint64(0) >> 1)

// decideRewritten decides with zones a partition's operations that
// initRewrite renames, and gives the outcome's values back their names. It
// reports false when the renaming does not apply.
func decideRewritten(ctx context.Context, ops []model.Op, rw model.ReadWriteRegister, init int64) (zones.Outcome, bool, error) {
	ops, fresh, ok := initRewrite(ops, rw, init)
	if !ok || !zones.Applicable(ops, rw, init) {
		return zones.Outcome{}, false, nil
	}
	out, err := zones.Decide(ctx, ops, rw, init)
	if err != nil {
		return out, false, err
	}
	for _, z := range []*zones.Zone{&out.A, &out.B} {
		if z.Value == fresh {
			z.Value = init
		}
	}
	return out, true, nil
}
