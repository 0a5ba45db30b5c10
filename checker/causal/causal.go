// Package causal decides causal consistency (CC), causal memory (CM) and
// causal convergence (CCv) of read/write histories in polynomial time, by
// searching for the bad patterns of Bouajjani, Enea, Guerraoui and Hamza
// ("On verifying causal consistency", POPL 2017).
//
// The patterns are exact for differentiated histories, where each read can
// be matched to the one write it read: every written value is unique per key
// and differs from the initial value, or every operation carries an explicit
// version. Other histories get the verdict unknown with the reason.
//
// When the operations carry versions (model.UsesVersions; Prepare applies
// the same rule), reads-from comes from the versions and the version order
// vo of each key's writes is a fact every serialisation keeps: the causal
// past of each operation is serialised respecting co and vo, each session's
// view (causal memory) respects vo, and the arbitration (causal convergence)
// extends vo. Besides the patterns below, CC then also fails when a read of
// w1 has in its causal past a write of the key with a newer version
// (WriteCORead), or when co ∪ vo, restricted to the causal past of some
// operation, is cyclic (CyclicCO); vo edges join the graphs of CCv and CM.
//
// With co = (po ∪ rf)+ (the smallest causal order, which suffices because a
// larger one only adds constraints):
//   - CC fails iff one of CyclicCO, ThinAirRead, WriteCOInitRead, WriteCORead;
//   - CCv fails iff CC fails or CyclicCF (co ∪ cf is cyclic);
//   - CM fails iff CC fails or WriteHBInitRead or CyclicHB, where HB_o is
//     checked for o = the last operation of each process (HB_o only grows
//     along process order).
//
// The tests confirm these characterisations against brute-force deciders
// written from the definitions (a serialisation of each causal past, or an
// arbitration order for CCv) on thousands of random small histories.
// Causal order is computed with vector clocks over the writing processes:
// every causal past is a union of per-process prefixes, so a write w is in the
// past of o iff w's index is below o's clock entry for w's process.
package causal

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Options are the settings of a causal check.
type Options struct {
	Init          history.Value // initial value of every key; None means nil
	MaxViolations int           // violations reported at most; 0 means 10
	// Model says which operations are reads and writes (Info.ClassOf);
	// the zero Info means the register's.
	Model model.Info
	// SearchWork bounds the search over reads-from when values repeat
	// (SearchLimits.Work); 0 means DefaultSearchWork.
	SearchWork int64
}

// Pattern names.
const (
	CyclicCO        = "CyclicCO"
	ThinAirRead     = "ThinAirRead"
	WriteCOInitRead = "WriteCOInitRead"
	WriteCORead     = "WriteCORead"
	CyclicCF        = "CyclicCF"
	WriteHBInitRead = "WriteHBInitRead"
	CyclicHB        = "CyclicHB"
)

// Check decides criterion ("causal", "causal-memory" or
// "causal-convergence") for a history of reads, writes and cas (see
// PrepareFor). Any other operation is an error wrapping ErrUnsupportedOp.
func Check(ctx context.Context, h *history.History, criterion string, opts Options) (checker.Result, error) {
	start := time.Now()
	switch criterion {
	case checker.Causal, checker.CausalMemory, checker.CausalConvergence:
	default:
		return checker.Result{}, fmt.Errorf("causal: unknown criterion %q (want %s, %s or %s)",
			criterion, checker.Causal, checker.CausalMemory, checker.CausalConvergence)
	}
	// Versions, when every operation carries one, are what every other
	// criterion reads too; values are used only without them.
	p, err := PrepareFor(h, opts.Model, opts.Init, PreferVersions)
	if err != nil {
		return checker.Result{}, err
	}
	res := checker.Result{Criterion: criterion, Method: "bad-patterns", Dropped: p.Dropped}
	if p.Unknown != "" {
		res.Reason = p.Unknown
		res.Elapsed = time.Since(start)
		return res, nil
	}
	MatchVersionValues(p)
	var sr Searched
	if p.Ambiguous() {
		sr, err = Search(ctx, p, func(q *Prepared) (Outcome, error) {
			r := &run{ctx: ctx, p: q, max: 4}
			err := r.check(criterion)
			return Outcome{Holds: r.count == 0, Count: r.count, Ops: ViolationOps(r.vs)}, err
		}, SearchLimits{Work: opts.SearchWork})
		if done, err := FinishSearch(&res, sr, err, start); done {
			return res, err
		}
		p = sr.P
		res.Dropped, res.ReadsFrom = p.Dropped, p.Choice()
	}
	max := opts.MaxViolations
	if max <= 0 {
		max = 10
	}
	r := &run{ctx: ctx, p: p, max: max}
	err = r.check(criterion)
	res.Stats = checker.Stats{Ops: len(p.Ops), Partitions: 1}
	res.Elapsed = time.Since(start)
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		if r.count > 0 {
			break // a violation found before the deadline still stands
		}
		res.Reason = "check interrupted: " + err.Error()
		return res, nil
	case err != nil:
		return res, err
	}
	res.Violations = r.vs
	if r.count > 0 {
		res.Valid = checker.False
		res.Reason = fmt.Sprintf("%d violation(s) of %s found (%s)", r.count, criterion, p.Method())
		if r.count > len(r.vs) {
			res.Reason += fmt.Sprintf("; the first %d are shown", len(r.vs))
		}
	} else {
		res.Valid = checker.True
		res.Reason = fmt.Sprintf("no bad pattern of %s (%s)", criterion, p.Method())
	}
	if p.Ambiguous() {
		res.Reason += SearchNote(sr)
	}
	return res, nil
}

// FinishSearch fills res when a search of reads-from could not decide
// (its budget spent, or ctx done) or failed, and reports whether res is
// final.
func FinishSearch(res *checker.Result, sr Searched, err error, start time.Time) (bool, error) {
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		res.Reason = "check interrupted: " + err.Error()
	case err != nil:
		return true, err
	case sr.Valid == checker.Unknown:
		res.Reason = sr.Reason
	default:
		return false, nil
	}
	res.Elapsed = time.Since(start)
	return true, nil
}

type run struct {
	ctx   context.Context
	p     *Prepared
	max   int
	count int
	vs    []checker.Violation
	seen  map[string]bool
}

// report records a violation; facts is only called while under the cap,
// and fills in what the violation's pattern tells (its Op is None unless
// facts sets it).
func (r *run) report(pattern string, ops []int32, facts func(v *checker.Violation)) {
	key := pattern + fmt.Sprint(r.p.positions(ops...))
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
	v := checker.Violation{Ops: r.p.positions(ops...), Pattern: pattern, Key: keyText(r.p, ops), Op: checker.None}
	facts(&v)
	r.vs = append(r.vs, v)
}

func keyText(p *Prepared, ops []int32) string {
	k := p.Ops[ops[0]].Key
	for _, o := range ops {
		if p.Ops[o].Key != k {
			return ""
		}
	}
	if p.Keys[k].IsNone() {
		return ""
	}
	return p.Keys[k].String()
}

func (r *run) check(criterion string) error {
	p := r.p
	for i := range p.Ops {
		if o := &p.Ops[i]; !o.Write && o.RF == RFThinAir {
			r.report(ThinAirRead, []int32{int32(i)}, func(v *checker.Violation) {
				v.Op = o.Pos
				if p.Versioned {
					r.cite(v, int32(i))
				}
			})
		}
	}
	base := newDag(p)
	order, rest := base.topo()
	if rest != nil {
		for _, cyc := range base.cycles(rest) {
			r.report(CyclicCO, cyc, func(v *checker.Violation) {
				v.Steps = r.steps(v, base, cyc, true)
			})
		}
		return nil
	}
	clk := newClocks(p)
	clk.compute(base, order)
	if err := r.coPatterns(base, clk); err != nil {
		return err
	}
	if p.Versioned {
		if err := r.versionPatterns(base, clk); err != nil {
			return err
		}
	}
	switch criterion {
	case checker.CausalConvergence:
		return r.cyclicCF(clk)
	case checker.CausalMemory:
		return r.causalMemory(base, clk)
	}
	return nil
}

// coPatterns finds WriteCOInitRead and WriteCORead: for a read of x and each
// writing process q, only q's last write of x in the read's causal past
// matters (its earlier ones precede it).
func (r *run) coPatterns(base *dag, clk *clocks) error {
	p := r.p
	for i := range p.Ops {
		if i%4096 == 0 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
		}
		rd := int32(i)
		o := &p.Ops[i]
		if o.Write || o.RF == RFThinAir {
			continue
		}
		ws := p.byKey[o.Key]
		for j := range ws {
			w2 := ws[j].lastBefore(clk.at(rd, ws[j].Proc))
			if w2 < 0 || w2 == o.RF {
				continue
			}
			if o.RF == RFInit {
				r.report(WriteCOInitRead, []int32{w2, rd}, func(v *checker.Violation) {
					v.Op, v.Newer = p.Ops[rd].Pos, p.Ops[w2].Pos
					v.Steps = r.steps(v, base, r.path(base, clk, w2, rd), false)
				})
				break
			}
			w1 := o.RF
			if clk.before(p, w1, w2) {
				r.report(WriteCORead, []int32{w1, w2, rd}, func(v *checker.Violation) {
					// The steps run from the write read, through the one
					// that overwrote it, to the read.
					v.Op, v.Source, v.Newer = p.Ops[rd].Pos, p.Ops[w1].Pos, p.Ops[w2].Pos
					v.Steps = append(r.steps(v, base, r.path(base, clk, w1, w2), false), r.steps(v, base, r.path(base, clk, w2, rd), false)...)
				})
				break
			}
		}
	}
	return nil
}

// cyclicCF adds, for each read of w1, an edge w2 → w1 from each process's
// last write w2 of the key in the read's causal past, and looks for cycles.
func (r *run) cyclicCF(clk *clocks) error {
	p := r.p
	d := newDag(p)
	r.addVersionOrder(d, nil)
	for i := range p.Ops {
		if i%4096 == 0 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
		}
		rd := int32(i)
		o := &p.Ops[i]
		if o.Write || o.RF < 0 {
			continue
		}
		ws := p.byKey[o.Key]
		for j := range ws {
			w2 := ws[j].lastBefore(clk.at(rd, ws[j].Proc))
			if w2 < 0 || w2 == o.RF || clk.before(p, o.RF, w2) || clk.before(p, w2, o.RF) {
				continue // none, itself, a WriteCORead, or already ordered
			}
			d.add(w2, o.RF, why{kind: edgeCF, read: rd})
		}
	}
	_, rest := d.topo()
	if rest == nil {
		return nil
	}
	for _, cyc := range d.cycles(rest) {
		ops := r.withReads(d, cyc)
		r.report(CyclicCF, ops, func(v *checker.Violation) {
			v.Steps = r.steps(v, d, cyc, true)
		})
	}
	return nil
}

// causalMemory saturates, for each process, the happens-before relation of
// its last operation's causal past and looks for WriteHBInitRead and
// CyclicHB.
func (r *run) causalMemory(base *dag, baseClk *clocks) error {
	p := r.p
	clk := newClocks(p)
	for q := range p.Procs {
		var reads []int32
		for _, o := range p.Procs[q] {
			if !p.Ops[o].Write && p.Ops[o].RF != RFThinAir {
				reads = append(reads, o)
			}
		}
		if len(reads) == 0 {
			continue
		}
		d := newDag(p)
		// The view of q's last operation holds its causal past, so the
		// version order binds the writes of that past.
		last := p.Procs[q][len(p.Procs[q])-1]
		r.addVersionOrder(d, func(w int32) bool { return baseClk.before(p, w, last) })
		for {
			if err := r.ctx.Err(); err != nil {
				return err
			}
			order, rest := d.topo()
			if rest != nil {
				for _, cyc := range d.cycles(rest) {
					ops := r.withReads(d, cyc)
					r.report(CyclicHB, ops, func(v *checker.Violation) {
						v.Session = p.Ops[reads[0]].Pos
						v.Steps = r.steps(v, d, cyc, true)
					})
				}
				break
			}
			clk.compute(d, order)
			changed := false
			for _, rd := range reads {
				o := &p.Ops[rd]
				ws := p.byKey[o.Key]
				for j := range ws {
					w1 := ws[j].lastBefore(clk.at(rd, ws[j].Proc))
					if w1 < 0 || w1 == o.RF {
						continue
					}
					inCO := baseClk.before(p, w1, rd)
					if o.RF == RFInit {
						if !inCO {
							rd, w1 := rd, w1
							r.report(WriteHBInitRead, r.withReads(d, r.path(d, clk, w1, rd)), func(v *checker.Violation) {
								v.Op, v.Newer = p.Ops[rd].Pos, p.Ops[w1].Pos
								v.Steps = r.steps(v, d, r.path(d, clk, w1, rd), false)
							})
						}
						continue
					}
					if inCO && baseClk.before(p, o.RF, w1) {
						continue // a WriteCORead, reported as such
					}
					if clk.before(p, w1, o.RF) {
						continue
					}
					if d.add(w1, o.RF, why{kind: edgeHB, read: rd}) {
						changed = true
					}
				}
			}
			if !changed {
				break
			}
		}
	}
	return nil
}

// withReads adds to a cycle or path the reads that justify its cf/hb edges.
func (r *run) withReads(d *dag, nodes []int32) []int32 {
	out := append([]int32(nil), nodes...)
	for i := range nodes {
		j := (i + 1) % len(nodes)
		if _, ok := d.extra[[2]int32{nodes[i], nodes[j]}]; !ok {
			continue
		}
		if k, w := d.kind(nodes[i], nodes[j]); k == edgeCF || k == edgeHB {
			out = append(out, w.read)
		}
	}
	return out
}

// path returns a shortest path from write src to dst in d (src in dst's
// past according to clk, which must be d's clocks).
func (r *run) path(d *dag, clk *clocks, src, dst int32) []int32 {
	p := r.p
	prev := map[int32]int32{dst: -1}
	queue := []int32{dst}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if u == src {
			break
		}
		d.pred(u, func(s int32, _ uint8) {
			if _, ok := prev[s]; ok {
				return
			}
			if s != src && !clk.before(p, src, s) {
				return
			}
			prev[s] = u
			queue = append(queue, s)
		})
	}
	if _, ok := prev[src]; !ok {
		return []int32{src, dst}
	}
	var out []int32
	for v := src; v != -1; v = prev[v] {
		out = append(out, v)
	}
	return out
}

// steps turns a path (or, closed, a cycle) of d into the relations of its
// edges, citing in v the versions that order two writes.
func (r *run) steps(v *checker.Violation, d *dag, nodes []int32, closed bool) []checker.Step {
	p := r.p
	n := len(nodes)
	last := n - 1
	if closed {
		last = n
	}
	out := make([]checker.Step, 0, max(last, 0))
	for i := 0; i < last; i++ {
		a, b := nodes[i], nodes[(i+1)%n]
		s := checker.Step{From: p.Ops[a].Pos, To: p.Ops[b].Pos, Via: checker.None, Source: checker.None, Seen: checker.None}
		k, w := d.kind(a, b)
		switch k {
		case edgePO:
			s.Rel = checker.RelProcess
		case edgeRF:
			s.Rel = checker.RelReadsFrom
		case edgeCF, edgeHB:
			s.Rel, s.Via = checker.RelBeforeSource, p.Ops[w.read].Pos
		case edgeVO:
			s.Rel = checker.RelVersion
			r.cite(v, a)
			r.cite(v, b)
		}
		out = append(out, s)
	}
	return out
}

// cite records in v the version of the op at index i.
func (r *run) cite(v *checker.Violation, i int32) { v.Cite(r.p.Ops[i].Pos, r.p.Ops[i].Version) }
