package model

import "github.com/histcheck/histcheck/history"

// The values an operation shows, by its class (OpInfo.Class): what a read
// returned, what a write or cas stores, what a cas compares with. Shrinking
// and the explanations of cores read operations by these, whatever the
// model names them.

// ReadResult returns what o returned when it is a completed read: its value,
// nil when it gave none.
func (m Info) ReadResult(o *history.Op) (history.Value, bool) {
	if m.ClassOf(o.F) != ReadOp || o.Status != history.OK {
		return history.Value{}, false
	}
	if o.Value.IsNone() {
		return history.NilValue, true
	}
	return o.Value, true
}

// Stored returns the value o stores when it is a write or a cas.
func (m Info) Stored(o *history.Op) (history.Value, bool) {
	switch m.ClassOf(o.F) {
	case WriteOp:
		return o.Value, true
	case CASOp:
		if _, to, ok := o.Value.Pair(); ok {
			return to, true
		}
	}
	return history.Value{}, false
}

// Expected returns the value o compares with when it is a cas.
func (m Info) Expected(o *history.Op) (history.Value, bool) {
	if m.ClassOf(o.F) == CASOp {
		if from, _, ok := o.Value.Pair(); ok {
			return from, true
		}
	}
	return history.Value{}, false
}
