package check

import (
	"context"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// breakdownMaxOps bounds the histories whose failing linearizability is
// broken down by key: the count checks each failing key's reads one by
// one, which is cheap for a scenario's thousand operations but not meant
// for a long test run.
const breakdownMaxOps = 20_000

// breakdownMaxWork bounds the operations the read count checks in all (each
// read is checked with its key's writes); past it, reads are not counted.
const breakdownMaxWork = 200_000

// The breakdown asks each key's model what its operations do
// (model.Info.ClassOf): a key whose operations other than reads are all
// writes has reads that can be placed or not one by one. Keys with appends
// or compare-and-sets are not counted; reads that failed or whose outcome
// is unknown constrain nothing.

// keyBreakdown counts, for a keyed history that is not linearizable, how
// many keys fail on their own and how many reads on those keys cannot be
// placed: a read is unplaced when the key's operations other than reads
// are linearizable, but not with that read added, so the read contradicts
// its key's writes by itself. Reads are counted only on keys whose other
// operations are blind writes that pass on their own, and only up to
// breakdownMaxWork. verdicts are the objects' verdicts when each was
// checked on its own (a model per key); for one keyed model (kv) each key
// is checked here, and only when every operation is a read or a blind
// write, since keys with appends or compare-and-sets can take long to
// check one by one. It returns nil when the history has fewer than two
// keys, is too long, or a check gives no verdict.
func keyBreakdown(ctx context.Context, objs []object, verdicts []checker.Verdict, h *history.History, mopts model.Options, sopts suite.Options, timeout time.Duration) *KeyCounts {
	if len(h.Ops) > breakdownMaxOps {
		return nil
	}
	type part struct {
		m       suite.Model
		pos     []int
		verdict checker.Verdict // Unknown: not checked yet
	}
	var parts []part
	if len(objs) == 1 && !objs[0].perKey {
		keys, groups := checker.Partition(h)
		if len(keys) < 2 {
			return nil
		}
		info := objs[0].model.Info
		for i := range h.Ops {
			if c := info.ClassOf(h.Ops[i].F); c != model.ReadOp && c != model.WriteOp {
				return nil
			}
		}
		for _, g := range groups {
			parts = append(parts, part{m: objs[0].model, pos: g})
		}
	} else {
		if len(verdicts) != len(objs) {
			return nil
		}
		for i, o := range objs {
			parts = append(parts, part{m: o.model, pos: o.pos, verdict: verdicts[i]})
		}
	}
	if len(parts) < 2 {
		return nil
	}
	kc := &KeyCounts{Keys: len(parts)}
	work := 0
	verdict := func(m suite.Model, pos []int) (checker.Verdict, bool) {
		sub, err := subHistory(h, pos)
		if err != nil {
			return checker.Unknown, false
		}
		res, err := runOne(ctx, m, sub, checker.Linearizable, mopts, sopts, timeout)
		if err != nil || res.Valid == checker.Unknown {
			return checker.Unknown, false
		}
		return res.Valid, true
	}
	for _, p := range parts {
		v, ok := p.verdict, p.verdict != checker.Unknown
		if !ok {
			v, ok = verdict(p.m, p.pos)
		}
		if !ok {
			return nil
		}
		if v != checker.False {
			continue
		}
		kc.Failed++
		var others, reads []int
		blind := true
		for _, i := range p.pos {
			switch c := p.m.Info.ClassOf(h.Ops[i].F); {
			case c == model.ReadOp && h.Ops[i].Status == history.OK:
				reads = append(reads, i)
			case c == model.ReadOp:
				// A read that failed or whose outcome is unknown
				// constrains nothing.
			default:
				others = append(others, i)
				blind = blind && c == model.WriteOp
			}
		}
		if len(reads) == 0 {
			continue
		}
		if !blind {
			kc.ReadsSkipped = true
			continue
		}
		if work += len(reads) * (len(others) + 1); work > breakdownMaxWork {
			kc.ReadsSkipped = true
			continue
		}
		// When the other operations fail without any read, the reads are
		// not what breaks the key: none of them is counted.
		if v, ok := verdict(p.m, others); !ok {
			return nil
		} else if v == checker.False {
			continue
		}
		kc.Reads += len(reads)
		for _, r := range reads {
			pos := insertSorted(others, r)
			v, ok := verdict(p.m, pos)
			if !ok {
				return nil
			}
			if v == checker.False {
				kc.Unplaced++
			}
		}
	}
	return kc
}

// insertSorted returns the positions xs (ascending) with x added in order.
func insertSorted(xs []int, x int) []int {
	out := make([]int, 0, len(xs)+1)
	i := 0
	for ; i < len(xs) && xs[i] < x; i++ {
		out = append(out, xs[i])
	}
	out = append(out, x)
	return append(out, xs[i:]...)
}
