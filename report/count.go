package report

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/checker"
)

// count tells a refutation by counting a lock's holders (pattern
// "count"): the operations counted leave more holders than the lock
// allows, or fewer than none, whatever the order.
func (w *words) count() string {
	c := w.v.Count
	if c == nil {
		return ""
	}
	named := strings.Join(w.labels(w.v.Ops), ", ")
	text := w.countWords(c, named)
	if c.OneClient && len(w.v.Ops) > 0 {
		return fmt.Sprintf("the operations of %s alone have no order (a lock that records its holder orders each client's operations on their own): %s",
			w.client(w.v.Ops[0]), text)
	}
	return text
}

// countWords says the count's facts, whichever operations were counted.
func (w *words) countWords(c *checker.Count, named string) string {
	if c.InOrder {
		return fmt.Sprintf("counting in order refutes it: %s's operations up to %s (%s) take and release the lock in an order "+
			"that no interleaving with the other processes' operations, each process's in its own order, keeps between 0 and %d holders "+
			"at every step, whichever of the others' operations take and which release it",
			w.client(c.Upto), w.label(c.Upto), named, c.Capacity)
	}
	over := c.Least() > c.Capacity
	if c.Upto == checker.None {
		taken := fmt.Sprintf("%d operations took the lock and %d released it", c.Up, c.Down)
		if c.MayUp+c.MayDown > 0 {
			taken += fmt.Sprintf(" (and of unknown outcome, %d may have taken it and %d released it)", c.MayUp, c.MayDown)
		}
		if over {
			return fmt.Sprintf("counting alone refutes it, whatever the order: %s, so every order ends with at least %d holders, and the lock allows %d; "+
				"these took it and no later operation of their own process released it: %s", taken, c.Least(), c.Capacity, named)
		}
		return fmt.Sprintf("counting alone refutes it, whatever the order: %s, so every order releases it at least %d more times than it was taken; "+
			"these released it with no earlier acquire of their own process: %s", taken, -c.Most(), named)
	}
	own := w.label(c.Upto)
	if over {
		return fmt.Sprintf("counting alone refutes it, whatever the order: up to %s, its process took the lock at least %d more times than it released it, "+
			"and the other processes can together have released it at most %d more times than they took it at any moment, "+
			"so the lock would have at least %d holders there, and it allows %d (operations: %s)",
			own, c.Up-c.Down-c.MayDown, -c.OthersLeast, c.Least(), c.Capacity, named)
	}
	return fmt.Sprintf("counting alone refutes it, whatever the order: up to %s, its process released the lock at least %d more times than it took it, "+
		"and the other processes can together hold it at most %d times at once, so it would be released more often than it was taken (operations: %s)",
		own, -(c.Up - c.Down + c.MayUp), c.OthersMost, named)
}

// ownersHeld tells that several clients each end holding the lock in
// every order of their own operations (pattern "owners-held"), while the
// lock has one holder at the end; the violation's operations are each
// such client's last acquire.
func (w *words) ownersHeld() string {
	clients := make([]string, len(w.v.Ops))
	for i, p := range w.v.Ops {
		clients[i] = w.client(p)
	}
	return fmt.Sprintf("each of %s ends holding the lock in every order of its own operations, "+
		"but the lock has one holder at a time (their last acquires: %s)",
		strings.Join(clients, ", "), strings.Join(w.labels(w.v.Ops), ", "))
}
