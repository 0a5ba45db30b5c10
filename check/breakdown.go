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

// breakdownOtherMaxOps bounds the keyed histories with operations other
// than reads and blind writes (appends, compare-and-sets) whose keys are
// checked one by one: refuting such a key alone can take a search much
// longer than the whole history's check, which stops at the first key
// that fails (Porcupine's 405-operation c10-bad: 8 keys of 10 counted in
// about a millisecond; its 2,000-operation c50-bad: seconds).
const breakdownOtherMaxOps = 1_000

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
// is checked here (the whole history's check stops at the first key that
// fails), those with appends or compare-and-sets only in a history of at
// most breakdownOtherMaxOps operations, and their reads are not counted. It returns nil when the
// history has fewer than two keys, is too long, or a check gives no
// verdict.
func keyBreakdown(ctx context.Context, objs []object, verdicts []checker.Verdict, h *history.History, mopts model.Options, sopts suite.Options, timeout time.Duration) *KeyCounts {
	if len(h.Ops) > breakdownMaxOps {
		return nil
	}
	parts := keyParts(objs, verdicts, h)
	if len(parts) < 2 {
		return nil
	}
	b := &breakdown{ctx: ctx, h: h, mopts: mopts, sopts: sopts, timeout: timeout}
	b.kc.Keys = len(parts)
	for _, p := range parts {
		if !b.add(p) {
			return nil
		}
	}
	return &b.kc
}

// keyPart is one key's operations (positions in the whole history) with
// its model, and its verdict when it was checked on its own already
// (Unknown: not checked yet).
type keyPart struct {
	m       suite.Model
	pos     []int
	verdict checker.Verdict
}

// keyParts splits the history by key: the objects when each key has a
// model of its own, else the keys of the one keyed model. It returns nil
// when the history cannot be broken down.
func keyParts(objs []object, verdicts []checker.Verdict, h *history.History) []keyPart {
	var parts []keyPart
	if len(objs) != 1 || objs[0].perKey {
		if len(verdicts) != len(objs) {
			return nil
		}
		for i, o := range objs {
			parts = append(parts, keyPart{m: o.model, pos: o.pos, verdict: verdicts[i]})
		}
		return parts
	}
	keys, groups := checker.Partition(h)
	if len(keys) < 2 {
		return nil
	}
	if len(h.Ops) > breakdownOtherMaxOps {
		info := objs[0].model.Info
		for i := range h.Ops {
			if c := info.ClassOf(h.Ops[i].F); c != model.ReadOp && c != model.WriteOp {
				return nil
			}
		}
	}
	for _, g := range groups {
		parts = append(parts, keyPart{m: objs[0].model, pos: g})
	}
	return parts
}

// breakdown checks the keys of one history one by one and counts.
type breakdown struct {
	ctx     context.Context
	h       *history.History
	mopts   model.Options
	sopts   suite.Options
	timeout time.Duration
	work    int // reads checked so far, each weighed by its key's other operations
	kc      KeyCounts
}

// verdict checks the operations at pos for linearizability with m; ok is
// false when the check gives no verdict.
func (b *breakdown) verdict(m suite.Model, pos []int) (v checker.Verdict, ok bool) {
	sub, err := subHistory(b.h, pos)
	if err != nil {
		return checker.Unknown, false
	}
	res, err := runOne(b.ctx, m, sub, checker.Linearizable, b.mopts, b.sopts, b.timeout)
	if err != nil || res.Valid == checker.Unknown {
		return checker.Unknown, false
	}
	return res.Valid, true
}

// add counts one key: whether it fails and, when its reads can be counted,
// how many of them cannot be placed. It returns false when a check gives
// no verdict.
func (b *breakdown) add(p keyPart) bool {
	v, ok := p.verdict, p.verdict != checker.Unknown
	if !ok {
		v, ok = b.verdict(p.m, p.pos)
	}
	if !ok {
		return false
	}
	if v != checker.False {
		return true
	}
	b.kc.Failed++
	others, reads, blind := splitReads(p.m.Info, b.h, p.pos)
	if len(reads) == 0 {
		return true
	}
	if !blind {
		b.kc.ReadsSkipped = true
		return true
	}
	if b.work += len(reads) * (len(others) + 1); b.work > breakdownMaxWork {
		b.kc.ReadsSkipped = true
		return true
	}
	return b.countUnplaced(p.m, others, reads)
}

// splitReads splits a key's operations into its successful reads and the
// others, leaving out reads that failed or whose outcome is unknown (they
// constrain nothing); blind says whether the others are all writes.
func splitReads(info model.Info, h *history.History, pos []int) (others, reads []int, blind bool) {
	blind = true
	for _, i := range pos {
		switch c := info.ClassOf(h.Ops[i].F); {
		case c == model.ReadOp && h.Ops[i].Status == history.OK:
			reads = append(reads, i)
		case c == model.ReadOp:
			// Failed, or its outcome unknown: left out.
		default:
			others = append(others, i)
			blind = blind && c == model.WriteOp
		}
	}
	return others, reads, blind
}

// countUnplaced counts the reads of a failing key that contradict its
// other operations each by itself. It returns false when a check gives no
// verdict.
func (b *breakdown) countUnplaced(m suite.Model, others, reads []int) bool {
	v, ok := b.verdict(m, others)
	if !ok {
		return false
	}
	// When the other operations fail without any read, the reads are not
	// what breaks the key: none of them is counted.
	if v == checker.False {
		return true
	}
	b.kc.Reads += len(reads)
	for _, r := range reads {
		v, ok := b.verdict(m, insertSorted(others, r))
		if !ok {
			return false
		}
		if v == checker.False {
			b.kc.Unplaced++
		}
	}
	return true
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
