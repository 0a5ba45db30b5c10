// Package session decides the session guarantees of Terry et al. —
// read-your-writes, monotonic-reads, monotonic-writes, writes-follow-reads —
// and PRAM for read/write histories (register and key-value), one session
// (process) at a time.
//
// # Definitions
//
// Each session s is an observer with its own order ar_s of all writes (so
// different sessions may disagree: agreeing is convergence, checked by
// causal-convergence). Each read r of s on key x sees a set V(r) of writes
// and must return the ar_s-latest write of x in V(r), or the initial value
// when V(r) holds no write of x. A guarantee holds when every session has
// such an ar_s, with V(r) ⊇ {rf(r)} plus what the guarantee makes s know:
//
//   - read-your-writes: s's own earlier writes;
//   - monotonic-reads: the writes s's earlier reads returned;
//   - monotonic-writes: every write that precedes, in its own session, a
//     write that s has read so far (r included), and ar_s orders each
//     session's writes in session order;
//   - writes-follow-reads: every write read by a session before it issued a
//     write that s has read so far (r included), transitively, and ar_s puts
//     the writes a session read before the writes it issued afterwards (so a
//     read of a write its own session issues later is a violation).
//
// Monotonic writes and writes-follow-reads are observable with single-key
// reads only through what a session accumulates, so s's knowledge grows
// with each read; the writes s read directly are monotonic-reads' business
// and do not by themselves constrain these two. Each guarantee is checked on
// its own, with its own order per session: a history can keep all four and
// still fail PRAM, which needs one view per session for all of them.
//
// PRAM (Lipton and Sandberg): every session has a serialisation of all
// writes and its own operations that keeps every session's order and in
// which each of its reads returns the latest write of its key.
//
// # Older
//
// When every operation carries an explicit version (a number ordered per
// key, like an etcd revision, a read carrying the version it returned),
// "older" is given and each read is checked on its own. Otherwise the order
// each session must have is inferred from the constraints above, and a
// violation is a cycle in them. Result.Method says which was used.
//
// The tests compare both modes with brute-force deciders written from these
// definitions on thousands of random histories.
package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/history"
)

// Options are the settings of a session check.
type Options struct {
	Init          history.Value // initial value of every key; None means nil
	MaxViolations int           // violations reported at most; 0 means 10
}

// Criteria this package decides.
var Criteria = []string{checker.ReadYourWrites, checker.MonotonicReads, checker.MonotonicWrites,
	checker.WritesFollowReads, checker.PRAM}

// Check decides criterion ("read-your-writes", "monotonic-reads",
// "monotonic-writes", "writes-follow-reads" or "pram") for a read/write
// history. An operation other than a read or a write is an error wrapping
// causal.ErrUnsupportedOp.
func Check(ctx context.Context, h *history.History, criterion string, opts Options) (checker.Result, error) {
	start := time.Now()
	known := false
	for _, c := range Criteria {
		known = known || c == criterion
	}
	if !known {
		return checker.Result{}, fmt.Errorf("session: unknown criterion %q (want one of %v)", criterion, Criteria)
	}
	p, err := causal.Prepare(h, opts.Init, causal.PreferVersions)
	if err != nil {
		return checker.Result{}, err
	}
	res := checker.Result{Criterion: criterion, Dropped: p.Dropped}
	if p.Unknown != "" {
		res.Reason = p.Unknown
		res.Elapsed = time.Since(start)
		return res, nil
	}
	max := opts.MaxViolations
	if max <= 0 {
		max = 10
	}
	r := &run{ctx: ctx, p: p, max: max, crit: criterion}
	if criterion == checker.PRAM {
		err = r.pram()
	} else {
		err = r.guarantee()
	}
	older := "inferred from the constraints each session must satisfy"
	res.Method = "session-inferred"
	if p.Versioned {
		older = "given by explicit versions"
		res.Method = "session-versions"
	}
	res.Stats = checker.Stats{Ops: len(p.Ops), Partitions: len(p.Procs)}
	res.Elapsed = time.Since(start)
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) && r.count == 0 {
		res.Reason = "check interrupted: " + err.Error()
		return res, nil
	} else if err != nil && r.count == 0 {
		return res, err
	}
	res.Violations = r.vs
	if r.count > 0 {
		res.Valid = checker.False
		res.Reason = fmt.Sprintf("%d violation(s) of %s found; older is %s", r.count, criterion, older)
		if r.count > len(r.vs) {
			res.Reason += fmt.Sprintf("; the first %d are shown", len(r.vs))
		}
	} else {
		res.Valid = checker.True
		res.Reason = fmt.Sprintf("every session satisfies %s; older is %s", criterion, older)
	}
	return res, nil
}

type run struct {
	ctx   context.Context
	p     *causal.Prepared
	max   int
	crit  string
	count int
	vs    []checker.Violation
	seen  map[string]bool
}

func (r *run) report(pattern string, ops []int32, build func() string) {
	pos := r.p.Positions(ops...)
	key := pattern + fmt.Sprint(pos)
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	if r.seen[key] {
		return
	}
	r.seen[key] = true
	r.count++
	if len(r.vs) >= r.max {
		return
	}
	v := checker.Violation{Ops: pos, Pattern: pattern, Explanation: build()}
	k := r.p.Ops[ops[0]].Key
	same := true
	for _, o := range ops {
		same = same && r.p.Ops[o].Key == k
	}
	if same && !r.p.Keys[k].IsNone() {
		v.Key = r.p.Keys[k].String()
	}
	r.vs = append(r.vs, v)
}

// thinAir reports reads of values nobody wrote: no visibility explains them.
func (r *run) thinAir() {
	p := r.p
	for i := range p.Ops {
		o := &p.Ops[i]
		if !o.Write && o.RF == causal.RFThinAir {
			i := int32(i)
			r.report("ThinAirRead", []int32{i}, func() string {
				return fmt.Sprintf("%s returned %s, which no write of %s wrote and which is not the initial value",
					p.Label(i), p.H.Ops[o.Pos].Value, p.KeyName(o.Key))
			})
		}
	}
}
