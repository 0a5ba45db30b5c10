package report

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/checker"
)

// isolation says in words a violation of an isolation level decided
// from commit orders (package checker/isolation).
func (w *words) isolation() string {
	f := w.v.Isolation
	var sb strings.Builder
	sb.WriteString(w.isolationCase(f))
	if len(f.Steps) > 0 && w.v.Pattern != "NonRepeatableRead" && w.v.Pattern != "lost-update" {
		if sb.Len() > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(w.isolationCycle(f.Steps))
		if len(f.Other) > 0 {
			sb.WriteString("\nThe other order of those two writers closes a cycle too:\n")
			sb.WriteString(w.isolationCycle(f.Other))
		}
	}
	sb.WriteString("\n")
	sb.WriteString(isolationNames(f))
	return sb.String()
}

// isolationNames gives the pattern's names in Plume's catalogue and Elle's.
func isolationNames(f *checker.IsolationFact) string {
	var parts []string
	if f.Plume != "" {
		parts = append(parts, "Plume's "+f.Plume)
	}
	if f.Elle != "" {
		parts = append(parts, "Elle's "+f.Elle)
	}
	if len(parts) == 0 {
		return "(no commit order exists)"
	}
	return "(" + strings.Join(parts, "; ") + ")"
}

func (w *words) txn(p int) string {
	if p == checker.Initial {
		return "the initial state"
	}
	return w.label(p)
}

// isolationCase says what a violation that is not a cycle rests on.
func (w *words) isolationCase(f *checker.IsolationFact) string {
	r := w.txn(f.Reader)
	switch w.v.Pattern {
	case "ThinAirRead":
		return fmt.Sprintf("%s read %s = %s, which no transaction wrote.", r, f.Key, f.Value)
	case "AbortedRead":
		return fmt.Sprintf("%s read %s = %s, written by %s, which aborted.", r, f.Key, f.Value, w.txn(f.Writer))
	case "IntermediateRead":
		return fmt.Sprintf("%s read %s = %s, which %s overwrote itself before it committed: only a transaction's last write of a key is ever visible.", r, f.Key, f.Value, w.txn(f.Writer))
	case "FutureRead":
		return fmt.Sprintf("%s read %s = %s, which it wrote only later.", r, f.Key, f.Value)
	case "NotMyOwnWrite":
		return fmt.Sprintf("%s wrote %s = %s and then read %s = %s, not its own write.", r, f.Key, f.Own, f.Key, f.Value)
	case "NotMyLastWrite":
		return fmt.Sprintf("%s wrote %s = %s and then %s = %s, but read %s = %s, not its last write.", r, f.Key, f.Value, f.Key, f.Own, f.Key, f.Value)
	case "NonRepeatableRead":
		a, b := f.Steps[0], f.Steps[1]
		return fmt.Sprintf("%s read %s = %s from %s and %s = %s from %s: both writes are visible to it, so it should have read the later one both times.",
			r, a.Key, a.Value, w.txn(a.From), b.Key, b.Value, w.txn(b.From))
	case "lost-update":
		a, b := f.Steps[0], f.Steps[1]
		return fmt.Sprintf("%s and %s both read %s = %s from %s and both wrote %s: whichever committed second should have seen the other's write (a lost update).",
			w.txn(a.To), w.txn(b.To), f.Key, f.Value, w.txn(f.Writer), f.Key)
	case "no-commit-order":
		return fmt.Sprintf("No commit order exists: after pruning, the search tried both orders of each of the %d pairs of writers left open, among the transactions shown, and every choice closes a cycle.", f.Undecided)
	}
	return ""
}

// isolationCycle says a cycle step by step, as Elle's cycles are said.
func (w *words) isolationCycle(steps []checker.IsolationStep) string {
	var sb strings.Builder
	name := map[int]string{}
	sb.WriteString("Let:\n")
	for _, st := range steps {
		if _, ok := name[st.From]; !ok {
			name[st.From] = fmt.Sprintf("T%d", len(name)+1)
			fmt.Fprintf(&sb, "  %s = %s\n", name[st.From], w.txn(st.From))
		}
	}
	for _, st := range steps {
		if _, ok := name[st.Reader]; st.Type == "co" && !ok {
			name[st.Reader] = fmt.Sprintf("T%d", len(name)+1)
			fmt.Fprintf(&sb, "  %s = %s\n", name[st.Reader], w.txn(st.Reader))
		}
	}
	sb.WriteString("Then:\n")
	for i, st := range steps {
		lead := "  - "
		if i == len(steps)-1 && len(steps) > 1 {
			lead += "However, "
		}
		fmt.Fprintf(&sb, "%s%s < %s, because %s", lead, name[st.From], name[st.To], isolationReason(st, name))
		if i == len(steps)-1 {
			sb.WriteString(": a contradiction!")
		} else {
			sb.WriteString(".\n")
		}
	}
	return sb.String()
}

// isolationReason says why step st orders its transactions.
func isolationReason(st checker.IsolationStep, name map[int]string) string {
	a, b := name[st.From], name[st.To]
	switch st.Type {
	case "so":
		return fmt.Sprintf("%s follows %s in its session", b, a)
	case "wr":
		return fmt.Sprintf("%s read %s's write of %s to %s", b, a, st.Value, st.Key)
	case "ww":
		return fmt.Sprintf("%s overwrote %s's write of %s to %s", b, a, st.Value, st.Key)
	case "rw":
		return fmt.Sprintf("%s read %s = %s, which %s overwrote", a, st.Key, st.Value, b)
	case "co":
		r := name[st.Reader]
		var seen string
		switch st.Why {
		case "session":
			seen = fmt.Sprintf("%s precedes %s in its session", a, r)
		case "read":
			seen = fmt.Sprintf("%s read %s = %s from %s", r, st.ViaKey, st.ViaValue, a)
		case "earlier":
			seen = fmt.Sprintf("%s read %s = %s from %s before it read %s", r, st.ViaKey, st.ViaValue, a, st.Key)
		default:
			seen = fmt.Sprintf("%s happens before %s", a, r)
		}
		return fmt.Sprintf("%s read %s = %s from %s although %s, which also wrote %s, is visible to it (%s), so %s committed first",
			r, st.Key, st.Value, b, a, st.Key, seen, a)
	}
	return st.Type
}
