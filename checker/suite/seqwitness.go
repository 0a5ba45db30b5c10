package suite

import (
	"context"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// MethodSequentialWitness is the Method of a weak criterion decided from the
// reads-from of a sequential witness, after the search over reads-from ran
// out of its budget.
const MethodSequentialWitness = "sequential-witness"

// fromSequential tries to decide a weak criterion that the search over
// reads-from left unknown. A sequential witness fixes which write each read
// read (the latest before it, or the initial value), and sequential
// consistency implies every weak criterion of read/write registers, so the
// history relabelled by that choice is checked without any search. The
// answer is exact whenever it is true (a choice was found that satisfies
// the criterion); otherwise ok is false and the unknown verdict stands.
func fromSequential(ctx context.Context, seqCheck CheckFunc, info model.Info, h *history.History, criterion string,
	init history.Value, mopts model.Options, opts Options) (checker.Result, bool) {
	seq, err := seqCheck(ctx, h, checker.Sequential, mopts, opts)
	if err != nil || seq.Valid != checker.True || len(seq.Witness) == 0 {
		return checker.Result{}, false
	}
	rf, dropped := readsFromOrder(info, h, seq.Witness)
	again, err := weakCheck(ctx, info, causal.Relabel(h, info, init, rf, dropped), criterion, init, opts)
	if err != nil || again.Valid != checker.True {
		return checker.Result{}, false
	}
	again.ReadsFrom, again.Dropped = rf, dropped
	again.Method = MethodSequentialWitness
	return again, true
}

// readsFromOrder returns, for an order of h's operations, the write each
// read (and each cas's read half) reads in it, and the operations of
// unknown outcome the order leaves out.
func readsFromOrder(info model.Info, h *history.History, order []int) (rf []checker.ReadFrom, dropped []int) {
	last := map[string]int{}
	in := make([]bool, len(h.Ops))
	for _, i := range order {
		in[i] = true
		o := &h.Ops[i]
		key := o.Key.String()
		class := info.ClassOf(o.F)
		if class == model.ReadOp || class == model.CASOp {
			w, ok := last[key]
			if !ok {
				w = checker.Initial
			}
			if o.Status == history.OK || class == model.CASOp {
				rf = append(rf, checker.ReadFrom{Read: i, Write: w})
			}
		}
		if class == model.WriteOp || class == model.CASOp {
			last[key] = i
		}
	}
	for i := range h.Ops {
		if !in[i] && h.Ops[i].Status == history.Info {
			dropped = append(dropped, i)
		}
	}
	return rf, dropped
}
