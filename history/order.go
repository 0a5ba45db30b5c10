package history

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
)

// Ordering says where a history's real-time order comes from, and so what
// its operations' Call and Return mean.
type Ordering uint8

const (
	// TimeOrder orders operations by their recorded times: Call and
	// Return are times. Operations written with call and return times
	// are in time order; so is a history built by hand. An operation
	// whose return time equals another's call time overlaps it, unless
	// both belong to one process, which runs one operation after the
	// other whatever its clock says.
	TimeOrder Ordering = iota
	// FileOrder orders operations by the place of their events in the
	// input: Call and Return are event positions, and each operation's
	// recorded times, if any, are in Times. This is the order of Jepsen's
	// event histories, whose times are informational and may go backwards
	// across nodes.
	FileOrder
)

func (o Ordering) String() string {
	if o == FileOrder {
		return "events"
	}
	return "times"
}

// ParseOrdering reads "events" (file order) or "times".
func ParseOrdering(s string) (Ordering, bool) {
	switch s {
	case "events", "file":
		return FileOrder, true
	case "times", "time":
		return TimeOrder, true
	}
	return 0, false
}

// Span is a pair of instants: an operation's call and return.
type Span struct{ Call, Return int64 }

// inversions records where recorded times contradict the file order.
type inversions struct {
	count int
	first string // the first contradiction, for the note
	// bad is the first pair of events of one operation or one process
	// whose times go backwards: ordering by times then fails with it.
	bad *InputError
}

// OrderByTimes puts a history read from events in time order: each
// operation's Call and Return become its recorded times. It is an error
// when the events carry no times, or when a process's own events go
// backwards in time. The note that times contradict the file order then
// says the times are used.
func (h *History) OrderByTimes() error {
	if h.Order == TimeOrder {
		return nil
	}
	if h.inv.bad != nil {
		return h.inv.bad // some events have no time, or times that go backwards
	}
	if !h.Timed && len(h.Ops) > 0 {
		return Errorf(0, "the events carry no times, so only their order in the input is known")
	}
	for i := range h.Ops {
		o := &h.Ops[i]
		o.Call, o.Return = o.Times.Call, o.Times.Return
		if o.Status == Info {
			o.Return = Infinity
		}
	}
	if n := h.inv.note(); n != "" {
		h.Warnings = append(removeString(h.Warnings, n), h.inv.timesNote())
	}
	sortByCall(h.Ops)
	renumber(h.Ops, h.Processes)
	h.Order = TimeOrder
	return nil
}

// sortByCall sorts ops by Call, stably. Most inputs record their events
// as they happened, so the operations are in call order already: a check
// of that costs one pass, a sort of a million operations a tenth of a
// second even when it moves none.
func sortByCall(ops []Op) {
	for i := 1; i < len(ops); i++ {
		if ops[i].Call < ops[i-1].Call {
			sort.SliceStable(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
			return
		}
	}
}

// note says where the times contradict the file order, and that the
// file order is used; "" when they agree.
func (v *inversions) note() string { return v.say("as in the input") }

// timesNote is note for a history put in time order.
func (v *inversions) timesNote() string { return v.say("by their times") }

func (v *inversions) say(how string) string {
	if v.count == 0 {
		return ""
	}
	return fmt.Sprintf("the times of %d event(s) contradict their order in the input, first %s; the events are ordered %s", v.count, v.first, how)
}

func removeString(ss []string, s string) []string {
	if s == "" {
		return ss
	}
	var out []string
	for _, x := range ss {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// renumber numbers logical processes by first call, so that the numbering
// does not depend on how the input interleaved its events.
func renumber(ops []Op, processes int) {
	m := make([]int, processes)
	for i := range m {
		m[i] = -1
	}
	next := 0
	for i := range ops {
		q := ops[i].Process
		if m[q] < 0 {
			m[q] = next
			next++
		}
		ops[i].Process = m[q]
	}
}

// RealTime is a history's real-time order in a form searches use
// directly: operation i precedes operation j exactly when
// Spans[i].Return < Spans[j].Call, or, when Tangled, also when both
// belong to one client, i comes first and i completed.
//
// A client runs one operation after another: each of its operations
// follows the ones it completed before, whatever the clock says. (One it
// invoked again after an operation of unknown outcome, a new logical
// process, follows the operations that client completed before that one;
// the operation of unknown outcome itself precedes nothing.)
type RealTime struct {
	Spans []Span
	// Touching reports that some client's operation returns at the
	// instant its next is called: Spans then differ from the times in
	// more than scale.
	Touching bool
	// Tangled reports that at some instant two or more clients each end
	// an operation and start their next one: no assignment of instants
	// keeps both their own order and their operations' overlap with each
	// other's, so Spans keeps the overlap and a search must also keep each
	// client's order itself.
	Tangled bool
}

// rtPoint is one end of an operation, for RealTime.
type rtPoint struct {
	t    int64
	op   int32 // index into Ops and the spans: a client's operations are in its order
	ret  bool
	proc int // the client, numbered
}

// RealTime returns the order of h's operations in real time. Operations
// whose times tie overlap (as Porcupine and Knossos read them), except
// that a client runs one operation after another: when one of its
// operations returns at the instant its next is called, the first
// precedes the second. Ends at one instant that no rule separates stay
// equal, so that identical operations stay identical.
func (h *History) RealTime() RealTime { return h.realTime(false) }

// SerialRealTime is RealTime for checkers that read a history as one
// sequence of events: at an instant where RealTime is Tangled, every
// client's own order is kept rather than the overlaps between clients, as
// History.Events orders the events.
func (h *History) SerialRealTime() RealTime { return h.realTime(true) }

// realTime is RealTime; with serial, a tangled instant keeps every
// client's order instead of the overlaps (see place), as a sequence of
// events must.
func (h *History) realTime(serial bool) RealTime {
	n := len(h.Ops)
	rt := RealTime{Spans: make([]Span, n)}
	calls, rets := make([]rtPoint, 0, n), make([]rtPoint, 0, n)
	clients := map[string]int{}
	for i := range h.Ops {
		o := &h.Ops[i]
		c, ok := clients[o.Client]
		if !ok {
			c = len(clients)
			clients[o.Client] = c
		}
		calls = append(calls, rtPoint{t: o.Call, op: int32(i), proc: c})
		if o.Return != Infinity {
			rets = append(rets, rtPoint{t: o.Return, op: int32(i), ret: true, proc: c})
		} else {
			rt.Spans[i].Return = Infinity
		}
	}
	// Within an instant: by client, then in the client's own order (Ops
	// are sorted by call, a client's own in its order), a call before its
	// return. The order is total (an operation has one call and one
	// return), so any sort gives the same; the calls come nearly sorted,
	// so the two ends are sorted apart and merged.
	sortPoints(calls)
	sortPoints(rets)
	pts := make([]rtPoint, 0, len(calls)+len(rets))
	for len(calls) > 0 && len(rets) > 0 {
		if comparePoints(rets[0], calls[0]) < 0 {
			pts, rets = append(pts, rets[0]), rets[1:]
		} else {
			pts, calls = append(pts, calls[0]), calls[1:]
		}
	}
	pts = append(append(pts, calls...), rets...)
	var next int64
	for lo := 0; lo < len(pts); {
		hi := lo
		for hi < len(pts) && pts[hi].t == pts[lo].t {
			hi++
		}
		next = rt.place(pts[lo:hi], next, serial)
		lo = hi
	}
	return rt
}

// sortPoints sorts the ends of operations by comparePoints. Recorded
// times usually span a range not much wider than there are ends (such as
// milliseconds of a run): then the ends are counted into their times,
// keeping their order, and only the ends of each instant are sorted among
// themselves. Any other range is sorted whole.
func sortPoints(pts []rtPoint) {
	if len(pts) < 2 {
		return
	}
	lo, hi := pts[0].t, pts[0].t
	for _, p := range pts {
		lo, hi = min(lo, p.t), max(hi, p.t)
	}
	width := uint64(hi) - uint64(lo) // the distance, even past int64's range
	if width >= uint64(4*len(pts)+16) {
		slices.SortFunc(pts, comparePoints)
		return
	}
	starts := make([]int32, width+2)
	for _, p := range pts {
		starts[uint64(p.t)-uint64(lo)+1]++
	}
	for i := 1; i < len(starts); i++ {
		starts[i] += starts[i-1]
	}
	sorted := make([]rtPoint, len(pts))
	for _, p := range pts {
		k := uint64(p.t) - uint64(lo)
		sorted[starts[k]] = p
		starts[k]++
	}
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j].t == sorted[i].t {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(sorted[i:j], comparePoints)
		}
		i = j
	}
	copy(pts, sorted)
}

// comparePoints orders the ends of operations: by time, then client, then
// operation, a call before its return.
func comparePoints(x, y rtPoint) int {
	switch {
	case x.t != y.t:
		return cmp.Compare(x.t, y.t)
	case x.proc != y.proc:
		return cmp.Compare(x.proc, y.proc)
	case x.op != y.op:
		return cmp.Compare(x.op, y.op)
	case x.ret == y.ret:
		return 0
	case y.ret:
		return -1
	}
	return 1
}

// place gives the ends at one instant their instants from next on and
// returns the first instant after them: calls first (one instant), then
// each end of the one client whose operations touch (one instant each),
// then returns (one instant). With two or more such clients no placement
// keeps every rule: rt is Tangled, and the overlap is kept, or, when
// serial, each client's order, by placing the clients' ends one client
// after another (a sequence of events must).
func (rt *RealTime) place(group []rtPoint, next int64, serial bool) int64 {
	chains := map[int]bool{}
	m := 0
	for i := 0; i < len(group); {
		j, touch, ret := i, false, false
		for j < len(group) && group[j].proc == group[i].proc {
			// A call after a return of the same client is its next
			// operation's: the client runs one after the other.
			touch = touch || ret && !group[j].ret
			ret = ret || group[j].ret
			j++
		}
		if touch {
			chains[group[i].proc] = true
			m += j - i
		}
		i = j
	}
	if len(chains) > 0 {
		rt.Touching = true
	}
	if len(chains) > 1 {
		rt.Tangled = true
		if !serial {
			chains, m = nil, 0
		}
	}
	calls, rets := next, next+1+int64(m)
	k := calls + 1
	for _, p := range group {
		s := &rt.Spans[p.op]
		switch {
		case chains[p.proc]:
			at(s, p.ret, k)
			k++
		case p.ret:
			s.Return = rets
		default:
			s.Call = calls
		}
	}
	return rets + 1
}

func at(s *Span, ret bool, t int64) {
	if ret {
		s.Return = t
	} else {
		s.Call = t
	}
}
