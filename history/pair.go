package history

import (
	"fmt"
	"sort"
	"strconv"
)

// IsNemesis reports whether a process name is Jepsen's fault injector, whose
// events are not operations of the system under test.
func IsNemesis(process string) bool { return process == "nemesis" || process == ":nemesis" }

// where builds an InputError at an event or operation: its line when known,
// else its 1-based position.
func where(line, pos int, format string, args ...any) *InputError {
	e := &InputError{Line: line, Msg: fmt.Sprintf(format, args...)}
	if line <= 0 {
		e.Line = 0
		e.Op = pos + 1
	}
	return e
}

// lineRef names a place for messages: "line 12", or "event 12" when the
// input has no lines.
func lineRef(line, pos int, unit string) string {
	if line > 0 {
		return "line " + strconv.Itoa(line)
	}
	return unit + " " + strconv.Itoa(pos+1)
}

// article returns "a" or "an" for an operation name in messages.
func article(f string) string {
	if f != "" && (f[0] == 'a' || f[0] == 'e' || f[0] == 'i' || f[0] == 'o' || f[0] == 'u') {
		return "an " + f
	}
	return "a " + f
}

// restarts collects, per client, the invocations that followed an operation
// with unknown outcome, so that the user gets one warning per client.
type restarts struct {
	order []string
	first map[string]int // line of the first such invocation
	pos   map[string]int
	count map[string]int
	unit  string
}

func newRestarts(unit string) *restarts {
	return &restarts{first: map[string]int{}, pos: map[string]int{}, count: map[string]int{}, unit: unit}
}

func (r *restarts) add(client string, line, pos int) {
	if r.count[client] == 0 {
		r.order = append(r.order, client)
		r.first[client] = line
		r.pos[client] = pos
	}
	r.count[client]++
}

// maxRestartWarnings bounds the warning lines about restarted clients; the
// rest are summarised in one line.
const maxRestartWarnings = 10

func (r *restarts) warnings() []string {
	var out []string
	for i, c := range r.order {
		if i == maxRestartWarnings {
			out = append(out, fmt.Sprintf("%d more processes invoked again after an operation with unknown outcome; each was treated as a new logical process", len(r.order)-i))
			break
		}
		w := fmt.Sprintf("process %s invoked again after an operation with unknown outcome (%s); treating it as a new logical process",
			c, lineRef(r.first[c], r.pos[c], r.unit))
		if n := r.count[c]; n > 1 {
			w += fmt.Sprintf(" (%d times in all)", n)
		}
		out = append(out, w)
	}
	return out
}

// mergeFields returns a's fields overridden and extended by b's.
func mergeFields(a, b []Field) []Field {
	if len(b) == 0 {
		return a
	}
	out := append([]Field(nil), a...)
	for _, f := range b {
		replaced := false
		for i := range out {
			if out[i].Name == f.Name {
				out[i].Value = f.Value
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, f)
		}
	}
	return out
}

// orValue returns b if given, else a.
func orValue(a, b Value) Value {
	if b.IsNone() {
		return a
	}
	return b
}

// Pair builds a validated History from an event history: each invocation is
// closed by the next completion of the same process; events of the fault
// injector ("nemesis") are left out. Logical processes are numbered in
// order of their first call. Errors are *InputError naming the
// event's line (or its position when the events carry no lines).
func Pair(events []Event) (*History, error) {
	h := &History{}
	type client struct {
		open    int // index in ops of the open invocation, or -1
		proc    int
		unknown bool // the last operation ended with unknown outcome
	}
	clients := map[string]*client{}
	var ops []Op
	var opened []int // event position of each op's invocation
	rs := newRestarts("event")
	timed, decided := false, false
	for pos := range events {
		e := &events[pos]
		if IsNemesis(e.Process) {
			h.Ignored++
			continue
		}
		if e.Process == "" {
			return nil, where(e.Line, pos, "event has no process")
		}
		if !decided {
			timed, decided = e.HasTime, true
		} else if e.HasTime != timed {
			if timed {
				return nil, where(e.Line, pos, "event has no time but the events before it do; give every event a time or none")
			}
			return nil, where(e.Line, pos, "event has a time but the events before it do not; give every event a time or none")
		}
		if e.HasTime && e.Time == Infinity {
			return nil, where(e.Line, pos, "time %d is too large", e.Time)
		}
		at := int64(pos)
		if timed {
			at = e.Time
		}
		c := clients[e.Process]
		if e.Type == Invoke {
			switch {
			case c == nil:
				c = &client{open: -1, proc: h.Processes}
				h.Processes++
				h.Clients++
				clients[e.Process] = c
			case c.open >= 0:
				o := &ops[c.open]
				return nil, where(e.Line, pos, "process %s invokes %s but its %s from %s has not completed; a process runs one operation at a time",
					e.Process, article(e.F), o.F, lineRef(o.Line, opened[c.open], "event"))
			case c.unknown:
				rs.add(e.Process, e.Line, pos)
				c.proc = h.Processes
				h.Processes++
				c.unknown = false
			}
			idx := int64(pos)
			if e.HasIdx {
				idx = e.Index
			}
			c.open = len(ops)
			ops = append(ops, Op{
				Index: idx, Process: c.proc, Client: e.Process, F: e.F, Value: e.Value,
				Key: e.Key, Version: e.Version, Token: e.Token, Call: at, Return: Infinity,
				Status: Info, Extra: e.Extra, Line: e.Line,
			})
			opened = append(opened, pos)
			continue
		}
		if e.Type != OK && e.Type != Fail && e.Type != Info {
			return nil, where(e.Line, pos, "event has unknown type %s", e.Type)
		}
		if c == nil || c.open < 0 {
			return nil, where(e.Line, pos, "process %s completes %s but has no open invocation", e.Process, article(e.F))
		}
		o := &ops[c.open]
		if e.F != o.F {
			return nil, where(e.Line, pos, "process %s completes %s but its open invocation (%s) is %s",
				e.Process, article(e.F), lineRef(o.Line, opened[c.open], "event"), article(o.F))
		}
		if at < o.Call {
			return nil, where(e.Line, pos, "completion time %d is before its invocation's time %d (%s)",
				at, o.Call, lineRef(o.Line, opened[c.open], "event"))
		}
		o.Status = e.Type
		switch e.Type {
		case OK:
			o.Value = orValue(o.Value, e.Value)
			o.Return = at
		case Fail:
			o.Return = at
		}
		o.Key = orValue(o.Key, e.Key)
		o.Version = orValue(o.Version, e.Version)
		o.Token = orValue(o.Token, e.Token)
		o.Extra = mergeFields(o.Extra, e.Extra)
		c.open = -1
		c.unknown = e.Type == Info
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	// Number logical processes by first call, so that the numbering does
	// not depend on how the input interleaved its events.
	renumber := make([]int, h.Processes)
	for i := range renumber {
		renumber[i] = -1
	}
	next := 0
	for i := range ops {
		p := ops[i].Process
		if renumber[p] < 0 {
			renumber[p] = next
			next++
		}
		ops[i].Process = renumber[p]
	}
	h.Ops = ops
	h.Warnings = rs.warnings()
	return h, nil
}

// FromOps validates operations written directly with call and return times
// (Client set, Line set when known): Return >= Call, and one process runs
// one operation at a time. An operation with unknown outcome gets Return =
// Infinity; a client that continues after one becomes a new logical process.
// Processes are numbered in order of first call; Ops end up sorted by Call.
func FromOps(in []Op) (*History, error) {
	ops := append([]Op(nil), in...)
	pos := make([]int, len(ops)) // input position, for messages
	for i := range ops {
		o := &ops[i]
		pos[i] = i
		if o.Client == "" {
			return nil, where(o.Line, i, "operation has no process")
		}
		switch o.Status {
		case OK, Fail:
			if o.Return == Infinity {
				return nil, where(o.Line, i, "%s operation needs a return time; an operation with unknown outcome has status info", article(o.Status.String()))
			}
		case Info:
			o.Return = Infinity
		default:
			return nil, where(o.Line, i, "operation has status %s; expected ok, fail or info", o.Status)
		}
		if o.Call == Infinity {
			return nil, where(o.Line, i, "call time %d is too large", o.Call)
		}
		if o.Return < o.Call {
			return nil, where(o.Line, i, "return time %d is before call time %d", o.Return, o.Call)
		}
	}
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ops[order[a]].Call < ops[order[b]].Call })
	type client struct {
		proc int
		last int // position in ops of the client's latest operation
	}
	h := &History{}
	clients := map[string]*client{}
	rs := newRestarts("operation")
	for _, i := range order {
		o := &ops[i]
		c := clients[o.Client]
		switch {
		case c == nil:
			c = &client{proc: h.Processes}
			h.Processes++
			h.Clients++
			clients[o.Client] = c
		case ops[c.last].Status == Info:
			rs.add(o.Client, o.Line, pos[i])
			c.proc = h.Processes
			h.Processes++
		case o.Call < ops[c.last].Return:
			p := &ops[c.last]
			a, b := lineRef(p.Line, pos[c.last], "operation"), lineRef(o.Line, pos[i], "operation")
			if p.Line > 0 && o.Line > 0 {
				l1, l2 := min(p.Line, o.Line), max(p.Line, o.Line)
				a, b = "lines "+strconv.Itoa(l1), strconv.Itoa(l2)
			} else {
				b = b[len("operation "):]
				a = "operations " + a[len("operation "):]
			}
			line := max(p.Line, o.Line)
			return nil, where(line, pos[i], "process %s has two operations open at once: %s and %s", o.Client, a, b)
		}
		o.Process = c.proc
		c.last = i
	}
	sorted := make([]Op, len(ops))
	for k, i := range order {
		sorted[k] = ops[i]
	}
	h.Ops = sorted
	h.Warnings = rs.warnings()
	return h, nil
}

// Events turns the history back into an event history that Pair reads as
// the same operations: an invocation at Call and a completion at Return,
// each carrying its time. An operation with unknown outcome gets an info
// completion at its call time, written right after its invocation. Events
// are ordered by time; at equal times, completions of earlier operations
// come first, then each invocation followed by its completion if that has
// the same time.
func (h *History) Events() []Event {
	type keyed struct {
		t     int64
		rank  int // 0: completion of an earlier op; 1: invocation or its same-time completion
		seq   int // operation order
		sub   int // 0: invocation; 1: completion
		event Event
	}
	ks := make([]keyed, 0, 2*len(h.Ops))
	for i := range h.Ops {
		o := &h.Ops[i]
		inv := Event{Process: o.Client, Type: Invoke, F: o.F, Value: o.Value, Key: o.Key, Version: o.Version,
			Token: o.Token, Time: o.Call, HasTime: true, Index: o.Index, HasIdx: true, Extra: o.Extra}
		done := inv
		done.Type, done.HasIdx, done.Index = o.Status, false, 0
		inv.Extra = nil // the completion carries them; pairing merges them back
		ks = append(ks, keyed{t: o.Call, rank: 1, seq: i, event: inv})
		switch {
		case o.Status == Info || o.Return == Infinity:
			done.Type = Info
			ks = append(ks, keyed{t: o.Call, rank: 1, seq: i, sub: 1, event: done})
		case o.Return == o.Call:
			ks = append(ks, keyed{t: o.Call, rank: 1, seq: i, sub: 1, event: done})
		default:
			done.Time = o.Return
			ks = append(ks, keyed{t: o.Return, rank: 0, seq: i, sub: 1, event: done})
		}
	}
	sort.SliceStable(ks, func(a, b int) bool {
		x, y := &ks[a], &ks[b]
		if x.t != y.t {
			return x.t < y.t
		}
		if x.rank != y.rank {
			return x.rank < y.rank
		}
		if x.seq != y.seq {
			return x.seq < y.seq
		}
		return x.sub < y.sub
	})
	out := make([]Event, len(ks))
	for i := range ks {
		out[i] = ks[i].event
	}
	return out
}
