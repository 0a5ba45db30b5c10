package shrink

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/histcheck/histcheck/history"
)

// form is what becomes of one operation of the original history in a
// reduced one.
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
	// weak: may take effect at any time, or never, with any result.
	weak
)

// isRead reports whether an operation only observes: a read of a register
// or key. Models leave the state alone for a read of unknown outcome and
// accept any result for it, so such a read carries no information and
// dropping it changes no verdict.
func isRead(o *history.Op) bool {
	switch o.F {
	case "read", "r", "get":
		return true
	}
	return false
}

// Weaken returns a copy of h in which the operations at the given
// positions are weakened: a read is dropped, and any other operation gets
// unknown outcome, a call before every other operation and a logical
// process of its own, so that it may take effect at any time, or never,
// with any result. Failed operations at those positions are dropped (they
// had no effect). Weakening maps a history that satisfies a criterion to one
// that still does, so a weakened history that fails proves h fails. Out of
// range positions are ignored. Weaken returns nil only when h breaks the
// pairing rules of history.FromOps (two operations of a logical process
// overlap), which a validated history never does.
func Weaken(h *history.History, positions []int) *history.History {
	forms := make([]form, len(h.Ops))
	for i := range h.Ops {
		forms[i] = kept
		if h.Ops[i].Status == history.Info {
			forms[i] = inFlight
		}
	}
	for _, p := range positions {
		if p >= 0 && p < len(h.Ops) {
			forms[p] = weakForm(&h.Ops[p])
		}
	}
	out, _, err := build(h, forms)
	if err != nil {
		return nil
	}
	return out
}

// weakForm is how an operation is weakened: reads and failed operations
// are dropped, everything else becomes optional at any time.
func weakForm(o *history.Op) form {
	if o.Status == history.Fail || isRead(o) {
		return dropped
	}
	return weak
}

// build makes the reduced history that forms describe, and for each of its
// operations the position in h of the operation it came from.
//
// Weakened operations come first, all called at h's earliest call time and
// with unknown outcome, each under a fresh client name ("A~1"), so that no
// real-time or process order binds them; a weakened cas becomes an optional
// write of its new value. Kept operations keep their logical processes; when
// leaving operations out would join two logical processes of one client
// (the operation of unknown outcome between them was dropped or weakened),
// the later one gets a new name ("A#2"), so that no process order is added.
func build(h *history.History, forms []form) (*history.History, []int, error) {
	if len(h.Ops) == 0 {
		return &history.History{Meta: h.Meta}, nil, nil
	}
	minCall := h.Ops[0].Call
	for i := range h.Ops {
		minCall = min(minCall, h.Ops[i].Call)
	}
	names := make(map[string]bool, h.Clients)
	for i := range h.Ops {
		names[h.Ops[i].Client] = true
	}
	type client struct {
		proc     int  // original logical process of the latest kept operation
		unknown  bool // the latest kept operation has unknown outcome
		name     string
		numbered int // logical processes seen so far
	}
	clients := make(map[string]*client)
	var order []int
	for i := range h.Ops {
		if forms[i] != dropped {
			order = append(order, i)
		}
	}
	// A validated history is in call order already; sorting keeps origin
	// aligned with FromOps's order for any other input too.
	callOf := func(i int) int64 {
		if forms[i] == weak {
			return minCall
		}
		return h.Ops[i].Call
	}
	sort.SliceStable(order, func(a, b int) bool { return callOf(order[a]) < callOf(order[b]) })
	var ops []history.Op
	var origin []int
	fresh := func(base string) string {
		for n := 1; ; n++ {
			name := base + "~" + strconv.Itoa(n)
			if !names[name] {
				names[name] = true
				return name
			}
		}
	}
	for _, i := range order {
		o := h.Ops[i]
		if forms[i] == weak {
			o.Return, o.Status = history.Infinity, history.Info
			if to, ok := casTo(&o); ok {
				// A cas with any result either stored its new value or
				// changed nothing, as an optional write of that value does;
				// the write compares with nothing, so it observes nothing.
				o.F, o.Value = "write", to
			}
			o.Call = minCall
			o.Client = fresh(o.Client)
			ops = append(ops, o)
			origin = append(origin, i)
			continue
		}
		if forms[i] == inFlight {
			o.Status, o.Return = history.Info, history.Infinity
		}
		c := clients[o.Client]
		switch {
		case c == nil:
			c = &client{proc: o.Process, name: o.Client, numbered: 1}
			clients[o.Client] = c
		case c.proc != o.Process:
			c.numbered++
			if !c.unknown {
				// The operation of unknown outcome that ended the previous
				// logical process is gone: name this one apart.
				n := c.numbered
				name := o.Client + "#" + strconv.Itoa(n)
				for names[name] {
					n++
					name = o.Client + "#" + strconv.Itoa(n)
				}
				names[name] = true
				c.name = name
			}
			// Otherwise the previous name's latest operation has unknown
			// outcome, so FromOps starts a new logical process under it.
			c.proc = o.Process
		}
		c.unknown = o.Status == history.Info
		o.Client = c.name
		ops = append(ops, o)
		origin = append(origin, i)
	}
	out, err := history.FromOps(ops)
	if err != nil {
		return nil, nil, fmt.Errorf("shrink: reduced history is invalid: %w", err)
	}
	// FromOps sorts stably by call; weakened operations come first and
	// share the earliest call, and kept ones were already in call order, so
	// positions are unchanged and origin still lines up.
	out.Warnings = nil
	out.Meta = h.Meta
	out.Ignored = 0
	return out, origin, nil
}

// casTo returns the new value of a compare-and-set.
func casTo(o *history.Op) (history.Value, bool) {
	if (o.F == "cas" || o.F == "compare-and-set") && o.Value.Kind() == history.List && o.Value.Len() == 2 {
		return o.Value.Elems()[1], true
	}
	return history.Value{}, false
}
