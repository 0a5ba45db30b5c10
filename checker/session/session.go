// Package session decides the session guarantees of Terry et al. —
// read-your-writes, monotonic-reads, monotonic-writes, writes-follow-reads —
// and PRAM for read/write histories (register and key-value): the
// guarantees over one write order shared by every session, PRAM one process
// view at a time.
//
// # Definitions
//
// The four guarantees are those of Terry et al. ("Session guarantees for
// weakly consistent replicated data", 1994) in the axiomatic form of Viotti
// and Vukolić ("Consistency in non-transactional distributed storage
// systems", 2016). An abstract execution of the history has a visibility
// vis (the writes each read sees) and one arbitration order ar of all
// writes, shared by every session (Terry et al.'s single write order). Each
// read returns the ar-latest write of its key that it sees, or the initial
// value when it sees none, and:
//
//   - read-your-writes: a read sees every earlier write of its session
//     (so[wr→rd] ⊆ vis);
//   - monotonic-reads: a read sees everything the earlier reads of its
//     session saw (vis;so[rd→rd] ⊆ vis);
//   - monotonic-writes: ar orders each session's writes in session order
//     (so[wr→wr] ⊆ ar);
//   - writes-follow-reads: a write comes, in ar, after every write its
//     session had seen before issuing it (vis;so[rd→wr] ⊆ ar); a read of a
//     write its own session issues later would make that write follow
//     itself.
//
// A read need see nothing beyond what it returned and what the guarantee
// names (more visibility only adds constraints), so each read gives edges
// "older than what it returned" and the guarantee holds iff the edges of all
// sessions together admit one order: a violation is a cycle. Without
// versions, monotonic writes can then fail only on a read of a value nobody
// wrote; with versions, when the versions contradict a session's order.
// The guarantees are checked each on its own: a history can keep all four
// and still fail PRAM.
//
// Checking each session against its own order instead (the reading of an
// earlier version of this package) is weaker: `A: r1 w2 w3 r1; B: w1 r3`
// keeps read-your-writes with one order per session but not with one
// shared order.
//
// PRAM (Lipton and Sandberg): every session has a serialisation of all
// writes and its own operations that keeps every session's order and in
// which each of its reads returns the latest write of its key.
//
// # Older
//
// When every operation carries an explicit version (a number ordered per
// key, like an etcd revision, a read carrying the version it returned),
// versions order each key's writes in ar and the reads of read-your-writes
// and monotonic-reads are checked against them one by one. Otherwise ar is
// inferred from the constraints above, and a violation is a cycle in them.
// Result.Method says which was used.
//
// The tests compare both modes with brute-force deciders written from these
// definitions (package weakref, and the ladder's tests) on thousands of
// random histories.
package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Options are the settings of a session check.
type Options struct {
	Init          history.Value // initial value of every key; None means nil
	MaxViolations int           // violations reported at most; 0 means 10
	// Model says which operations are reads and writes (Info.ClassOf);
	// the zero Info means the register's.
	Model model.Info
	// SearchWork bounds the search over reads-from when values repeat
	// (causal.SearchLimits.Work); 0 means causal.DefaultSearchWork.
	SearchWork int64
}

// Criteria this package decides.
var Criteria = []string{checker.ReadYourWrites, checker.MonotonicReads, checker.MonotonicWrites,
	checker.WritesFollowReads, checker.PRAM}

// Check decides criterion ("read-your-writes", "monotonic-reads",
// "monotonic-writes", "writes-follow-reads" or "pram") for a history of
// reads, writes and cas (see causal.PrepareFor). Any other operation is an
// error wrapping causal.ErrUnsupportedOp.
func Check(ctx context.Context, h *history.History, criterion string, opts Options) (checker.Result, error) {
	start := time.Now()
	known := false
	for _, c := range Criteria {
		known = known || c == criterion
	}
	if !known {
		return checker.Result{}, fmt.Errorf("session: unknown criterion %q (want one of %v)", criterion, Criteria)
	}
	p, err := causal.PrepareFor(h, opts.Model, opts.Init, causal.PreferVersions)
	if err != nil {
		return checker.Result{}, err
	}
	// A read whose value is not its version's write's read a value
	// nobody wrote, for the session guarantees as for the others.
	causal.MatchVersionValues(p)
	res := checker.Result{Criterion: criterion, Dropped: p.Dropped}
	if p.Unknown != "" {
		res.Reason = p.Unknown
		res.Elapsed = time.Since(start)
		return res, nil
	}
	var sr causal.Searched
	if p.Ambiguous() {
		sr, err = causal.Search(ctx, p, func(q *causal.Prepared) (causal.Outcome, error) {
			r := &run{ctx: ctx, p: q, crit: criterion, max: 4}
			err := r.decide()
			return causal.Outcome{Holds: r.count == 0, Count: r.count, Ops: causal.ViolationOps(r.vs)}, err
		}, causal.SearchLimits{Work: opts.SearchWork})
		if done, err := causal.FinishSearch(&res, sr, err, start); done {
			return res, err
		}
		p = sr.P
		res.Dropped, res.ReadsFrom = p.Dropped, p.Choice()
	}
	max := opts.MaxViolations
	if max <= 0 {
		max = 10
	}
	r := &run{ctx: ctx, p: p, max: max, crit: criterion}
	err = r.decide()
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
	if p.Ambiguous() {
		res.Reason += causal.SearchNote(sr)
	}
	return res, nil
}

// decide runs the check of r's criterion.
func (r *run) decide() error {
	if r.crit == checker.PRAM {
		return r.pram()
	}
	return r.guarantee()
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

// report records a violation; facts is only called while under the cap,
// and fills in what the violation's pattern tells (its Op and Session are
// None unless facts sets them).
func (r *run) report(pattern string, ops []int32, facts func(v *checker.Violation)) {
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
	v := checker.Violation{Ops: pos, Pattern: pattern, Op: checker.None, Session: checker.None}
	facts(&v)
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

// pos is the history position of the op at index i.
func (r *run) pos(i int32) int { return r.p.Ops[i].Pos }

// cite records in v the version of the op at index i.
func (r *run) cite(v *checker.Violation, i int32) { v.Cite(r.p.Ops[i].Pos, r.p.Ops[i].Version) }

// citeSteps records in v the versions its steps of version order compare
// (every op carries one when the versions order writes).
func (r *run) citeSteps(v *checker.Violation) {
	for _, s := range v.Steps {
		if s.Rel != checker.RelVersion {
			continue
		}
		for _, pos := range []int{s.From, s.To} {
			n, _ := r.p.H.Ops[pos].Version.Int()
			v.Cite(pos, n)
		}
	}
}

// step is a relation between the ops at indices a and b, with no read,
// write or session named yet.
func (r *run) step(a, b int32, rel checker.Relation) checker.Step {
	return checker.Step{From: r.pos(a), To: r.pos(b), Rel: rel, Via: checker.None, Source: checker.None, Seen: checker.None}
}

// thinAir reports reads of values nobody wrote: no visibility explains them.
func (r *run) thinAir() {
	p := r.p
	for i := range p.Ops {
		o := &p.Ops[i]
		if !o.Write && o.RF == causal.RFThinAir {
			r.report("ThinAirRead", []int32{int32(i)}, func(v *checker.Violation) { v.Op = o.Pos })
		}
	}
}
