package shrink

import (
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// form is what becomes of one operation of the original history in a
// reduced one. It takes four values, which formsKey packs in two bits.
type form uint8

const (
	// dropped: not in the reduced history (failed operations, reads of
	// unknown outcome, other keys, operations after the cut, weakened reads
	// and weakened writes nobody observes).
	dropped form = iota
	// kept: as recorded.
	kept
	// inFlight: as recorded, but with unknown outcome, because the history
	// was cut while it ran.
	inFlight
	// weak: as recorded, but with unknown outcome: it may have taken
	// effect at any time after its call, or never.
	weak
)

// isRead reports whether an operation only observes: one the model m
// classes as a read. Models leave the state alone for a read of unknown
// outcome and accept any result for it, so such a read carries no
// information and dropping it changes no verdict.
func isRead(m model.Info, o *history.Op) bool { return m.ClassOf(o.F) == model.ReadOp }

// registerInfo is the Info whose operation classes Weaken and Minimize
// use: the cas-register's, or kv's when keyed (their names are the same).
func registerInfo(keyed bool) model.Info {
	if keyed {
		return model.NewKV(model.Options{}).Info()
	}
	return model.NewCASRegister(model.Options{}).Info()
}

// Weaken is WeakenFor with the operations of the cas-register model.
func Weaken(h *history.History, positions []int) *history.History {
	return WeakenFor(h, registerInfo(false), positions)
}

// WeakenFor returns a copy of h in which the operations at the given
// positions are weakened: a read (as the model m classes it) is dropped,
// and any other operation gets unknown outcome, keeping its client, call
// time and fields, so that it may have taken effect at any time after its
// call, or never. Failed operations at those positions are dropped (they
// had no effect). Weakening maps a history that satisfies a criterion to
// one that still does, so a weakened history that fails proves h fails.
// Out of range positions are ignored.
func WeakenFor(h *history.History, m model.Info, positions []int) *history.History {
	forms := make([]form, len(h.Ops))
	for i := range h.Ops {
		forms[i] = kept
		if h.Ops[i].Status == history.Info {
			forms[i] = inFlight
		}
	}
	for _, p := range positions {
		if p >= 0 && p < len(h.Ops) {
			forms[p] = weakForm(m, &h.Ops[p])
		}
	}
	out, _ := buildFor(h, m, forms)
	return out
}

// weakForm is how an operation is weakened: reads and failed operations
// are dropped, everything else gets unknown outcome.
func weakForm(m model.Info, o *history.Op) form {
	if o.Status == history.Fail || isRead(m, o) {
		return dropped
	}
	return weak
}

// buildFor makes the reduced history that forms describe, and for each of
// its operations the position in h of the operation it came from; the
// model m says which operations are compare-and-sets.
//
// A weakened or in-flight operation is the recorded one with unknown
// outcome: same client, same call, same fields (a weakened cas becomes an
// optional write of its new value, under the name of m's write).
// Owner-aware models (locks, leases) tell holders apart by client name and fencing storage by token, so
// nothing a model reads may change, or the reduced history could fail for
// a reason the original does not have. h must be validated (in call order,
// logical processes numbered), as Minimize's input is. Logical processes are numbered
// here rather than derived again from client names: an operation of
// unknown outcome ends its logical process, so the client's next operation
// starts a new one, as it would in an input; and two logical processes of
// the original stay apart even when the operation of unknown outcome
// between them was dropped, so that no process order is added.
func buildFor(h *history.History, m model.Info, forms []form) (*history.History, []int) {
	return buildInto(h, m, forms, nil)
}

// buildInto is buildFor with the reduced history's operations in buf
// when it has room for them.
func buildInto(h *history.History, m model.Info, forms []form, buf []history.Op) (*history.History, []int) {
	out := *h
	out.Ops, out.Processes, out.Clients = nil, 0, 0
	out.Warnings, out.Ignored = nil, 0
	// open maps a logical process of h to its number in out while the
	// process continues there.
	open := make(map[int]int)
	clients := make(map[string]bool)
	n := 0
	for _, f := range forms {
		if f != dropped {
			n++
		}
	}
	out.Ops = buf[:0]
	if cap(buf) < n {
		out.Ops = make([]history.Op, 0, n)
	}
	origin := make([]int, 0, n)
	write := canonical(m, model.WriteOp)
	for i := range h.Ops {
		if forms[i] == dropped {
			continue
		}
		o := h.Ops[i]
		if forms[i] == weak || forms[i] == inFlight {
			o.Status, o.Return = history.Info, history.Infinity
		}
		if to, ok := weakCAS(m, &o, forms[i], write); ok {
			// A weakened cas either stored its new value or changed
			// nothing, as an optional write of that value may: the write
			// compares with nothing, which is weaker than a cas of unknown
			// outcome and far cheaper to check, since the checkers prune
			// optional writes nobody reads.
			o.F, o.Value = write, to
		}
		p, ok := open[o.Process]
		if !ok {
			p = out.Processes
			out.Processes++
			open[o.Process] = p
		}
		if o.Status == history.Info {
			delete(open, o.Process)
		}
		o.Process = p
		if !clients[o.Client] {
			clients[o.Client] = true
			out.Clients++
		}
		out.Ops = append(out.Ops, o)
		origin = append(origin, i)
	}
	return &out, origin
}

// weakCAS returns the value a weakened compare-and-set writes when it
// stands as a write (see buildFor).
func weakCAS(m model.Info, o *history.Op, f form, write string) (history.Value, bool) {
	if f != weak || write == "" {
		return history.Value{}, false
	}
	return casTo(m, o)
}

// canonical returns the canonical name of the first operation m classes
// as c, or "" when it has none.
func canonical(m model.Info, c model.OpClass) string {
	for _, o := range m.Ops {
		if o.Class == c && len(o.Names) > 0 {
			return o.Names[0]
		}
	}
	return ""
}

// casTo returns the new value of a compare-and-set.
func casTo(m model.Info, o *history.Op) (history.Value, bool) {
	if m.ClassOf(o.F) == model.CASOp {
		if _, to, ok := o.Value.Pair(); ok {
			return to, true
		}
	}
	return history.Value{}, false
}
