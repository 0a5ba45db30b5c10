package report

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/checker"
)

// The words of the weak criteria decided from a model's steps (package
// checker/adt): an output no causal past explains, a search for a causal
// order that stopped, a process without a view.

// unexplained tells an operation whose output nothing can explain.
func (w *words) unexplained() string {
	v := w.v
	s := fmt.Sprintf("%s's output is legal after no sequence of the other operations (each process's order kept, all of its own process's earlier operations included), so no causal past explains it",
		w.label(v.Op))
	if len(v.Stuck) > 0 && v.Stuck[0].Said != "" {
		s += " (in the initial state: " + v.Stuck[0].Said + ")"
	}
	return s
}

// noCausalPast tells where the search for a causal order stopped.
func (w *words) noCausalPast() string {
	v := w.v
	why := make([]string, len(v.Stuck))
	for i, s := range v.Stuck {
		if s.Legal {
			why[i] = fmt.Sprintf("%s has a causal past that explains it, but every search going on from it fails", w.label(s.Op))
		} else {
			why[i] = fmt.Sprintf("no causal past %s can still have explains its output", w.label(s.Op))
		}
	}
	return fmt.Sprintf("no causal order of the %d operations explains every output: the deepest search placed %d of them, each with a causal past that explains it%s, and then %s",
		v.Searched, len(v.Prefix), w.tail(v.Prefix), strings.Join(why, "; "))
}

// noProcessView tells a process that has no view of every operation.
func (w *words) noProcessView() string {
	v := w.v
	next := strings.Join(w.labels(stuckOps(v.Stuck)), ", ")
	if next == "" {
		next = "nothing"
	}
	return fmt.Sprintf("process %s has no order of all %d operations that keeps each process's order and makes its own outputs legal: the longest legal start found places %d of them%s, and %s cannot follow it",
		w.client(v.Session), v.Searched, len(v.Prefix), w.tail(v.Prefix), next)
}

// noArbitration tells that no arbitration order (one order of every
// operation, which read-your-writes and monotonic writes ask each output
// to agree with) explains every output.
func (w *words) noArbitration() string {
	v := w.v
	next := strings.Join(w.labels(stuckOps(v.Stuck)), ", ")
	if next == "" {
		next = "nothing"
	}
	return fmt.Sprintf("no single order of all %d operations explains every output as the guarantee asks: the longest start of one found places %d of them%s, and %s cannot follow it",
		v.Searched, len(v.Prefix), w.tail(v.Prefix), next)
}

// tail names the last operations of an order, " (… -> a -> b)".
func (w *words) tail(order []int) string {
	if len(order) == 0 {
		return ""
	}
	t := lastN(order, contextLen)
	s := strings.Join(w.labels(t), " -> ")
	if len(t) < len(order) {
		s = "… -> " + s
	}
	return " (" + s + ")"
}

// stuckOps lists the operations of stuck.
func stuckOps(stuck []checker.Stuck) []int {
	out := make([]int, len(stuck))
	for i, s := range stuck {
		out[i] = s.Op
	}
	return out
}
