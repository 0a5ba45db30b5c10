// Package history holds concurrent histories: the events a recorder or a
// log gives (invocations and completions), the operations they pair into, the
// validation of the pairing rules, and a Recorder for Go tests.
package history

import (
	"fmt"
	"math"
)

// Type is the type of an event: an invocation or one of Jepsen's three
// completion types.
type Type uint8

// Event types.
const (
	Invoke Type = iota
	OK
	Fail
	Info
)

func (t Type) String() string {
	switch t {
	case Invoke:
		return "invoke"
	case OK:
		return "ok"
	case Fail:
		return "fail"
	case Info:
		return "info"
	}
	return fmt.Sprintf("type(%d)", uint8(t))
}

// ParseType reads "invoke", "ok", "fail" or "info" (with or without a
// leading colon).
func ParseType(s string) (Type, bool) {
	if len(s) > 0 && s[0] == ':' {
		s = s[1:]
	}
	switch s {
	case "invoke":
		return Invoke, true
	case "ok":
		return OK, true
	case "fail":
		return Fail, true
	case "info":
		return Info, true
	}
	return 0, false
}

// Field is a named value carried by an event or operation that histcheck
// does not interpret itself; it is kept in input order and shown in reports.
type Field struct {
	Name  string
	Value Value
}

// Event is one line of an event history: an invocation or a completion.
type Event struct {
	Process string // process name as written in the input ("0", "A", "nemesis")
	Type    Type
	F       string // operation name as written, without a leading colon
	Value   Value
	Key     Value // from a key field; None if absent
	Version Value // explicit version (e.g. an etcd revision); None if absent
	Token   Value // fencing token; None if absent
	Time    int64
	HasTime bool
	Index   int64 // the input's own index field
	HasIdx  bool
	Extra   []Field
	Line    int // 1-based source line, 0 if unknown
}

// Infinity is the return time of an operation whose outcome is unknown.
const Infinity int64 = math.MaxInt64

// Op is one operation of a history: an invocation paired with its
// completion, or an operation written directly with call and return times.
type Op struct {
	// Index is the input's own index when given, else the position of the
	// operation's invocation in the input (0-based). FromOps keeps it as
	// the caller set it.
	Index int64
	// Process is the logical process: a dense number starting at 0. A client
	// that invokes again after an operation with unknown outcome gets a new
	// logical process (see Client for its name in the input).
	Process int
	// Client is the process name as written in the input.
	Client string
	// F is the operation name as written (without a leading colon).
	F string
	// Value is the operation's value in Jepsen's sense: the completion's value
	// when it completed ok, otherwise the invocation's.
	Value   Value
	Key     Value // None if absent
	Version Value // None if absent
	Token   Value // None if absent
	// Call and Return are the operation's real-time interval: its
	// recorded times, or, in a history in file order (History.Order), the
	// positions of its events in the input. Return is Infinity when the
	// outcome is unknown.
	Call, Return int64
	// Times are the operation's recorded times when the input gave them
	// (History.Timed): the same as Call and Return in time order, and only
	// informational in file order.
	Times Span
	// Status is OK (took effect, value as observed), Fail (did not happen) or
	// Info (unknown: may take effect any time after Call, or never).
	Status Type
	// HasDone says DoneIndex is set: the operation's completion event
	// gave its own index.
	HasDone bool
	// DoneIndex is the index of the operation's completion event (see
	// History.CompletionIndex).
	DoneIndex int64
	Extra     []Field
	Line      int // source line of the invocation, 0 if unknown
}

// CompletionIndex is the index of the completion event of operation i:
// the input's own index when the completion gave one, else its position
// in the input (0-based) in a history in file order, as for an
// invocation; else the operation's Index. Jepsen's
// checkers name an operation by its completion where the completion is
// what they saw (set-full's known, a long fork's reads, a bank error).
func (h *History) CompletionIndex(i int) int64 {
	o := &h.Ops[i]
	switch {
	case o.HasDone:
		return o.DoneIndex
	case h.Order == FileOrder && o.Status != Info:
		return o.Return
	}
	return o.Index
}

// Pending reports whether the operation's outcome is unknown.
func (o *Op) Pending() bool { return o.Status == Info }

// History is a validated history: its operations in invocation order.
type History struct {
	// Ops holds every operation, failed ones included (checkers skip them),
	// sorted by Call, ties broken by input position.
	Ops []Op
	// Processes is the number of logical processes.
	Processes int
	// Clients is the number of distinct process names in the input (not
	// counting ignored ones).
	Clients int
	// Ignored counts events of the fault injector (process "nemesis") that
	// were left out.
	Ignored int
	// Warnings are notes for the user, one line each.
	Warnings []string
	// Order says whether Call and Return are recorded times or positions
	// in the input.
	Order Ordering
	// Timed reports that the input recorded times for its operations.
	Timed bool
	// SessionsOnly reports that the input recorded sessions but no real
	// time: Call and Return are a layout (each session's k-th operation
	// at k), so an order between sessions is not one the input saw.
	SessionsOnly bool
	// Meta holds settings a self-describing file gave (wrapper object or
	// notation header): "model", "init", "time_unit", "nil_read", …
	Meta map[string]Value

	inv inversions // where times contradict the file order
}

// Counts summarises a history's operations by status.
type Counts struct{ OK, Fail, Info int }

// Counts returns how many operations completed ok, failed, or have unknown outcome.
func (h *History) Counts() Counts {
	var c Counts
	for i := range h.Ops {
		switch h.Ops[i].Status {
		case OK:
			c.OK++
		case Fail:
			c.Fail++
		case Info:
			c.Info++
		}
	}
	return c
}

// InputError is a problem with the input at a place: the file, the line (or
// 0) and, when there is no line, the operation index.
type InputError struct {
	File string
	Line int
	Op   int // 1-based operation or record number when Line is 0; 0 if unknown
	Msg  string
}

// Error renders the error on one line, with the file name and any input
// text in the message escaped (see Quote and Escape): the message quotes
// the input, which must not reach a terminal as it is.
func (e *InputError) Error() string {
	file := "<input>"
	if e.File != "" {
		file = Quote(e.File)
	}
	msg := Escape(e.Msg)
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", file, e.Line, msg)
	case e.Op > 0:
		return fmt.Sprintf("%s: operation %d: %s", file, e.Op, msg)
	}
	return fmt.Sprintf("%s: %s", file, msg)
}

// Errorf returns an InputError at a line.
func Errorf(line int, format string, args ...any) *InputError {
	return &InputError{Line: line, Msg: fmt.Sprintf(format, args...)}
}
