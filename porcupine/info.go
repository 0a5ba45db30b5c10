package porcupine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/history"
)

// coreTime bounds the search for an illegal history's core: the core
// found by then is kept, minimal or not.
const coreTime = time.Second

// LinearizationInfo is what a verbose check found, for [Visualize]: each
// partition's operations and partial linearizations, the annotations
// added, and for an illegal history histcheck's explanation.
type LinearizationInfo struct {
	parts       []partInfo
	annotations []Annotation
	// explainer explains the first illegal partition when first asked:
	// the core costs re-checks that a caller who never asks should not
	// pay for. Copies of the info share it.
	explainer *explainer
}

// explainer computes an Explanation once.
type explainer struct {
	once      sync.Once
	run       func() (Explanation, *shrink.Core)
	explained Explanation
	// core is the core found, in the positions of the partition's
	// history, for Visualize; nil when none was.
	core *shrink.Core
}

// partInfo is one partition's part of a LinearizationInfo.
type partInfo struct {
	ops      []Operation
	partials [][]int
	problem  string
	// verdict, hist and res are what the check of the partition found,
	// for Visualize: hist is nil when the search did not run.
	verdict CheckResult
	hist    *history.History
	res     checker.Result
}

// Explanation is histcheck's account of an illegal history, beyond
// Porcupine's: the partition that failed, its core (the few operations
// that still fail on their own, with the others of the partition
// weakened to unknown outcome or left out) and what the search found, in
// words.
type Explanation struct {
	// Partition is the index of the illegal partition.
	Partition int
	// Core lists the operations (indices in the partition, Porcupine's
	// ids) that fail as recorded; Weakened those the core needs to exist
	// but not to have returned when they did. Both are nil when the
	// partition is not a history (see Text) or no core was found.
	Core, Weakened []int
	// Minimal says no operation of Core can be weakened with the history
	// still illegal; a core search that ran out of time leaves it unset.
	Minimal bool
	// Text says why the partition is illegal: the operation that could
	// not take effect after the longest legal order found, or what is
	// wrong with the operations given.
	Text string
}

// PartialLinearizations returns, per partition, the partial
// linearizations as lists of operation ids (indices in the partition):
// the complete linearization of a linearizable partition, else the
// longest legal orders the search found that contain each operation,
// each once.
func (li *LinearizationInfo) PartialLinearizations() [][][]int {
	if li.parts == nil {
		return nil
	}
	out := make([][][]int, len(li.parts))
	for i, p := range li.parts {
		out[i] = p.partials
	}
	return out
}

// PartialLinearizationsOperations is PartialLinearizations with the
// operations themselves (for a history of events, Call and Return are
// the positions of the events in the partition).
func (li *LinearizationInfo) PartialLinearizationsOperations() [][][]Operation {
	if li.parts == nil {
		return nil
	}
	out := make([][][]Operation, len(li.parts))
	for i, p := range li.parts {
		out[i] = make([][]Operation, len(p.partials))
		for k, order := range p.partials {
			ops := make([]Operation, len(order))
			for j, id := range order {
				ops[j] = p.ops[id]
			}
			out[i][k] = ops
		}
	}
	return out
}

// Explanation returns histcheck's account of an illegal history, and
// false when the check found none (the history was not illegal, or the
// check was not verbose).
// The core is searched for on the first call, within a second.
func (li *LinearizationInfo) Explanation() (Explanation, bool) {
	x := li.explainer
	if x == nil {
		return Explanation{}, false
	}
	x.once.Do(func() { x.explained, x.core = x.run() })
	return x.explained, true
}

// explainedCore is the illegal partition's index and its core, after
// Explanation; ok is false when there is none.
func (li *LinearizationInfo) explainedCore() (part int, core *shrink.Core, ok bool) {
	e, ok := li.Explanation()
	if !ok || li.explainer.core == nil {
		return 0, nil, false
	}
	return e.Partition, li.explainer.core, true
}

// fill records each partition's partial linearizations and explains the
// first illegal partition.
func (li *LinearizationInfo) fill(f *filled, found []partResult) {
	for i := range li.parts {
		p := &li.parts[i]
		p.partials, p.verdict, p.hist, p.res = found[i].partials, found[i].verdict, found[i].hist, found[i].res
	}
	for i := range found {
		if found[i].verdict != Illegal {
			continue
		}
		ops, r := li.parts[i].ops, found[i]
		e := Explanation{Partition: i, Text: li.parts[i].problem}
		li.explainer = &explainer{run: func() (Explanation, *shrink.Core) {
			var core *shrink.Core
			if e.Text == "" {
				core = explain(f, ops, &r, &e)
			}
			return e, core
		}}
		return
	}
}

// explain says in words why a partition is illegal and shrinks it to a
// core, within coreTime; it returns the core, or nil when none was found.
func explain(f *filled, ops []Operation, r *partResult, e *Explanation) *shrink.Core {
	if r.hist == nil || len(r.res.Violations) == 0 {
		return nil
	}
	e.Text = describeViolation(f, ops, r.hist, r.res.Violations[0])
	ctx, cancel := context.WithTimeout(context.Background(), coreTime)
	defer cancel()
	check := func(ctx context.Context, h *history.History) (checker.Result, error) {
		a := newAdapter(ctx, f, ops)
		res, err := linear.Check(ctx, a, h, linear.Options{Workers: 1})
		if a.cancelled && res.Valid == checker.False {
			res.Valid = checker.Unknown
		}
		return res, err
	}
	core, err := shrink.MinimizeFrom(ctx, r.hist, r.adapter.Info(), check, r.res)
	if err != nil {
		return nil
	}
	e.Core, e.Weakened, e.Minimal = indices(r.hist, core.Ops), indices(r.hist, core.Weakened), core.Minimal
	return &core
}

// describeViolation says what the search found, with the model's own
// descriptions of the operations (Porcupine's ids, in brackets) and
// states: the operation that could not take effect, the state it could
// not take effect in, and the end of the longest legal order found.
func describeViolation(f *filled, ops []Operation, h *history.History, v checker.Violation) string {
	name := func(pos int) string {
		i, _ := h.Ops[pos].Value.Int()
		o := &ops[i]
		return fmt.Sprintf("[%d] %s", i, f.DescribeOperation(o.Input, o.Output))
	}
	var sb strings.Builder
	if len(v.Stuck) > 0 {
		st := v.Stuck[0]
		fmt.Fprintf(&sb, "%s cannot take effect", name(st.Op))
		if st.State {
			fmt.Fprintf(&sb, " in state %s", st.Said)
		} else if st.Said != "" {
			fmt.Fprintf(&sb, ": %s", st.Said)
		}
	} else {
		sb.WriteString("no order of the operations is legal")
	}
	const shown = 3
	prefix := v.Prefix
	if len(prefix) == 0 {
		sb.WriteString(", from the initial state")
		return sb.String()
	}
	sb.WriteString(", after the longest legal order found: ")
	if len(prefix) > shown {
		fmt.Fprintf(&sb, "%d operations, then ", len(prefix)-shown)
		prefix = prefix[len(prefix)-shown:]
	}
	for k, pos := range prefix {
		if k > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(name(pos))
	}
	return sb.String()
}
