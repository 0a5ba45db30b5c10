package isolation

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// Options tune a check.
type Options struct {
	// Init is the value every key holds first; None means nil.
	Init history.Value
	// Steps bounds the search of the NP-complete levels after pruning:
	// the choices it tries and the edges its searches for cycles follow
	// (0: DefaultSteps). Past it the verdict is unknown.
	Steps int64
	// MaxNodes bounds the transactions the search of the NP-complete
	// levels takes on (0: DefaultMaxNodes); its reachability matrix grows
	// with their square.
	MaxNodes int
	// Verify re-checks a verdict true's commit order against the level's
	// definition (Verify) and fails with an error when it does not hold.
	Verify bool
	// MaxViolations bounds the violations reported (0: 10).
	MaxViolations int
}

// Defaults of Options.
const (
	DefaultSteps    = 200_000_000
	DefaultMaxNodes = 40_000
)

// Method names.
const (
	methodSaturation = "saturation"
	methodSearch     = "write-order search"
)

// Check decides level on h, whose operations must all be rw-register
// transactions with unique writes. A verdict true carries a commit order
// (Result.Witness, the transactions' positions, of those that committed
// or were read from; the others are Result.Dropped).
func Check(ctx context.Context, h *history.History, level string, o Options) (checker.Result, error) {
	start := time.Now()
	if !Known(level) {
		return checker.Result{}, fmt.Errorf("unknown isolation level %q", level)
	}
	txns, err := txn.FromHistory(h)
	if err != nil {
		return checker.Result{}, err
	}
	init := o.Init
	if init.IsNone() {
		init = history.NilValue
	}
	ix, err := build(h, txns, init)
	if err != nil {
		return checker.Result{}, err
	}
	var res checker.Result
	if kindOf(level) == searched {
		res, err = decideParts(ctx, h, txns, ix, level, o)
	} else {
		res, err = decide(ctx, ix, level, o)
	}
	res.Criterion = level
	res.Elapsed = time.Since(start)
	if err != nil {
		return res, err
	}
	res.Violations = bound(res.Violations, o.MaxViolations)
	if res.Valid == checker.False && kindOf(level) == searched && len(res.Violations) > 0 {
		res.Violations[0] = alone(ctx, h, txns, init, level, res.Violations[0], o)
	}
	if res.Valid == checker.True {
		for ti := range txns {
			if txns[ti].Status == history.Info && !slices.Contains(ix.op, ti) {
				res.Dropped = append(res.Dropped, txns[ti].Op)
			}
		}
		if o.Verify {
			if err := Verify(h, level, res.Witness, init); err != nil {
				return res, fmt.Errorf("the %s commit order does not verify: %w", level, err)
			}
		}
	}
	return res, nil
}

func bound(vs []checker.Violation, max int) []checker.Violation {
	if max <= 0 {
		max = 10
	}
	if len(vs) > max {
		return vs[:max]
	}
	return vs
}

// decide runs level's algorithm on the index.
func decide(ctx context.Context, ix *index, level string, o Options) (checker.Result, error) {
	if len(ix.issues) > 0 {
		return checker.Result{Valid: checker.False, Violations: ix.issueViolations(), Method: methodSaturation,
			Reason: "some read is explained by no commit order"}, nil
	}
	base := ix.baseEdges()
	g0 := newGraph(len(ix.op), base)
	topo, ok := g0.topo()
	if !ok {
		cyc := g0.cycle(topo, func(edge) bool { return false })
		return checker.Result{Valid: checker.False, Method: methodSaturation,
			Violations: []checker.Violation{ix.cycleViolation(cyc, g0.edges, nil, "CyclicCO", level)}}, nil
	}
	if level != ReadCommitted {
		if vs := ix.nonRepeatable(); len(vs) > 0 {
			return checker.Result{Valid: checker.False, Violations: vs, Method: methodSaturation}, nil
		}
	}
	if kindOf(level) == searched {
		return search(ctx, ix, level, o)
	}
	s := &saturation{ix: ix, level: level, edges: base}
	var err error
	switch level {
	case ReadCommitted:
		err = s.readCommitted(ctx)
	case ReadAtomic:
		err = s.readAtomic(ctx)
	case Causal:
		err = s.causal(ctx, g0, topo)
	}
	if err != nil {
		if ctx.Err() != nil {
			return checker.Result{Valid: checker.Unknown, Reason: err.Error()}, ctx.Err()
		}
		return checker.Result{Valid: checker.Unknown, Reason: err.Error(), Method: methodSaturation}, nil
	}
	g := newGraph(len(ix.op), s.edges)
	order, ok := g.topo()
	res := checker.Result{Method: methodSaturation, Stats: checker.Stats{Ops: len(ix.op) - 1}}
	if ok {
		res.Valid = checker.True
		res.Witness = ix.witness(order)
		res.Reason = fmt.Sprintf("the commit order shown extends session order, reads-from and the %d commit-order edges the reads force", len(s.edges)-len(base))
		return res, nil
	}
	cyc := g.cycle(order, func(e edge) bool { return e.kind == edgeCO })
	res.Valid = checker.False
	res.Violations = []checker.Violation{ix.cycleViolation(cyc, g.edges, s.reasons, "", level)}
	return res, nil
}

// witness maps a topological order of nodes to the transactions' positions.
func (ix *index) witness(order []node) []int {
	out := make([]int, 0, len(order))
	for _, v := range order {
		if v != initial {
			out = append(out, ix.opOf(v))
		}
	}
	return out
}

// nonRepeatable finds transactions that read one key from two writers.
func (ix *index) nonRepeatable() []checker.Violation {
	var out []checker.Violation
	for v := 1; v < len(ix.reads) && len(out) < 10; v++ {
		rs := ix.reads[v]
		for i := 1; i < len(rs); i++ {
			for j := 0; j < i; j++ {
				if rs[j].key == rs[i].key && rs[j].src != rs[i].src {
					out = append(out, ix.nonRepeatableViolation(node(v), rs[j], rs[i]))
					i = len(rs)
					break
				}
			}
		}
	}
	return out
}
