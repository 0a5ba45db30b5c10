package report

import (
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// Explain says in plain words why the operations of v cannot be ordered
// as criterion demands: the words every report form shows for a
// violation. h is the history v's positions name operations of. The words
// depend on the violation's pattern and on the facts its checker gave (see
// checker.Violation); each family of checkers has its own way of telling
// the same relations, kept here so that engines give facts only.
func Explain(h *history.History, criterion string, v checker.Violation) string {
	return explainWith(h, newReadIndex(h), criterion, v)
}

// explainWith is Explain with the index of h's reads the explanations of
// one result share.
func explainWith(h *history.History, reads *readIndex, criterion string, v checker.Violation) string {
	s, _ := explainNamed(h, reads, criterion, v)
	return s
}

// explainNamed is explainWith, and the positions of the operations the
// explanation names.
func explainNamed(h *history.History, reads *readIndex, criterion string, v checker.Violation) (string, []int) {
	w := &words{h: h, v: &v, names: newNames(h, referenced(&v)), reads: reads}
	s := w.explain(criterion)
	return s, w.named
}

// explainCore is Explain of the violation a checker found in a core's own
// history: its operations are named as h, the original history, records
// them (a weakened cas is a write in the core's history), positions
// mapped by origin, and unique among the core's.
func explainCore(h *history.History, criterion string, core *history.History, origin []int, v checker.Violation) string {
	w := &words{h: core, v: &v, names: newNames(h, origin), origin: origin, reads: newReadIndex(core)}
	return w.explain(criterion)
}

// explain tells w's violation under criterion.
func (w *words) explain(criterion string) string {
	w.v.Steps = ownSteps(w.v.Steps)
	v := w.v
	if v.Jepsen != nil {
		return w.jepsen()
	}
	if v.Isolation != nil {
		return w.isolation()
	}
	switch v.Pattern {
	case "ThinAirRead", "CyclicCO", "CyclicCF", "CyclicHB", "WriteCOInitRead", "WriteCORead", "WriteHBInitRead":
		return w.causal()
	case "read-your-writes", "monotonic-reads", "monotonic-writes", "writes-follow-reads":
		return w.guarantee()
	case "pram":
		return w.pram()
	case "unexplained-output":
		return w.unexplained()
	case "no-causal-past":
		return w.noCausalPast()
	case "no-process-view":
		return w.noProcessView()
	case "no-arbitration":
		return w.noArbitration()
	case "saturation-cycle":
		return w.saturation()
	case "no-sequential-order":
		return w.noSequentialOrder()
	case "count":
		return w.count()
	case "owners-held":
		return w.ownersHeld()
	case "thin-air-read":
		return w.thinAir(criterion)
	case "version-cycle":
		return w.versionCycle(criterion)
	case "stale-read":
		return w.staleRead()
	case "read-before-write", "overlapping-zones", "zone-inside-zone", "unknown":
		return w.zones()
	case "":
		if v.Model != "" {
			return w.reference(criterion)
		}
		return w.search()
	}
	if v.Anomaly != nil || len(v.Cycle) > 0 {
		return w.anomaly()
	}
	return ""
}

// ownSteps is steps without those from an operation to itself: a weak
// checker splits a cas into its read and its write, the one before the
// other in its process, which is one operation to a reader ("A:cas(1, 2)
// precedes A:cas(1, 2)" says nothing true). steps is not changed.
func ownSteps(steps []checker.Step) []checker.Step {
	out := make([]checker.Step, 0, len(steps))
	for _, s := range steps {
		if s.From == s.To && s.Rel == checker.RelProcess {
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return steps[:0:0]
	}
	return out
}

// words renders the facts of one violation.
type words struct {
	h *history.History
	v *checker.Violation
	// names labels the operations; origin, when set, maps h's positions
	// to those of the history names labels (a core's to the original's).
	names  names
	origin []int
	// reads are h's committed transactional reads, by key.
	reads *readIndex
	// named are the positions the words named, in the order they did.
	named []int
}

// label names the operation at position p as the input wrote it
// ("B:r(x, 1)"), the way every explanation names operations.
func (w *words) label(p int) string {
	if p < 0 || p >= len(w.h.Ops) {
		return "?"
	}
	if w.origin != nil {
		if p >= len(w.origin) {
			return "?"
		}
		p = w.origin[p]
	}
	w.named = append(w.named, p)
	return w.names.of(p)
}

// labels names the operations at positions ps.
func (w *words) labels(ps []int) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = w.label(p)
	}
	return out
}

// client names the process of the operation at position p.
func (w *words) client(p int) string {
	if p < 0 || p >= len(w.h.Ops) {
		return "?"
	}
	return history.Quote(w.h.Ops[p].Client)
}

// op returns the operation at position p, or an empty one.
func (w *words) op(p int) *history.Op {
	if p < 0 || p >= len(w.h.Ops) {
		return &history.Op{}
	}
	return &w.h.Ops[p]
}

// keyName names the key of the operation at position p ("x", or "the
// register" when it has none).
func (w *words) keyName(p int) string {
	k := w.op(p).Key
	if k.IsNone() {
		return "the register"
	}
	return k.String()
}

// version is the version the violation cites for the operation at p.
func (w *words) version(p int) int64 {
	n, _ := w.v.VersionOf(p)
	return n
}

// cites reports whether the violation cites a version of the operation
// at p.
func (w *words) cites(p int) bool {
	_, ok := w.v.VersionOf(p)
	return ok
}

// said is what the model said about a stuck operation, with prefix before
// a description of its state.
func said(s checker.Stuck, prefix string) string {
	if s.State {
		return prefix + s.Said
	}
	return s.Said
}

// orderOf names the order a criterion keeps besides the model.
func orderOf(criterion string) string {
	if criterion == checker.Sequential {
		return "each process's order"
	}
	return "real time"
}

// stepsOf joins the phrases of consecutive steps, a phrase per step.
func stepsOf(steps []checker.Step, phrase func(checker.Step) string) []string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = phrase(s)
	}
	return out
}

// cycleEnd closes the words of a cycle: its first operation would come
// before itself.
func (w *words) cycleEnd(format string) string {
	if len(w.v.Steps) == 0 {
		return fmt.Sprintf(format, "?")
	}
	return fmt.Sprintf(format, w.label(w.v.Steps[0].From))
}

// lastN returns the last n of xs.
func lastN(xs []int, n int) []int {
	if len(xs) > n {
		return xs[len(xs)-n:]
	}
	return xs
}

// contextLen is how many operations of the longest legal order found the
// words of a search's violation name, last first.
const contextLen = 3

// search tells the linearizability search's violation: the operation that
// could not take effect after the longest legal order found.
func (w *words) search() string {
	v := w.v
	if len(v.Stuck) == 0 {
		return "no order of the operations is legal"
	}
	s := v.Stuck[0]
	var sb strings.Builder
	sb.WriteString(w.label(s.Op))
	sb.WriteString(" cannot take effect: ")
	sb.WriteString(said(s, "illegal in state "))
	if len(v.Prefix) == 0 {
		sb.WriteString(" (in the initial state)")
		return sb.String()
	}
	sb.WriteString(" (after ")
	tail := lastN(v.Prefix, contextLen)
	if len(tail) < len(v.Prefix) {
		sb.WriteString("… -> ")
	}
	sb.WriteString(strings.Join(w.labels(tail), " -> "))
	sb.WriteString(")")
	return sb.String()
}

// reference tells the brute-force reference's violation.
func (w *words) reference(criterion string) string {
	v := w.v
	var sb strings.Builder
	fmt.Fprintf(&sb, "No order of the operations respects %s and the %s model", orderOf(criterion), v.Model)
	if len(v.Stuck) == 0 {
		sb.WriteString(".")
		return sb.String()
	}
	s := v.Stuck[0]
	why := said(s, "it is illegal in state ")
	if len(v.Prefix) == 0 {
		fmt.Fprintf(&sb, ": no operation can come first (%s: %s).", w.label(s.Op), why)
	} else {
		fmt.Fprintf(&sb, ": the longest legal order found is %s, and %s cannot follow it: %s.",
			strings.Join(w.labels(v.Prefix), ", "), w.label(s.Op), why)
	}
	return sb.String()
}

// noSequentialOrder tells the sequential search's violation: where the
// longest legal order found stops, and why no process can go on.
func (w *words) noSequentialOrder() string {
	v := w.v
	why := make([]string, len(v.Stuck))
	for i, s := range v.Stuck {
		if s.Legal {
			why[i] = fmt.Sprintf("%s is legal there, but every order continuing with it fails later", w.label(s.Op))
		} else {
			why[i] = fmt.Sprintf("%s cannot: %s", w.label(s.Op), said(s, "illegal in state "))
		}
	}
	return fmt.Sprintf("no order of the %d operations keeps each process's order and is legal: "+
		"the longest legal order found places %d of them, and then no process can go on (%s)",
		v.Searched, len(v.Prefix), strings.Join(why, "; "))
}

// thinAir tells a read of a value (or a version) no write gives.
func (w *words) thinAir(criterion string) string {
	op := w.v.Op
	switch {
	case w.cites(op):
		return fmt.Sprintf("%s carries version %d but returned neither the value the write of that version wrote nor, when no write has it, the initial value, so no order can make it legal",
			w.label(op), w.version(op))
	case criterion == checker.Sequential:
		return fmt.Sprintf("%s returns a value that no operation wrote and that is not the initial value, so no order can make it legal",
			w.label(op))
	}
	return fmt.Sprintf("%s read %s, which no operation wrote and which is not the initial value", w.label(op), w.v.Value)
}

// versionCycle tells a cycle of the orders the versions fix with the
// criterion's order.
func (w *words) versionCycle(criterion string) string {
	name := func(p int) string {
		if !w.cites(p) {
			return w.label(p)
		}
		return fmt.Sprintf("%s (version %d)", w.label(p), w.version(p))
	}
	parts := stepsOf(w.v.Steps, func(s checker.Step) string {
		la, lb := name(s.From), name(s.To)
		switch s.Rel {
		case checker.RelProcess:
			return fmt.Sprintf("%s precedes %s in its process", la, lb)
		case checker.RelRealTime:
			return fmt.Sprintf("%s returned before %s was called", la, lb)
		case checker.RelVersion:
			return fmt.Sprintf("%s is older than %s", la, lb)
		case checker.RelReadsFrom:
			return fmt.Sprintf("%s read what %s wrote", lb, la)
		case checker.RelReplaced:
			return fmt.Sprintf("%s read a version that %s replaces", la, lb)
		}
		return ""
	})
	first := "?"
	if len(w.v.Steps) > 0 {
		first = name(w.v.Steps[0].From)
	}
	return "no order of the operations keeps the versions and " + orderOf(criterion) + ": " +
		strings.Join(parts, "; ") + fmt.Sprintf("; so %s would precede itself", first)
}

// saturation tells a cycle of the orders every sequential order must
// keep: each process's order, each read after the write it read, and the
// orders those force.
func (w *words) saturation() string {
	name := func(p int) string {
		if p == checker.Initial {
			return "the initial value"
		}
		return w.label(p)
	}
	valueOf := func(p int) string {
		if p == checker.Initial {
			return "the initial value"
		}
		return w.label(p) + "'s value"
	}
	parts := stepsOf(w.v.Steps, func(s checker.Step) string {
		a, b := s.From, s.To
		switch s.Rel {
		case checker.RelProcess:
			return fmt.Sprintf("%s comes before %s in %s's own order", name(a), name(b), w.client(a))
		case checker.RelReadsFrom:
			return fmt.Sprintf("%s reads %s, so it comes after it", name(b), valueOf(a))
		case checker.RelInitial:
			return fmt.Sprintf("the initial value comes before every write, %s included", name(b))
		case checker.RelBeforeSource:
			if b == checker.Initial {
				return fmt.Sprintf("%s would have to come before the initial value, since %s comes after it and reads the initial value",
					name(a), name(s.Via))
			}
			return fmt.Sprintf("%s must come before %s, since %s comes after %s and reads %s",
				name(a), name(b), name(s.Via), name(a), valueOf(b))
		case checker.RelReplaced:
			if s.Source == checker.Initial {
				return fmt.Sprintf("%s reads the initial value, so it must come before every write, %s included", name(a), name(b))
			}
			return fmt.Sprintf("%s must come before %s, since it reads %s and %s comes after that write",
				name(a), name(b), valueOf(s.Source), name(b))
		}
		return ""
	})
	return "no single order keeps each process's order and gives every read the value it returned: " +
		strings.Join(parts, "; ") + "; these orders form a cycle"
}

// staleRead tells a read that no order lets return its value.
func (w *words) staleRead() string {
	v := w.v
	o := w.op(v.Op)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s cannot take effect: no order of the operations lets the register hold %s at any moment between its call (at %d) and its return (at %d)",
		w.label(v.Op), v.Value, o.Call, o.Return)
	switch {
	case v.Initial && len(v.Writes) == 0:
		sb.WriteString("; it is the initial value and is never written again, and it was overwritten before the read was called")
	case len(v.Writes) == 0:
		sb.WriteString("; no operation writes it")
	default:
		fmt.Fprintf(&sb, "; the writes of it (latest first: %s) all take effect too early or too late, or are overwritten in between",
			strings.Join(w.labels(v.Writes), ", "))
	}
	return sb.String()
}

// zones tells the violations the zones of unique values find.
func (w *words) zones() string {
	v := w.v
	switch {
	case v.Pattern == "read-before-write":
		return fmt.Sprintf("%s read %s but returned before %s, the only write of %s, was called", w.label(v.Op), v.Value, w.label(v.Source), v.Value)
	case v.Pattern == "overlapping-zones" && len(v.Zones) == 2:
		return fmt.Sprintf("%s; and %s; the two spans overlap, and the register cannot hold both values at once",
			capital(w.span(&v.Zones[0])), w.span(&v.Zones[1]))
	case v.Pattern == "zone-inside-zone" && len(v.Zones) == 2:
		b := &v.Zones[1]
		return fmt.Sprintf("%s; but %s can be in the register only at some instant from %d to %d (after %s was called, before %s returned), which is within that span",
			capital(w.span(&v.Zones[0])), w.holder(b), b.From, b.To, w.label(b.FromOp), w.label(b.ToOp))
	}
	return "no order of the operations is legal"
}

// holder names a zone's value and where it came from.
func (w *words) holder(z *checker.Zone) string {
	if z.Initial {
		return "the initial value " + z.Value
	}
	return z.Value + ", written only by " + w.label(z.Write) + ","
}

// span says why a forward zone holds its value throughout.
func (w *words) span(z *checker.Zone) string {
	h := w.holder(z)
	if z.FromOp < 0 {
		return fmt.Sprintf("%s must stay in the register until %s was called (at %d), since it reads it", h, w.label(z.ToOp), z.To)
	}
	return fmt.Sprintf("%s must be in the register from when %s returned (at %d) until %s was called (at %d), since %s reads it",
		h, w.label(z.FromOp), z.From, w.label(z.ToOp), z.To, w.label(z.ToOp))
}

// capital starts a sentence with a capital letter when it starts with
// words of its own ("the initial value"); a value or label from the input
// is left as it is, whatever its case.
func capital(s string) string {
	if rest, ok := strings.CutPrefix(s, "the "); ok {
		return "The " + rest
	}
	return s
}
