package elle

import "fmt"

// RefusedError is a history Elle itself refuses to check: Elle raises an
// error rather than give a verdict (elle-cli then exits 255). Type is
// the error's :type in Elle (duplicate-appends, duplicate-writes,
// unexpected-txn-micro-op-types) and Elle is Elle's message; Error is
// histcheck's own, naming the operations.
type RefusedError struct {
	Type, Elle string
	Err        error
}

func (e *RefusedError) Error() string { return e.Err.Error() }

// Unwrap gives histcheck's error.
func (e *RefusedError) Unwrap() error { return e.Err }

// duplicate is the error for value v appended (or written) to key k a
// second time, with Elle's message for it.
func duplicate(appends bool, k, v fmt.Stringer, err error) *RefusedError {
	if appends {
		return &RefusedError{Type: "duplicate-appends", Elle: fmt.Sprintf("value %s appended to key %s multiple times!", v, k), Err: err}
	}
	return &RefusedError{Type: "duplicate-writes", Elle: fmt.Sprintf("Key %s had value %s written by more than one op", k, v), Err: err}
}

// where names the transactions of a duplicate: the two operations, or
// the one when the same transaction wrote the value twice.
func where(first, second int) string {
	if first == second {
		return fmt.Sprintf("both in the transaction at operation %d", first)
	}
	return fmt.Sprintf("transactions at operations %d and %d", first, second)
}
