package jepsen

import (
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// The checks below refuse what Jepsen's own checkers throw on: a value of
// a shape the checker cannot read. What Jepsen reads without complaint
// (nil where it takes nil for an empty collection, the values of
// operations it does not look at) is let through, so that a history
// Jepsen judges is judged here too.

// RefusedError is a history one of Jepsen's checkers cannot read: Err
// (a *history.InputError) names the operation, its line and what was
// expected. Assertion says how Jepsen's checker fails on it: an assertion
// (a java.lang.AssertionError, which Jepsen's check-safe does not catch,
// so that elle-cli exits 255), else an exception (which check-safe turns
// into :valid? :unknown with the error).
type RefusedError struct {
	Err       error
	Assertion bool
}

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// inputError refuses the operation h.Ops[i], naming where it came from
// (its line, else its place) and what was expected of it; Jepsen's
// checker throws an exception on it.
func inputError(h *history.History, i int, format string, args ...any) error {
	return &RefusedError{Err: checker.OpError(&h.Ops[i], i, fmt.Errorf(format, args...))}
}

// assertionError is inputError for a value Jepsen's checker asserts
// against.
func assertionError(h *history.History, i int, format string, args ...any) error {
	return &RefusedError{Err: checker.OpError(&h.Ops[i], i, fmt.Errorf(format, args...)), Assertion: true}
}

// absent is a value Jepsen reads as nil: nil itself, or no value at all.
func absent(v history.Value) bool {
	return v.IsNil() || v.IsNone()
}

// collection is a value Jepsen can take as a collection of elements: a
// list, a vector or a set, or nil for none.
func collection(v history.Value) bool {
	switch v.Kind() {
	case history.List, history.Set:
		return true
	}
	return absent(v)
}

// checkCounterInput refuses an add whose value is not a whole number of
// at least 0 (whatever its outcome: Jepsen asserts it at the invocation)
// and a read that completed ok without a whole number. Jepsen's checker
// asserts that every value is nil or an integer, and that no add is
// negative; nil, which passes the first assertion, then throws.
func checkCounterInput(h *history.History) error {
	for i := range h.Ops {
		o := &h.Ops[i]
		n, isInt := o.Value.Int()
		refuse := inputError
		if !absent(o.Value) {
			refuse = assertionError
		}
		switch {
		case o.F == "add" && (!isInt || n < 0):
			return refuse(h, i, "a counter's add needs a whole number of at least 0, got %s", describe(o.Value))
		case o.F == "read" && o.Status == history.OK && !isInt:
			return refuse(h, i, "a counter's read needs the whole number read, got %s", describe(o.Value))
		}
	}
	return nil
}

// checkElementsInput refuses the read h.Ops[i] when its value is not a
// collection of elements.
func checkElementsInput(h *history.History, i int) error {
	if v := h.Ops[i].Value; !collection(v) {
		return inputError(h, i, "a set's read needs the elements read, as a list or a set, got %s", describe(v))
	}
	return nil
}

// checkSetFullInput refuses a read that completed ok without a
// collection of elements (set-full reads every one).
func checkSetFullInput(h *history.History) error {
	for i := range h.Ops {
		if h.Ops[i].F == "read" && h.Ops[i].Status == history.OK {
			if err := checkElementsInput(h, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkBankInput refuses a read that completed ok without a map of
// accounts to balances, each a whole number or nil.
func checkBankInput(h *history.History) error {
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.F != "read" || o.Status != history.OK || absent(o.Value) {
			continue
		}
		if o.Value.Kind() != history.Map {
			return inputError(h, i, "a bank read needs a map of accounts to balances, got %s", describe(o.Value))
		}
		es := o.Value.Elems()
		for j := 0; j+1 < len(es); j += 2 {
			if _, ok := es[j+1].Int(); !ok && !es[j+1].IsNil() {
				return inputError(h, i, "a bank read needs whole-number balances, got %s for account %s", describe(es[j+1]), es[j])
			}
		}
	}
	return nil
}

// checkLongForkInput refuses an operation whose value is not a
// transaction: a list of micro-operations, each a list [f k v] (f r or w,
// v nil when left out) or nil. Jepsen reads every operation's value so.
func checkLongForkInput(h *history.History) error {
	for i := range h.Ops {
		v := h.Ops[i].Value
		if absent(v) {
			continue
		}
		if v.Kind() != history.List {
			return inputError(h, i, "a long-fork operation needs a transaction [[r k v] ...] or [[w k v]], got %s", describe(v))
		}
		for _, m := range v.Elems() {
			if absent(m) {
				continue
			}
			es := m.Elems()
			if m.Kind() != history.List {
				return inputError(h, i, "a long-fork transaction needs micro-operations [f k v], got %s", describe(m))
			}
			if f, _ := firstName(es); (f == "r" || f == "w") && len(es) < 2 {
				return inputError(h, i, "a long-fork micro-operation needs a key, [%s k v], got %s", f, describe(m))
			}
		}
	}
	return nil
}

// firstName is the first of es as a name (a keyword, symbol or string).
func firstName(es []history.Value) (string, bool) {
	if len(es) == 0 {
		return "", false
	}
	return es[0].Str()
}

// checkQueueInput refuses a drain that completed ok without a collection
// of the elements it dequeued.
func checkQueueInput(h *history.History) error {
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.F == "drain" && o.Status == history.OK && !collection(o.Value) {
			return inputError(h, i, "a drain needs the elements it dequeued, as a list or a set, got %s", describe(o.Value))
		}
	}
	return nil
}

// checkUniqueIDsInput refuses identifiers Jepsen's checker cannot
// compare (it sorts them and takes their range): a map or a set, or one
// of another kind than the identifiers before it (numbers are one kind;
// nil compares with any).
func checkUniqueIDsInput(h *history.History) error {
	first := checker.None
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.F != "generate" || o.Status != history.OK || absent(o.Value) {
			continue
		}
		switch k := idKind(o.Value); {
		case k == history.Map || k == history.Set:
			return inputError(h, i, "unique-ids compares identifiers, and cannot compare %s", describe(o.Value))
		case first == checker.None:
			first = i
		case k != idKind(h.Ops[first].Value):
			return inputError(h, i, "unique-ids compares identifiers, and cannot compare %s with %s, returned by %s",
				describe(o.Value), describe(h.Ops[first].Value), h.Ops[first].Label())
		}
	}
	return nil
}

// idKind is v's kind for comparing, numbers one kind.
func idKind(v history.Value) history.ValueKind {
	if k := v.Kind(); k != history.Float {
		return k
	}
	return history.Int
}

// describe names a value and its kind for a message: "3 (an int)".
func describe(v history.Value) string {
	switch {
	case v.IsNone():
		return "no value"
	case v.IsNil():
		return "nil"
	}
	k := v.Kind().String()
	art := "a"
	if k == "int" {
		art = "an"
	}
	return fmt.Sprintf("%s (%s %s)", v, art, k)
}
