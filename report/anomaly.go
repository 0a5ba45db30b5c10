package report

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// anomaly says in words what a transactional anomaly is: a cycle step by
// step, or the case it rests on.
func (w *words) anomaly() string {
	a := w.v.Anomaly
	if len(w.v.Cycle) > 0 {
		return explainCycle(w.h, w.reads, w.v.Cycle, a != nil && a.Appends)
	}
	if a == nil {
		return w.v.Pattern
	}
	return explainCase(w.h, w.reads, w.v.Pattern, w.v.Ops, a)
}

// explainCycle says in words why the transactions of a cycle cannot be
// ordered: it names them T1, T2, … in the cycle's order, then gives each
// step's reason, the last one closing the contradiction. appends says
// the values are list elements (list-append) rather than register values.
func explainCycle(h *history.History, reads *readIndex, steps []checker.Dependency, appends bool) string {
	var sb strings.Builder
	name := map[int]string{}
	sb.WriteString("Let:\n")
	for i, d := range steps {
		name[d.From] = fmt.Sprintf("T%d", i+1)
		fmt.Fprintf(&sb, "  T%d = %s\n", i+1, h.Ops[d.From].Label())
	}
	sb.WriteString("Then:\n")
	for i, d := range steps {
		a, b := name[d.From], name[d.To]
		lead := "  - "
		if i == len(steps)-1 && len(steps) > 1 {
			lead += "However, "
		}
		fmt.Fprintf(&sb, "%s%s < %s, because %s", lead, a, b, stepReason(h, reads, d, a, b, appends))
		if i == len(steps)-1 {
			sb.WriteString(": a contradiction!")
		} else {
			sb.WriteString(".\n")
		}
	}
	return sb.String()
}

// stepReason says why transaction a (From) precedes b (To).
func stepReason(h *history.History, reads *readIndex, d checker.Dependency, a, b string, appends bool) string {
	key := d.Key.String()
	switch d.Type {
	case "wr":
		if appends {
			return fmt.Sprintf("%s read %s's append of %s to %s", b, a, d.Value, key)
		}
		return fmt.Sprintf("%s read %s's write of %s to %s", b, a, d.Value, key)
	case "ww":
		if appends {
			said := fmt.Sprintf("%s appended %s to %s after %s's append of %s", b, d.Next, key, a, d.Value)
			if _, ok := reads.showsOrder(d.Key, d.Value, d.Next, false); ok {
				// The read is not named: the explanation names the
				// cycle's transactions only.
				return said + fmt.Sprintf(" (observed: a committed read of %s shows %s before %s)", key, d.Value, d.Next)
			}
			return said + fmt.Sprintf(" (inferred from the order of %s's appends that its reads imply: no read shows %s and %s together)", key, d.Value, d.Next)
		}
		return fmt.Sprintf("%s overwrote %s's write of %s to %s with %s", b, a, d.Value, key, d.Next)
	case "rw":
		state := fmt.Sprintf("the version of %s ending in %s", key, d.Value)
		switch {
		case d.Value.IsNone() && appends:
			state = fmt.Sprintf("the initial (empty) state of %s", key)
		case d.Value.IsNone():
			state = fmt.Sprintf("the initial (nil) state of %s", key)
		case !appends:
			state = fmt.Sprintf("%s = %s", key, d.Value)
		}
		if appends {
			said := fmt.Sprintf("%s read %s, which %s changed by appending %s", a, state, b, d.Next)
			if _, ok := reads.showsOrder(d.Key, d.Value, d.Next, true); ok {
				return said + fmt.Sprintf(" (observed: a committed read of %s shows %s right after it)", key, d.Next)
			}
			return said + fmt.Sprintf(" (inferred: no read shows %s right after it; the order of %s's appends that its reads imply puts it next)", d.Next, key)
		}
		return fmt.Sprintf("%s read %s, which %s overwrote with %s", a, state, b, d.Next)
	case "process":
		return fmt.Sprintf("process %s ran %s before %s", history.Quote(h.Ops[d.From].Client), a, b)
	case "realtime":
		return fmt.Sprintf("%s completed before %s began", a, b)
	}
	return "of a dependency of kind " + d.Type
}

// explainCase says in words what an anomaly that is not a cycle is; ops
// are its transactions, the one that observed first.
func explainCase(h *history.History, reads *readIndex, name string, ops []int, c *checker.Anomaly) string {
	label := func(i int) string { return h.Ops[ops[i]].Label() }
	switch name {
	case "G1a":
		return fmt.Sprintf("%s read %s in %s, which %s appended or wrote, but that transaction failed: an aborted read",
			label(0), c.Element, c.Mop, label(1))
	case "G1b":
		return fmt.Sprintf("%s read %s in %s, an intermediate version of %s: %s wrote to %s again before it committed",
			label(0), c.Element, c.Mop, c.Key, label(1), c.Key)
	case "internal":
		if c.Element == history.StringValue("suffix") {
			return fmt.Sprintf("%s read %s, which does not end with its own appends %s", label(0), c.Mop, history.ListValue(c.Values...))
		}
		expected := history.ListValue(c.Values...)
		if !c.Appends {
			expected = c.Values[0]
		}
		return fmt.Sprintf("%s read %s, although its own earlier micro-operations say %s is %s", label(0), c.Mop, c.Key, expected)
	case "future-read":
		return fmt.Sprintf("%s read %s, which holds %s, an element the transaction appends only later", label(0), c.Mop, c.Element)
	case "duplicate-elements":
		return fmt.Sprintf("%s read %s, in which %s appears more than once", label(0), c.Mop, c.Element)
	case "incompatible-order":
		return fmt.Sprintf("%s read %s = %s, which is not a prefix of the longest read of %s, %s: the two cannot come from one order of appends",
			label(0), c.Key, c.Values[0], c.Key, c.Values[1])
	case "dirty-update":
		return fmt.Sprintf("%s appended %s to %s after %s, which %s appended, but that transaction failed",
			label(1), c.Values[1], c.Key, c.Values[0], label(0))
	case "fractured-read":
		const tail = ": it saw that transaction's effects in part, a fractured read, which monotonic atomic view rules out"
		if c.Appends {
			return fmt.Sprintf("%s read %s, which %s appended to %s, then read %s, without %s's append of %s to %s"+tail,
				label(0), c.Values[1], label(1), c.Values[0], c.Mop, label(1), c.Element, c.Key)
		}
		return fmt.Sprintf("%s read %s, which %s wrote to %s, then read %s, a version of %s before %s's write of %s"+tail,
			label(0), c.Values[1], label(1), c.Values[0], c.Mop, c.Key, label(1), c.Element)
	case "lost-update":
		return lostUpdate(h, reads, ops, c)
	case "cycle-exists":
		return explainComponent(ops, c)
	case "cyclic-versions":
		vs := make([]string, len(c.Values))
		for i, v := range c.Values {
			vs[i] = v.String()
		}
		return fmt.Sprintf("the versions of %s are ordered in a cycle: %s < %s", c.Key, strings.Join(vs, " < "), vs[0])
	}
	return name
}

// lostUpdate says what a lost update is: transactions that read the same
// version of a key and then each wrote it. With registers, all but the
// last write are lost. With atomic appends none need be: when a later read
// holds every one of their appends, the story says so, and that the
// anomaly is each writing after a read the others' appends made stale.
func lostUpdate(h *history.History, reads *readIndex, ops []int, c *checker.Anomaly) string {
	names := make([]string, len(ops))
	var appended []history.Value
	for i, p := range ops {
		names[i] = h.Ops[p].Label()
		appended = append(appended, appendsOf(h, p, c.Key)...)
	}
	who := strings.Join(names, ", ")
	if !c.Appends {
		return fmt.Sprintf("%s all read the same version of %s (%s) and all wrote %s: one of them lost the others' updates",
			who, c.Key, c.Values[0], c.Key)
	}
	said := fmt.Sprintf("%s all read the same version of %s (%s) and then each appended to %s", who, c.Key, c.Values[0], c.Key)
	if len(appended) > 0 && reads.readAll(c.Key, appended) {
		return said + fmt.Sprintf(": a later read of %s holds all their appends (%s), so none was lost, but each wrote after a read that the others' appends made stale",
			c.Key, history.ListValue(appended...))
	}
	return said + ": each wrote after a read that the others' appends made stale"
}

// explainComponent says what a strongly connected component proves when
// the cycle search gave up before it found the component's cycle: that
// some cycle exists, of one of the classes its dependencies allow. ops
// are some of the component's transactions.
func explainComponent(ops []int, c *checker.Anomaly) string {
	kinds := strings.Join(c.Kinds, ", ")
	if c.Nonadjacent {
		kinds += " (never two rw in a row)"
	}
	which := "its transactions are those above"
	if c.Component > len(ops) {
		which = fmt.Sprintf("the %d transactions above are some of them", len(ops))
	}
	return fmt.Sprintf("an SCC of %d transactions proves a cycle exists; its class was not determined within the budget. "+
		"Its dependencies are %s, so the cycle is one of %s; %s",
		c.Component, kinds, strings.Join(c.Classes, ", "), which)
}
