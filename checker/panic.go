package checker

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// PanicError is a panic inside a checker (a bug in histcheck or in a
// model), with the stack where it happened, so that the caller can report
// it as an internal error instead of ending the process.
type PanicError struct {
	Value any
	Stack string
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// AsPanic turns a value recover returned into a PanicError, keeping one that
// already is (a panic carried from a worker goroutine keeps its stack).
func AsPanic(r any) *PanicError {
	if pe, ok := r.(*PanicError); ok {
		return pe
	}
	return &PanicError{Value: r, Stack: string(debug.Stack())}
}

// Workers carries the first panic of a group of worker goroutines to the
// goroutine that waits for them: a panic in a goroutine of its own ends
// the process, since no caller can recover it.
type Workers struct {
	mu  sync.Mutex
	err *PanicError
}

// Recover keeps the first panic of the goroutine that defers it; deferred
// directly at the top of each worker.
func (w *Workers) Recover() {
	if r := recover(); r != nil {
		w.mu.Lock()
		if w.err == nil {
			w.err = AsPanic(r)
		}
		w.mu.Unlock()
	}
}

// Failed reports whether a worker panicked.
func (w *Workers) Failed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err != nil
}

// Repanic panics with the first worker's panic, if any; called after the
// workers are done.
func (w *Workers) Repanic() {
	if w.err != nil {
		panic(w.err)
	}
}
