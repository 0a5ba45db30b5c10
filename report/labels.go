package report

import (
	"strconv"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// names gives the operations of one explanation their labels. A label is
// the textbook rendering of the operation as recorded ("B:r(1)"); when two
// operations of the explanation render alike, each of them gets its index
// too ("2:w(2)#17"; their positions when their indexes coincide), so that no label in an explanation stands for two
// operations.
type names struct {
	h   *history.History
	dup map[string]bool
	// byPos marks the labels whose operations share an index too (a
	// history built in a program may give none): they get their position.
	byPos map[string]bool
}

// newNames prepares the labels of the operations of h at positions ps,
// the operations one explanation may name.
func newNames(h *history.History, ps []int) names {
	seen := make(map[string]int, len(ps))
	dup, byPos := make(map[string]bool), make(map[string]bool)
	index := make(map[string]map[int64]int)
	for _, p := range ps {
		if p < 0 || p >= len(h.Ops) {
			continue
		}
		l := h.Ops[p].Label()
		if q, ok := seen[l]; ok && q != p {
			dup[l] = true
		}
		seen[l] = p
		if index[l] == nil {
			index[l] = make(map[int64]int)
		}
		if q, ok := index[l][h.Ops[p].Index]; ok && q != p {
			byPos[l] = true
		}
		index[l][h.Ops[p].Index] = p
	}
	return names{h: h, dup: dup, byPos: byPos}
}

// of is the label of the operation at position p.
func (n names) of(p int) string {
	if p < 0 || p >= len(n.h.Ops) {
		return "?"
	}
	o := &n.h.Ops[p]
	l := o.Label()
	switch {
	case n.byPos[l]:
		l += "#" + strconv.Itoa(p)
	case n.dup[l]:
		l += "#" + strconv.FormatInt(o.Index, 10)
	}
	return l
}

// referenced lists the positions a violation names: its operations, the
// longest legal order and the stuck operations, the steps' ends, the read,
// its source and the newer write, the writes and zones it cites.
func referenced(v *checker.Violation) []int {
	ps := append([]int(nil), v.Ops...)
	ps = append(ps, v.Prefix...)
	ps = append(ps, v.Writes...)
	ps = append(ps, v.Op, v.Source, v.Newer)
	for _, s := range v.Stuck {
		ps = append(ps, s.Op)
	}
	for _, s := range v.Steps {
		ps = append(ps, s.From, s.To, s.Via, s.Seen, s.Source)
	}
	for _, z := range v.Zones {
		ps = append(ps, z.Write, z.FromOp, z.ToOp)
	}
	if c := v.Count; c != nil {
		ps = append(ps, c.Upto)
	}
	return ps
}

// opLabels are the labels of ops as one explanation names them: each
// op's own, with its index added when another of ops renders alike (its
// position when their indexes coincide too), as names does.
func opLabels(ops []Op) []string {
	count := make(map[string]int, len(ops))
	index := make(map[string]map[int64]bool)
	byPos := make(map[string]bool)
	for _, o := range ops {
		count[o.Label]++
		if index[o.Label] == nil {
			index[o.Label] = make(map[int64]bool)
		}
		if index[o.Label][o.Index] {
			byPos[o.Label] = true
		}
		index[o.Label][o.Index] = true
	}
	out := make([]string, len(ops))
	for i, o := range ops {
		switch {
		case count[o.Label] < 2:
			out[i] = o.Label
		case byPos[o.Label] && o.pos > 0:
			out[i] = o.Label + "#" + strconv.Itoa(o.pos-1)
		default:
			out[i] = o.Label + "#" + strconv.FormatInt(o.Index, 10)
		}
	}
	return out
}
