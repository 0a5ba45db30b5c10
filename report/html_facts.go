package report

import (
	"github.com/histcheck/histcheck/txn"
)

// The page shows at most this many steps of a longest legal order, the
// last ones, and states up to this many characters: a failure deep in a
// large history would otherwise weigh the page down with states nobody
// reads. The page says when it shows less.
const (
	maxPageSteps      = 1000
	maxPageStateChars = 400
)

// htmlSteps is the longest legal order a search found before a failure,
// for the page: the last of its operations as bars, the model's state
// after each, and the operation that could not follow.
type htmlSteps struct {
	// Total is the number of operations of the order; Ops are its last
	// ones (Total - len(Ops) are left out before them).
	Total int   `json:"total"`
	Ops   []int `json:"ops"`
	// States[i] is the state after Ops[StatesFrom+i]: the checker keeps
	// the states of the last steps only, or none. StatesCut counts the
	// states shortened to fit.
	States     []string `json:"states"`
	StatesFrom int      `json:"states_from"`
	StatesCut  int      `json:"states_cut"`
	// Stuck is the bar of the operation that could not take effect next,
	// or -1; Said is what the model said about it.
	Stuck int    `json:"stuck"`
	Said  string `json:"said,omitempty"`
}

func (b *htmlBuilder) steps(s *prefixSteps) *htmlSteps {
	if s == nil || b.src == nil {
		return nil
	}
	out := &htmlSteps{Total: len(s.ops), Ops: []int{}, States: []string{}, Stuck: -1, Said: s.said}
	if s.stuck >= 0 && s.stuck < len(b.src.Ops) {
		out.Stuck = s.stuck
	}
	first := max(0, len(s.ops)-maxPageSteps)
	for _, p := range s.ops[first:] {
		if p < 0 || p >= len(b.src.Ops) {
			return nil
		}
		out.Ops = append(out.Ops, p) // bars are positions when the history is at hand
	}
	// The checker's states are those of the order's last operations.
	if len(s.states) > 0 && len(s.states) <= len(s.ops) {
		states := s.states[max(0, len(s.states)-len(out.Ops)):]
		out.StatesFrom = len(out.Ops) - len(states)
		for _, st := range states {
			if r := []rune(st); len(r) > maxPageStateChars {
				st = string(r[:maxPageStateChars-1]) + "…"
				out.StatesCut++
			}
			out.States = append(out.States, st)
		}
	}
	return out
}

// htmlCycle is a transactional anomaly's cycle, for the page to draw:
// its transactions in the cycle's order and the typed edges between them.
type htmlCycle struct {
	Nodes []htmlTxn  `json:"nodes"`
	Edges []htmlEdge `json:"edges"`
}

type htmlTxn struct {
	Bar   int    `json:"bar"` // -1 when the transaction is not drawn
	Label string `json:"label"`
	// Mops are the transaction's micro-operations, as the history writes
	// them.
	Mops []string `json:"mops"`
}

type htmlEdge struct {
	From int    `json:"from"` // nodes
	To   int    `json:"to"`
	Type string `json:"type"`
	// Detail is what the dependency is about: the key and the version.
	Detail string `json:"detail"`
}

// cycle lays a violation's cycle out as nodes and edges; nil when the
// violation is not a cycle.
func (b *htmlBuilder) cycle(v *Violation) *htmlCycle {
	if len(v.Cycle) == 0 {
		return nil
	}
	labels := map[int64]string{}
	for _, op := range v.Ops {
		labels[op.Index] = op.Label
	}
	out := &htmlCycle{Nodes: []htmlTxn{}, Edges: []htmlEdge{}}
	node := map[int64]int{}
	add := func(index int64) int {
		if n, ok := node[index]; ok {
			return n
		}
		node[index] = len(out.Nodes)
		out.Nodes = append(out.Nodes, b.txnNode(index, labels[index]))
		return node[index]
	}
	// The nodes are numbered as the text form names the transactions,
	// T1, T2, … by the step each one leaves from, so that the page's T1
	// is the explanation's.
	for _, d := range v.Cycle {
		add(d.From)
	}
	for _, d := range v.Cycle {
		out.Edges = append(out.Edges, htmlEdge{From: add(d.From), To: add(d.To), Type: d.Type, Detail: edgeDetail(d)})
	}
	return out
}

// txnNode describes the transaction with the given index: its bar, its
// label and its micro-operations (the label alone when the history is not
// at hand or the value is not a transaction).
func (b *htmlBuilder) txnNode(index int64, label string) htmlTxn {
	n := htmlTxn{Bar: -1, Label: label, Mops: []string{}}
	i, ok := b.byIndex[index]
	if !ok {
		return n
	}
	n.Bar = i
	if b.src == nil {
		return n
	}
	o := &b.src.Ops[i]
	n.Label = o.Label()
	if mops, err := txn.Parse(o.Value); err == nil {
		for _, m := range mops {
			n.Mops = append(n.Mops, m.String())
		}
	}
	return n
}

// edgeDetail says what a dependency is about, briefly: "x: 1", or
// "x: 1 → 2" when To wrote over the version.
func edgeDetail(d Dependency) string {
	if d.Key == nil {
		return ""
	}
	s := valueText(d.Key) + ": "
	if d.Value == nil {
		s += "init"
	} else {
		s += valueText(d.Value)
	}
	if d.Next != nil {
		s += " → " + valueText(d.Next)
	}
	return s
}
