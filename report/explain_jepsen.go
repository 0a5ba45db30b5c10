package report

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// maxElements bounds the elements an explanation lists.
const maxElements = 20

// jepsen says in words a violation found by one of Jepsen's checkers.
func (w *words) jepsen() string {
	f := w.v.Jepsen
	switch w.v.Pattern {
	case "counter-out-of-bounds":
		return w.counterRead(f.Read)
	case "set-lost":
		return fmt.Sprintf("the final read %s lacks %s whose add was acknowledged, so %s lost: %s",
			w.label(w.v.Op), count(len(f.Elements), "element"), isAre(len(f.Elements), "it was", "they were"), elements(f.Elements))
	case "set-unexpected":
		return fmt.Sprintf("the final read %s returned %s that no add attempted: %s",
			w.label(w.v.Op), count(len(f.Elements), "element"), elements(f.Elements))
	case "set-full-lost":
		return fmt.Sprintf("%s lost: each was known to be in the set (its add was acknowledged, or a read saw it), "+
			"and then missed by a read begun after the last read that saw it: %s",
			isAre(len(f.Elements), "1 element was", fmt.Sprintf("%d elements were", len(f.Elements))), elements(f.Elements))
	case "set-full-stale":
		return w.stale(f)
	case "set-full-duplicated":
		parts := make([]string, 0, len(f.Duplicates))
		for _, d := range f.Duplicates {
			parts = append(parts, fmt.Sprintf("%s (%d times)", d.Element, d.Count))
		}
		return fmt.Sprintf("%s returned more than once by a single read: %s",
			isAre(len(parts), "1 element was", fmt.Sprintf("%d elements were", len(parts))), elide(parts, maxElements, ", "))
	case "long-fork":
		return w.fork(f.Fork)
	case "total-queue-lost":
		return fmt.Sprintf("%s acknowledged as enqueued but never dequeued: %s",
			isAre(len(f.Elements), "1 element was", fmt.Sprintf("%d elements were", len(f.Elements))), elements(f.Elements))
	case "total-queue-unexpected":
		return fmt.Sprintf("%s dequeued that no enqueue attempted: %s",
			isAre(len(f.Elements), "1 element was", fmt.Sprintf("%d elements were", len(f.Elements))), elements(f.Elements))
	case "unique-ids-duplicated":
		parts := make([]string, 0, len(f.Duplicates))
		for _, d := range f.Duplicates {
			parts = append(parts, fmt.Sprintf("%s (%d times)", d.Element, d.Count))
		}
		return fmt.Sprintf("%s generated more than once: %s",
			isAre(len(parts), "1 identifier was", fmt.Sprintf("%d identifiers were", len(parts))), elide(parts, maxElements, ", "))
	}
	if f.Bank != nil {
		return w.bank(f.Bank)
	}
	return ""
}

// counterRead says by how much a counter read missed its bounds.
func (w *words) counterRead(r *checker.CounterRead) string {
	var off string
	if r.Value < r.Lower {
		off = fmt.Sprintf("%d below the lowest value it could read", r.Lower-r.Value)
	} else {
		off = fmt.Sprintf("%d above the highest value it could read", r.Value-r.Upper)
	}
	return fmt.Sprintf("read %s returned %d, %s: the adds that completed before it began sum to %d, "+
		"and every add begun before it ended (those of unknown outcome included) sums to %d",
		w.label(r.Op), r.Value, off, r.Lower, r.Upper)
}

// stale says which set-full elements showed up late, and the worst.
func (w *words) stale(f *checker.JepsenFact) string {
	e := f.Element
	s := fmt.Sprintf("%s stale (the set is to be linearizable): a read begun after each was known to be in the set missed it: %s",
		isAre(len(f.Elements), "1 element was", fmt.Sprintf("%d elements were", len(f.Elements))), elements(f.Elements))
	if e == nil {
		return s
	}
	return s + fmt.Sprintf("; the stalest, %s, was known from %s, yet %s, begun later, missed it; it was seen by every read only %d ms after it was known",
		e.Element, w.label(e.Known), w.label(e.LastAbsent), e.StableLatency)
}

// bank says what a bank read got wrong.
func (w *words) bank(e *checker.BankError) string {
	read := w.label(e.Op)
	switch e.Type {
	case checker.BankUnexpectedKey:
		return fmt.Sprintf("read %s shows %s the first read did not: %s", read, count(len(e.Accounts), "account"), elements(e.Accounts))
	case checker.BankNilBalance:
		return fmt.Sprintf("read %s shows no balance (nil) for %s: %s", read, count(len(e.Accounts), "account"), elements(e.Accounts))
	case checker.BankWrongTotal:
		return fmt.Sprintf("read %s's balances sum to %d, not the total of %d: %d %s",
			read, e.Total, e.Expected, abs(e.Total-e.Expected), moreOrLess(e.Total > e.Expected))
	case checker.BankNegativeValue:
		parts := make([]string, len(e.Accounts))
		for i, a := range e.Accounts {
			parts[i] = fmt.Sprintf("account %s holds %d", a, e.Balances[i])
		}
		return fmt.Sprintf("read %s shows %s below zero, which the bank does not allow: %s",
			read, count(len(parts), "balance"), strings.Join(parts, ", "))
	}
	return ""
}

// fork says why two reads of a group cannot both be right.
func (w *words) fork(f *checker.Fork) string {
	return fmt.Sprintf("reads %s and %s of one group of keys cannot be put in any order: the first saw the write of %s, "+
		"which the second did not, and the second saw the write of %s, which the first did not; "+
		"whichever read came later should have seen both",
		w.label(f.A), w.label(f.B), keyList(f.OnlyA), keyList(f.OnlyB))
}

func keyList(ks []history.Value) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = "key " + k.String()
	}
	return strings.Join(parts, ", ")
}

// elements lists values, at most maxElements of them.
func elements(vs []history.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return elide(parts, maxElements, ", ")
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func isAre(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func moreOrLess(more bool) string {
	if more {
		return "too much"
	}
	return "too little"
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
