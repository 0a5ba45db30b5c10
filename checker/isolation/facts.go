package isolation

import (
	"slices"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// elleName gives Elle's anomaly name for a Plume pattern, where it is one.
var elleName = map[string]string{
	"AbortedRead":      "G1a",
	"IntermediateRead": "G1b",
	"NotMyOwnWrite":    "internal",
	"NotMyLastWrite":   "internal",
	"FutureRead":       "future-read",
	"FracturedReadCO":  "fractured-read",
	"FracturedReadAO":  "fractured-read",
}

func (ix *index) issueViolations() []checker.Violation {
	out := make([]checker.Violation, 0, len(ix.issues))
	for _, is := range ix.issues {
		f := &checker.IsolationFact{Plume: is.Pattern, Elle: elleName[is.Pattern], Reader: is.Txn, Mop: is.Mop,
			Key: is.Key.String(), Value: is.Value.String(), Writer: checker.None}
		ops := []int{is.Txn}
		if is.Writer >= 0 {
			f.Writer = is.Writer
			ops = append(ops, is.Writer)
		}
		if !is.Own.IsNone() {
			f.Own = is.Own.String()
		}
		out = append(out, checker.Violation{Ops: ops, Pattern: is.Pattern, Op: is.Txn, Isolation: f})
	}
	return out
}

// readOf is node v's read ri as facts.
func (ix *index) readOf(v node, ri int32) (key, val string, mop int) {
	r := ix.reads[v][ri]
	m := ix.txns[ix.op[v]].Mops[r.mop]
	return m.Key.String(), m.Value.String(), int(r.mop)
}

func (ix *index) nonRepeatableViolation(v node, a, b read) checker.Violation {
	t := &ix.txns[ix.op[v]]
	f := &checker.IsolationFact{Plume: "NonRepeatableRead", Reader: t.Op, Mop: int(b.mop),
		Key: t.Mops[b.mop].Key.String(), Value: t.Mops[b.mop].Value.String(), Writer: ix.opOf(b.src),
		Steps: []checker.IsolationStep{
			{From: ix.opOf(a.src), To: t.Op, Type: "wr", Key: t.Mops[a.mop].Key.String(), Value: t.Mops[a.mop].Value.String()},
			{From: ix.opOf(b.src), To: t.Op, Type: "wr", Key: t.Mops[b.mop].Key.String(), Value: t.Mops[b.mop].Value.String()},
		}}
	return checker.Violation{Ops: opsOf(t.Op, ix.opOf(a.src), ix.opOf(b.src)), Pattern: "NonRepeatableRead", Op: t.Op, Isolation: f}
}

func opsOf(ops ...int) []int {
	var out []int
	for _, o := range ops {
		if o >= 0 {
			out = append(out, o)
		}
	}
	return out
}

var whyName = [...]string{whySession: "session", whyRead: "read", whyEarlier: "earlier", whyCausal: "causal"}

// step says edge e as facts.
func (ix *index) step(e edge, reasons []reason) checker.IsolationStep {
	st := checker.IsolationStep{From: ix.opOf(e.from), To: ix.opOf(e.to)}
	switch e.kind {
	case edgeSO:
		st.Type = "so"
	case edgeWR:
		st.Type = "wr"
		st.Key, st.Value, _ = ix.readOf(e.to, e.ref)
	case edgeCO:
		st.Type = "co"
		r := reasons[e.ref]
		st.Reader = ix.opOf(r.reader)
		st.Key, st.Value, _ = ix.readOf(r.reader, r.read)
		st.Why = whyName[r.why]
		if r.via >= 0 {
			st.ViaKey, st.ViaValue, _ = ix.readOf(r.reader, r.via)
		}
	case edgeWW:
		st.Type = "ww"
		st.Key = ix.keys[e.key].String()
		st.Value = ix.valueOf(e.from, e.key)
	case edgeRW:
		st.Type = "rw"
		st.Key = ix.keys[e.key].String()
		st.Value = ix.valueOf(node(e.ref), e.key)
	}
	return st
}

// valueOf is the value node v wrote last to key k, or the initial value.
func (ix *index) valueOf(v node, k int32) string {
	if v == initial {
		return ix.init.String()
	}
	for i, kk := range ix.writes[v] {
		if kk == k {
			return ix.vals[v][i].String()
		}
	}
	return ""
}

// satPattern names a saturation cycle after Plume's catalogue.
func satPattern(level string, cyc []int32, edges []edge, reasons []reason) string {
	co, causal := 0, false
	for _, ei := range cyc {
		if e := edges[ei]; e.kind == edgeCO {
			co++
			causal = causal || reasons[e.ref].why == whyCausal
		}
	}
	switch {
	case co == 0:
		return "CyclicCO"
	case level == ReadCommitted && co == 1:
		return "NonMonoReadCO"
	case level == ReadCommitted:
		return "NonMonoReadAO"
	case level == Causal && causal && co == 1:
		return "COConflictAO"
	case level == Causal && causal:
		return "ConflictAO"
	case co == 1:
		return "FracturedReadCO"
	}
	return "FracturedReadAO"
}

// cycleViolation states cycle cyc (edge indices) of a saturation graph.
// pattern, when "", is found from the cycle.
func (ix *index) cycleViolation(cyc []int32, edges []edge, reasons []reason, pattern, level string) checker.Violation {
	if pattern == "" {
		pattern = satPattern(level, cyc, edges, reasons)
	}
	f := &checker.IsolationFact{Plume: pattern, Elle: elleName[pattern], Reader: checker.None, Writer: checker.None}
	var ops []int
	process := false
	for _, ei := range cyc {
		e := edges[ei]
		st := ix.step(e, reasons)
		f.Steps = append(f.Steps, st)
		process = process || e.kind == edgeSO
		if st.From >= 0 {
			ops = append(ops, st.From)
		}
		if e.kind != edgeCO {
			continue
		}
		// Every forced edge's reader is in the violation, and so are the
		// transactions through which t2 happens before it (causal
		// consistency), so that the violation's transactions show it on
		// their own.
		r := reasons[e.ref]
		ops = append(ops, ix.opOf(r.reader))
		if r.why == whyCausal {
			for _, v := range ix.hbPath(e.from, r.reader) {
				ops = append(ops, ix.opOf(v))
			}
		}
		if f.Reader == checker.None {
			f.Reader = ix.opOf(r.reader)
			f.Key, f.Value, f.Mop = ix.readOf(r.reader, r.read)
			f.Writer = st.To
		}
	}
	if pattern == "CyclicCO" {
		f.Elle = "G1c"
		if process {
			f.Elle = "G1c-process"
		}
	}
	ops = dedupe(ops)
	return checker.Violation{Ops: ops, Pattern: pattern, Op: firstOr(ops), Isolation: f}
}

// hbPath is a shortest path of session order and reads-from from a to b,
// the nodes strictly between them in order; nil when there is none.
func (ix *index) hbPath(a, b node) []node {
	g := newGraph(len(ix.op), ix.baseEdges())
	via := make([]node, len(ix.op))
	for i := range via {
		via[i] = -1
	}
	via[a] = a
	queue := []node{a}
	for qi := 0; qi < len(queue) && via[b] < 0; qi++ {
		for _, ei := range g.succ(queue[qi]) {
			if w := g.edges[ei].to; via[w] < 0 {
				via[w] = queue[qi]
				queue = append(queue, w)
			}
		}
	}
	if via[b] < 0 {
		return nil
	}
	var out []node
	for v := via[b]; v != a; v = via[v] {
		out = append(out, v)
	}
	slices.Reverse(out)
	return out
}

func dedupe(xs []int) []int {
	seen := map[int]bool{}
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func firstOr(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	return xs[0]
}

var _ = history.NilValue
