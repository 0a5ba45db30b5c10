package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// storyteller derives the facts of a core from the original history.
type storyteller struct {
	h          *history.History
	m          model.Info // the model's operation classes (Core.Model)
	ops        []int      // essential operations, in call order
	weak       []int
	sequential bool
	init       history.Value // the initial value, if the history says
	names      names
}

// coreStory says in plain words why a core violates the criterion, from its
// facts: how its operations are ordered (in real time for linearizability,
// in each process's order for sequential consistency), which write each
// read must have read from, and reason, the checker's words for the
// violation it found in the core's history (or empty). h is the original
// history, whose times and labels it quotes; init is the initial value
// the check used, when known (else the history's own, if it gives one). The first paragraph is the
// one story the report tells; the facts follow, a line each.
func coreStory(h *history.History, core shrink.Core, criterion string, reason string, init history.Value) string {
	m := core.Model
	if len(m.Ops) == 0 {
		// The zero Info stands for the cas-register's operations.
		m = model.NewCASRegister(model.Options{}).Info()
	}
	e := &storyteller{h: h, m: m, sequential: criterion == checker.Sequential}
	for _, p := range core.Ops {
		if p >= 0 && p < len(h.Ops) {
			e.ops = append(e.ops, p)
		}
	}
	for _, p := range core.Weakened {
		if p >= 0 && p < len(h.Ops) {
			e.weak = append(e.weak, p)
		}
	}
	byCall := func(ps []int) {
		sort.SliceStable(ps, func(a, b int) bool { return h.Ops[ps[a]].Call < h.Ops[ps[b]].Call })
	}
	byCall(e.ops)
	byCall(e.weak)
	e.names = newNames(h, append(append([]int(nil), e.ops...), e.weak...))
	e.init = init
	if v, ok := h.Meta["init"]; ok && init.IsNone() {
		e.init = v
	}
	reason = strings.TrimSuffix(strings.TrimSpace(reason), ".")

	var sb strings.Builder
	story := e.story()
	switch {
	case story != "":
	case reason != "":
		// The checker's own words on the core are the story; they are
		// not repeated among the facts.
		story, reason = sentence(reason)+".", ""
	default:
		order := "real time"
		if e.sequential {
			order = "each process's order"
		}
		if n := len(e.ops) + len(e.weak); n == 1 {
			story = fmt.Sprintf("No order of this one operation respects %s and the model.", order)
		} else {
			story = fmt.Sprintf("No order of these %d operations respects %s and the model.", n, order)
		}
	}
	sb.WriteString(story)
	sb.WriteString("\n\n")
	facts := e.facts()
	if reason != "" {
		facts = append(facts, "The checker's reason: "+reason+".")
	}
	for _, f := range facts {
		sb.WriteString("- ")
		sb.WriteString(f)
		sb.WriteByte('\n')
	}
	return strings.TrimRight(sb.String(), "\n")
}

// ownWords are how the sentences report writes begin, as opposed to a
// label or a value from the input, whose case is kept.
var ownWords = []string{"no ", "the ", "these ", "process ", "session ", "each ", "counting ", "some "}

// sentence starts s with a capital letter when s starts with report's own
// words; a label or value from the input is left as it is.
func sentence(s string) string {
	for _, w := range ownWords {
		if strings.HasPrefix(s, w) {
			return strings.ToUpper(s[:1]) + s[1:]
		}
	}
	return s
}

func (e *storyteller) op(p int) *history.Op { return &e.h.Ops[p] }

func (e *storyteller) label(p int) string { return e.names.of(p) }

// span renders an operation's interval, "[0, 10]" or "[3, ...)" when it
// never returned.
func span(o *history.Op) string {
	if o.Return == history.Infinity {
		return "[" + strconv.FormatInt(o.Call, 10) + ", ...)"
	}
	return "[" + strconv.FormatInt(o.Call, 10) + ", " + strconv.FormatInt(o.Return, 10) + "]"
}

// precedes reports whether a must take effect before b: a returned before
// b was called (linearizability), or a came earlier in the same process
// (sequential consistency, and also under real time when a returned).
func (e *storyteller) precedes(a, b int) bool {
	x, y := e.op(a), e.op(b)
	if a == b {
		return false
	}
	if e.sequential {
		return x.Process == y.Process && (x.Call < y.Call || x.Call == y.Call && a < b)
	}
	return x.Status == history.OK && x.Return < y.Call
}

// orderPhrase says why a precedes b, with times.
func (e *storyteller) orderPhrase(a, b int) string {
	x, y := e.op(a), e.op(b)
	if e.sequential {
		return fmt.Sprintf("%s comes before %s in process %s's order", e.label(a), e.label(b), history.Quote(x.Client))
	}
	s := fmt.Sprintf("%s finished at %d before %s began at %d", e.label(a), x.Return, e.label(b), y.Call)
	if x.Process == y.Process {
		s += " (same process)"
	}
	return s
}

// writers lists the core's operations, weakened ones included, that store
// v on key.
func (e *storyteller) writers(key, v history.Value) []int {
	var out []int
	for _, p := range append(append([]int(nil), e.ops...), e.weak...) {
		o := e.op(p)
		if w, ok := e.m.Stored(o); ok && o.Key == key && w == v {
			out = append(out, p)
		}
	}
	sort.Ints(out)
	return out
}

func (e *storyteller) isWeak(p int) bool {
	for _, q := range e.weak {
		if q == p {
			return true
		}
	}
	return false
}

// observed is the value an operation shows the register held: a read's
// result or the value a write or cas stored.
func (e *storyteller) observed(p int) (history.Value, bool) {
	o := e.op(p)
	if v, ok := e.m.ReadResult(o); ok {
		return v, true
	}
	if o.Status == history.Info {
		return history.Value{}, false
	}
	return e.m.Stored(o)
}

// older reports whether value old must have been replaced by the time
// value v was stored on key: no core operation writes old (it is the
// initial value), or every writer of old precedes every writer of v (in
// real time, or in their process's order under sequential consistency).
// It returns a phrase naming old.
func (e *storyteller) older(key, old, v history.Value) (string, bool) {
	ow, nw := e.writers(key, old), e.writers(key, v)
	if len(ow) == 0 {
		if !e.init.IsNone() && e.init != old {
			return "", false
		}
		return "the old value " + old.String(), true
	}
	if len(nw) == 0 {
		return "", false
	}
	for _, a := range ow {
		for _, b := range nw {
			if e.isWeak(a) || e.isWeak(b) || !e.precedes(a, b) {
				return "", false
			}
		}
	}
	return "the older value " + old.String(), true
}

// here is " here" when an operation of the history outside the core also
// stores v on key (one that did not fail), so that "only W wrote v" is
// said of the core's operations, as it is meant; else "".
func (e *storyteller) here(key, v history.Value) string {
	in := make(map[int]bool, len(e.ops)+len(e.weak))
	for _, p := range append(append([]int(nil), e.ops...), e.weak...) {
		in[p] = true
	}
	for i := range e.h.Ops {
		o := &e.h.Ops[i]
		if in[i] || o.Key != key || o.Status == history.Fail {
			continue
		}
		if w, ok := e.m.Stored(o); ok && w == v {
			return " here"
		}
	}
	return ""
}

// plain reports whether the core's operations on key are reads, writes
// and compare-and-sets (model.Info.ClassOf), so that a value read is the
// value the last write or cas stored. On a key with other operations (an
// append, a counter's add) a value read is built by several of them, and
// the facts of who wrote it are not told.
func (e *storyteller) plain(key history.Value) bool {
	for _, p := range append(append([]int(nil), e.ops...), e.weak...) {
		o := e.op(p)
		if o.Key != key {
			continue
		}
		switch e.m.ClassOf(o.F) {
		case model.ReadOp, model.WriteOp, model.CASOp:
		default:
			return false
		}
	}
	return true
}

// story looks for the classic shape of a stale read: an operation that saw
// (or stored) a newer value precedes a read of an older one. It returns ""
// when the core has another shape.
func (e *storyteller) story() string {
	for _, b := range e.ops {
		vb, ok := e.m.ReadResult(e.op(b))
		if !ok || !e.plain(e.op(b).Key) {
			continue
		}
		for _, a := range e.ops {
			if !e.precedes(a, b) || e.op(a).Key != e.op(b).Key {
				continue
			}
			va, ok := e.observed(a)
			if !ok || va == vb {
				continue
			}
			key := e.op(b).Key
			old, ok := e.older(key, vb, va)
			if !ok {
				continue
			}
			return e.tell(a, b, va, vb, old)
		}
	}
	return ""
}

// tell writes the stale-read story for a preceding b, where a saw or
// stored va and b then read the older vb.
func (e *storyteller) tell(a, b int, va, vb history.Value, old string) string {
	var sb strings.Builder
	x, y := e.op(a), e.op(b)
	if _, isRead := e.m.ReadResult(x); isRead {
		if e.sequential {
			fmt.Fprintf(&sb, "%s read the new value %s and comes before %s in process %s's order; yet %s read %s.",
				e.label(a), va, e.label(b), history.Quote(x.Client), e.label(b), old)
			e.tellSequential(&sb, a, b, va, vb)
			return sb.String()
		}
		fmt.Fprintf(&sb, "%s read the new value %s and finished at %d, before %s began at %d; yet %s read %s.",
			e.label(a), va, x.Return, e.label(b), y.Call, e.label(b), old)
		ws := e.writers(x.Key, va)
		if len(ws) == 1 {
			w := e.op(ws[0])
			switch {
			case e.isWeak(ws[0]):
				// A weakened write's times are not the core's: only
				// that it alone wrote the value counts.
				fmt.Fprintf(&sb, " Only %s wrote %s%s, so once %s saw %s the write had taken effect, and no later read may return %s.",
					e.label(ws[0]), va, e.here(x.Key, va), e.label(a), va, vb)
			case w.Return == history.Infinity || w.Return >= y.Call:
				fmt.Fprintf(&sb, " %s was still in progress %s, so once %s saw %s the write had taken effect, and no later read may return %s.",
					e.label(ws[0]), span(w), e.label(a), va, vb)
			default:
				fmt.Fprintf(&sb, " %s had finished at %d, so the write had taken effect, and no later read may return %s.",
					e.label(ws[0]), w.Return, vb)
			}
		} else if len(ws) > 1 {
			fmt.Fprintf(&sb, " Whichever of %s wrote %s had taken effect by then, and no later read may return %s.",
				e.list(ws), va, vb)
		}
		return sb.String()
	}
	// old names vb ("the older value 4"), so it is not repeated.
	if strings.HasPrefix(old, "the old value") {
		fmt.Fprintf(&sb, "%s, yet the read returned %s, the value before the write.", e.orderPhrase(a, b), vb)
	} else {
		fmt.Fprintf(&sb, "%s, yet the read returned %s, which the write had overwritten.", e.orderPhrase(a, b), old)
	}
	return sb.String()
}

// tellSequential ends the stale-read story under sequential consistency,
// from the process's order and the values read alone: the write a read
// saw comes before it in every order, and nothing after that write gives
// the old value back.
func (e *storyteller) tellSequential(sb *strings.Builder, a, b int, va, vb history.Value) {
	ws := e.writers(e.op(a).Key, va)
	switch len(ws) {
	case 0:
		return
	case 1:
		fmt.Fprintf(sb, " Only %s wrote %s%s, so every order places it before %s and so before %s; no write of %s follows it, so %s cannot return %s.",
			e.label(ws[0]), va, e.here(e.op(a).Key, va), e.label(a), e.label(b), vb, e.label(b), vb)
	default:
		fmt.Fprintf(sb, " Whichever of %s wrote what %s read comes before it, and so before %s, in every order; no write of %s follows it, so %s cannot return %s.",
			e.list(ws), e.label(a), e.label(b), vb, e.label(b), vb)
	}
}

// list joins labels: "A:w(1)", "A:w(1) and B:w(1)", "A, B and C".
func (e *storyteller) list(ps []int) string {
	var ls []string
	for _, p := range ps {
		ls = append(ls, e.label(p))
	}
	if len(ls) <= 1 {
		return strings.Join(ls, "")
	}
	return strings.Join(ls[:len(ls)-1], ", ") + " and " + ls[len(ls)-1]
}

// facts lists the core's facts: its operations' intervals, the order
// between them (without the pairs that follow from others), where each
// read's value came from, and what the weakened operations stand for.
func (e *storyteller) facts() []string {
	out := e.intervals()
	out = append(out, e.orders()...)
	out = append(out, e.overlaps()...)
	for _, p := range e.ops {
		if f, ok := e.readFrom(p); ok {
			out = append(out, f)
		}
	}
	for _, p := range e.weak {
		o := e.op(p)
		if e.sequential {
			out = append(out, fmt.Sprintf("%s (recorded %s) is weakened: kept only with unknown outcome, it may take effect anywhere after its process's earlier operations, or never.",
				e.label(p), span(o)))
			continue
		}
		out = append(out, fmt.Sprintf("%s (recorded %s) is weakened: kept only with unknown outcome, it may have taken effect at any time after %d, or never.",
			e.label(p), span(o), o.Call))
	}
	return out
}

// intervals says when each operation ran (in real time only: sequential
// consistency ignores times), or that its outcome is unknown.
func (e *storyteller) intervals() []string {
	var out []string
	for _, p := range e.ops {
		o := e.op(p)
		switch {
		case o.Status == history.Info:
			out = append(out, fmt.Sprintf("%s began at %d and its outcome is unknown.", e.label(p), o.Call))
		case !e.sequential:
			out = append(out, fmt.Sprintf("%s ran from %d to %d.", e.label(p), o.Call, o.Return))
		}
	}
	return out
}

// orders says which operation must take effect before which: the
// transitive reduction of "precedes" over the core.
func (e *storyteller) orders() []string {
	var out []string
	for _, a := range e.ops {
		for _, b := range e.ops {
			if e.precedes(a, b) && !e.implied(a, b) {
				// The phrase starts with a label, the input's own
				// text: it is not capitalised.
				out = append(out, e.orderPhrase(a, b)+".")
			}
		}
	}
	return out
}

// implied reports whether a precedes b through another operation of the
// core.
func (e *storyteller) implied(a, b int) bool {
	for _, c := range e.ops {
		if c != a && c != b && e.precedes(a, c) && e.precedes(c, b) {
			return true
		}
	}
	return false
}

// overlaps says which operations may take effect in either order (in real
// time only).
func (e *storyteller) overlaps() []string {
	if e.sequential {
		return nil
	}
	var out []string
	for i, a := range e.ops {
		for _, b := range e.ops[i+1:] {
			if !e.precedes(a, b) && !e.precedes(b, a) {
				out = append(out, fmt.Sprintf("%s and %s overlap in time, so either may take effect first.", e.label(a), e.label(b)))
			}
		}
	}
	return out
}

// readFrom says where the value a read returned, or a cas compared with,
// came from; ok is false for other operations.
func (e *storyteller) readFrom(p int) (string, bool) {
	o := e.op(p)
	if !e.plain(o.Key) {
		return "", false
	}
	what, v, ok := "", history.Value{}, false
	if v, ok = e.m.ReadResult(o); ok {
		what = fmt.Sprintf("%s read %s", e.label(p), v)
	} else if v, ok = e.m.Expected(o); ok {
		what = fmt.Sprintf("%s needs the value %s", e.label(p), v)
	} else {
		return "", false
	}
	var from []int
	for _, w := range e.writers(o.Key, v) {
		if w != p {
			from = append(from, w)
		}
	}
	switch {
	case len(from) == 0 && !e.init.IsNone() && e.init == v:
		return what + ", which no operation here wrote: the initial value.", true
	case len(from) == 0:
		return what + ", which no operation here wrote.", true
	case len(from) == 1:
		return what + ", which only " + e.label(from[0]) + " wrote" + e.here(o.Key, v) + ".", true
	}
	return what + ", which " + e.list(from) + " wrote.", true
}
