package cli

import (
	"math"

	"github.com/histcheck/histcheck/history"
)

// jepsenHint returns a one-line note when -m names the linearizable
// counter or set while the history looks like the Jepsen workload of the
// same name, whose checker is another model (jepsen-counter, jepsen-set):
// a Jepsen user who writes -m counter means Jepsen's rule, and would
// otherwise get a different check without a word. The verdict is left as
// asked. It returns "" when the history does not look so.
//
// The test is deliberately simple (docs/jepsen.md says it): the input
// holds Jepsen events and every operation is an add or a read. For a
// counter, there is an add, every add adds a whole number of at least 0
// (as Jepsen's counter checker requires) and every read reads a number
// (or nil); for a set, there are adds and a read, and every read is called
// after the last add was: the final read Jepsen's set checker compares
// with the adds.
func jepsenHint(model string, in *input) string {
	if !in.events {
		return ""
	}
	switch model {
	case "counter":
		if adds, _, ok := addsAndReads(in.h, countedAdd, numberRead); ok && adds > 0 {
			return "note: -m counter checks a linearizable counter; this looks like Jepsen's counter workload, which Jepsen checks with its own rule (each read within the adds that surely and possibly happened): -m jepsen-counter"
		}
	case "set":
		if adds, reads, ok := addsAndReads(in.h, anyOp, anyOp); ok && adds > 0 && reads > 0 && readsOnlyAtEnd(in.h) {
			return "note: -m set checks a linearizable set; this looks like Jepsen's set workload, which Jepsen checks with its own rule (the final read against the adds: lost and unexpected elements): -m jepsen-set"
		}
	}
	return ""
}

// addsAndReads counts the adds and reads of h, and reports whether every
// operation is an add that addOK accepts or a read that readOK accepts.
func addsAndReads(h *history.History, addOK, readOK func(*history.Op) bool) (adds, reads int, ok bool) {
	for i := range h.Ops {
		o := &h.Ops[i]
		switch {
		case o.F == "add" && addOK(o):
			adds++
		case o.F == "read" && readOK(o):
			reads++
		default:
			return adds, reads, false
		}
	}
	return adds, reads, true
}

func anyOp(*history.Op) bool { return true }

// countedAdd reports whether o adds what Jepsen's counter adds: a whole
// number of at least 0.
func countedAdd(o *history.Op) bool {
	n, ok := o.Value.Int()
	return ok && n >= 0
}

// numberRead reports whether o read a number, or nothing (nil, unknown).
func numberRead(o *history.Op) bool {
	_, ok := o.Value.Int()
	return ok || o.Value.IsNil() || o.Value.IsNone()
}

// readsOnlyAtEnd reports whether every read of h was called after the
// last add was: a final read, as Jepsen's set workload ends with.
func readsOnlyAtEnd(h *history.History) bool {
	lastAdd, firstRead := int64(math.MinInt64), int64(math.MaxInt64)
	for i := range h.Ops {
		switch o := &h.Ops[i]; o.F {
		case "add":
			lastAdd = max(lastAdd, o.Call)
		case "read":
			firstRead = min(firstRead, o.Call)
		}
	}
	return firstRead > lastAdd
}
