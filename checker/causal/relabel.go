package causal

import (
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Relabel returns h made differentiated by a choice of reads-from, so that
// a witness of Search can be checked again without searching: each write
// (and the write of each cas) gets a value of its own; each read (and the
// read of each cas) gets the value of the write rf gives it, else of the
// one write of its key and value, else keeps its value; the operations
// dropped did not happen (they fail), and the cas of unknown outcome kept
// took effect. m classes the operations as PrepareFor does.
func Relabel(h *history.History, m model.Info, init history.Value, rf []checker.ReadFrom, dropped []int) *history.History {
	if len(m.Ops) == 0 {
		m = registerInfo()
	}
	if init.IsNone() {
		init = history.NilValue
	}
	own := func(pos int) history.Value { return history.StringValue(fmt.Sprintf("%s#%d", init, pos)) }
	given := make(map[int]int, len(rf))
	for _, x := range rf {
		given[x.Read] = x.Write
	}
	gone := make(map[int]bool, len(dropped))
	for _, d := range dropped {
		gone[d] = true
	}
	source := func(i int, v history.Value) history.Value {
		if w, ok := given[i]; ok {
			if w == checker.Initial {
				return init
			}
			return own(w)
		}
		for j := range h.Ops {
			w := &h.Ops[j]
			if stored, ok := m.Stored(w); ok && j != i && !gone[j] && w.Status != history.Fail && w.Key == h.Ops[i].Key && orNil(stored) == orNil(v) {
				return own(j)
			}
		}
		return v
	}
	out := &history.History{Ops: append([]history.Op(nil), h.Ops...), Processes: h.Processes, Clients: h.Clients}
	for i := range out.Ops {
		o := &out.Ops[i]
		switch {
		case gone[i]:
			o.Status = history.Fail
		case m.ClassOf(o.F) == model.WriteOp:
			o.Value = own(i)
		case m.ClassOf(o.F) == model.CASOp:
			from, _ := m.Expected(o)
			o.Value = history.ListValue(source(i, from), own(i))
			if o.Status == history.Info {
				o.Status = history.OK
			}
		case m.ClassOf(o.F) == model.ReadOp && o.Status == history.OK:
			o.Value = source(i, o.Value)
		}
	}
	return out
}

func orNil(v history.Value) history.Value {
	if v.IsNone() {
		return history.NilValue
	}
	return v
}
