package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// MaxWitnessSteps is how many steps of a witness the text form shows before
// eliding the rest; the JSON form always has all of them.
const MaxWitnessSteps = 20

// MaxTextViolations is how many violations per result the text form shows.
const MaxTextViolations = 10

const indent = "    "

// TextOptions tune the text form.
type TextOptions struct {
	// Facts adds, under each core's story, the facts it was built from
	// (intervals, order, where each read's value came from).
	Facts bool

	// defined holds the terms (a pattern's name, "weakened") already
	// defined in words in this output; nil defines each where it appears.
	defined map[string]bool
}

// define writes, the first time term appears in the output, what it means,
// in a line of its own under the line that named it.
func (o TextOptions) define(w *bufio.Writer, pad, term string) {
	d := definition(term)
	if d == "" || o.defined[term] {
		return
	}
	if o.defined != nil {
		o.defined[term] = true
	}
	for _, l := range wrap("("+term+": "+d+")", textWidth-len(pad)) {
		line(w, pad, l)
	}
}

// Text writes r for people: for each history and criterion the line
// "FILE<TAB>CRITERION<TAB>true|false|unknown" (the line scripts written for
// elle-cli parse), followed by indented detail.
func Text(w io.Writer, r *Report) error { return WriteText(w, r, TextOptions{}) }

// WriteText is Text with options.
func WriteText(w io.Writer, r *Report, o TextOptions) error {
	bw := bufio.NewWriter(w)
	o.defined = make(map[string]bool)
	for i := range r.Histories {
		writeHistory(bw, &r.Histories[i], o)
	}
	return bw.Flush()
}

func writeHistory(w *bufio.Writer, h *History, o TextOptions) {
	for i := 0; i < len(h.Results); {
		res := &h.Results[i]
		if res.Model == "" {
			verdictLine(w, h.File, res.Consistency, res.Valid)
			writeKeys(w, h, res.Consistency)
			writeResult(w, res, indent, o)
			i++
			continue
		}
		// A run of per-object results of one criterion: one verdict line
		// for the file, as scripts expect, then each object indented.
		j := i
		var vs []checker.Verdict
		for ; j < len(h.Results) && h.Results[j].Model != "" && h.Results[j].Consistency == res.Consistency; j++ {
			vs = append(vs, h.Results[j].Valid)
		}
		verdictLine(w, h.File, res.Consistency, Combine(vs...))
		writeKeys(w, h, res.Consistency)
		for k := i; k < j; k++ {
			r := &h.Results[k]
			line(w, indent, fmt.Sprintf("%s (%s): %s", ObjectName(r.Key), r.Model, r.Valid))
			writeResult(w, r, indent+indent, o)
		}
		i = j
	}
	if h.Ladder != nil {
		line(w, indent, "strongest satisfied: "+listOrNone(h.Ladder.Strongest))
		line(w, indent, "weakest violated: "+listOrNone(h.Ladder.Weakest))
	}
}

// verdictLine writes the line scripts parse, FILE<TAB>CRITERION<TAB>VERDICT.
// The file name is shown through history.Quote, so that whatever it holds
// the line stays one line of three fields.
func verdictLine(w *bufio.Writer, file, criterion string, v checker.Verdict) {
	fmt.Fprintf(w, "%s\t%s\t%s\n", history.Quote(file), history.Escape(criterion), v)
}

// escapeLines is history.Escape applied to each line of s.
func escapeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = history.Escape(l)
	}
	return strings.Join(lines, "\n")
}

// line writes pad and text as one line. Every line of detail goes through
// it: text may hold names and values from the input, and history.Escape
// makes sure none of their characters breaks the line or reaches the
// terminal as a control sequence. (Labels and values are escaped where
// they are rendered; this is the last guard before the terminal.)
func line(w *bufio.Writer, pad, text string) {
	w.WriteString(pad)
	w.WriteString(history.Escape(text))
	w.WriteByte('\n')
}

// writeKeys writes the breakdown of a failing linearizability check by key.
func writeKeys(w *bufio.Writer, h *History, criterion string) {
	k := h.Keys
	if k == nil || criterion != checker.Linearizable {
		return
	}
	fmt.Fprintf(w, "%skeys: %d of %d failed", indent, k.Failed, k.Keys)
	if k.Reads > 0 {
		fmt.Fprintf(w, "; %d of the %d reads on them could not be placed (each contradicts its key's writes on its own)", k.Unplaced, k.Reads)
	}
	if k.ReadsSkipped {
		fmt.Fprintf(w, " (reads not counted on keys with appends or compare-and-sets, or past the count's limit)")
	}
	fmt.Fprintln(w)
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// ObjectName renders the key of a per-object result: "key lock", or "no
// key" for the operations that carry none. The key is shown escaped, as
// every text from the input (history.Quote).
func ObjectName(key any) string {
	if key == nil {
		return "no key"
	}
	return "key " + valueText(key)
}

// valueText shows a value of the JSON form as input text is shown: a
// string quoted when it must be, anything else as JSON, escaped.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return history.Quote(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return history.Escape(fmt.Sprintf("%v", v))
	}
	return history.Escape(string(b))
}

func writeResult(w *bufio.Writer, r *Result, indent string, o TextOptions) {
	if r.ImpliedBy != "" {
		line(w, indent, Implication(r.Consistency, r.ImpliedBy, r.Valid))
	}
	if r.Jepsen != nil {
		line(w, indent, jepsenCounts(r.Jepsen))
	}
	if n := max(len(r.Witness), r.witnessLen); n > 0 {
		line(w, indent, "witness: "+chainOf(r.Witness, n, MaxWitnessSteps))
	}
	if len(r.ReadsFrom) > 0 {
		labels := make([]string, len(r.ReadsFrom))
		for i, x := range r.ReadsFrom {
			src := "the initial value"
			if x.Write != nil {
				src = x.Write.Label
			}
			labels[i] = x.Read.Label + " from " + src
		}
		head := "reads-from chosen: "
		if r.Valid != checker.True {
			head = "no choice of reads-from holds; the violations are those under: "
		}
		line(w, indent, head+elide(labels, MaxWitnessSteps, ", "))
	}
	if len(r.Dropped) > 0 {
		labels := make([]string, len(r.Dropped))
		for i, op := range r.Dropped {
			labels[i] = op.Label
		}
		line(w, indent, "left out (outcome unknown, need not have taken effect): "+elide(labels, MaxWitnessSteps, ", "))
	}
	for i, v := range r.Violations {
		if i == MaxTextViolations {
			line(w, indent, fmt.Sprintf("… %d more violations (use -o json to see them all)", len(r.Violations)-i))
			break
		}
		writeViolation(w, &v, indent, o)
	}
	switch {
	case r.Valid.String() == "unknown" && r.Reason != "":
		line(w, indent, "reason: "+r.Reason)
	case r.Valid.String() == "false" && r.Reason != "" && r.Method == "elle":
		// How many cycles each component gave, how many violations
		// --max-violations left out, and Elle's empty transaction graph.
		line(w, indent, "note: "+r.Reason)
	}
}

// Chain renders a witness in the textbook's form, "B:r(0) -> A:w(1) ->
// C:r(1)", showing at most max steps and then how many more there are.
func Chain(ops []Op, max int) string { return chainOf(ops, len(ops), max) }

// chainOf is Chain of a chain of n operations of which ops are the first
// (at least max of them when n is more than max).
func chainOf(ops []Op, n, max int) string {
	if max > 0 && n > max {
		ops = ops[:max]
	}
	labels := make([]string, len(ops))
	for i, op := range ops {
		labels[i] = op.Label
	}
	return elideOf(labels, n, max, " -> ")
}

// elideNamed is elide that never leaves out a label story names: those
// are listed wherever they fall, the others until max labels are shown in
// all, so that a list shows every operation its explanation speaks of.
// shown is labels as they are written (each with its interval, say),
// labels the labels alone.
func elideNamed(shown, labels []string, story string, max int, sep string) string {
	if max <= 0 || len(shown) <= max {
		return strings.Join(shown, sep)
	}
	named := make([]bool, len(labels))
	left := max
	for i, l := range labels {
		if named[i] = strings.Contains(story, l); named[i] {
			left--
		}
	}
	var out []string
	for i, x := range shown {
		if named[i] || left > 0 {
			if !named[i] {
				left--
			}
			out = append(out, x)
		}
	}
	if n := len(shown) - len(out); n > 0 {
		return strings.Join(out, sep) + sep + "… (" + strconv.Itoa(n) + " more)"
	}
	return strings.Join(out, sep)
}

func elide(labels []string, max int, sep string) string {
	return elideOf(labels, len(labels), max, sep)
}

// elideOf is elide of n labels of which labels are the first (at least
// max of them when n is more than max).
func elideOf(labels []string, n, max int, sep string) string {
	if max > 0 && n > max {
		return strings.Join(labels[:max], sep) + sep + "… (" + strconv.Itoa(n-max) + " more)"
	}
	return strings.Join(labels, sep)
}

// Interval renders an operation's real-time interval, "[2, 4]", with ∞ for
// an unknown return.
func Interval(op Op) string {
	ret := "∞"
	if op.Return != nil {
		ret = strconv.FormatInt(*op.Return, 10)
	}
	return "[" + strconv.FormatInt(op.Call, 10) + ", " + ret + "]"
}

// Summary writes one line of counts for h, then its warnings, indented,
// and why it could not be checked when it could not; a file that could
// not be read has that line alone.
func Summary(w io.Writer, h *History) error {
	bw := bufio.NewWriter(w)
	if h.Order == "" && h.Error != "" {
		fmt.Fprintf(bw, "%s: not read: %s\n", history.Quote(h.File), history.Escape(h.Error))
		return bw.Flush()
	}
	fmt.Fprintf(bw, "%s: %d ops (%d ok, %d failed, %d unknown), %d processes, %d clients, %d ignored, %d warnings\n",
		history.Quote(h.File), h.Ops, h.OK, h.Failed, h.Unknown, h.Processes, h.Clients, h.Ignored, len(h.Warnings))
	for _, warn := range h.Warnings {
		line(bw, indent, "warning: "+warn)
	}
	if h.Error != "" {
		line(bw, indent, notChecked(h.Error))
	}
	return bw.Flush()
}

// JSON writes r as one indented JSON object followed by a newline.
func JSON(w io.Writer, r *Report) error {
	return writeIndented(w, "  ", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	})
}

// textWidth is the width explanations are wrapped to.
const textWidth = 88

// MaxTextCoreTimeline is the largest core whose timeline the text form
// draws unless the facts are asked for too; a larger one would push the
// rest of the report off the screen.
const MaxTextCoreTimeline = 8

// writeViolation writes one violation: a headline naming its pattern, key
// and operations (with their intervals), then its one explanation. With a
// core, the headline names the core's operations, the weakened ones apart,
// and the explanation is the core's: its timeline, its story and, when
// asked, its facts.
func writeViolation(w *bufio.Writer, v *Violation, indent string, o TextOptions) {
	head := "violation"
	if v.Pattern != "" {
		head += " (" + v.Pattern + ")"
	}
	if v.Key != "" {
		head += " on key " + v.Key
	}
	c := v.Core
	list, weak := v.Ops, []Op(nil)
	if c != nil {
		list, weak = c.Ops, c.Weakened
	}
	labels := opLabels(append(append([]Op(nil), list...), weak...))
	story := v.Explanation
	if c != nil {
		story = c.Explanation
	}
	withTimes := func(ops []Op, labels []string) string {
		parts := make([]string, len(ops))
		for j, op := range ops {
			parts[j] = labels[j] + " " + Interval(op)
		}
		return elideNamed(parts, labels, story, MaxWitnessSteps, ", ")
	}
	if len(list) > 0 { // a violation of no operation (set-full's duplicates) has no list to give
		head += ": " + withTimes(list, labels[:len(list)])
	}
	if len(weak) > 0 {
		head += "; weakened: " + withTimes(weak, labels[len(list):])
	}
	line(w, indent, head)
	pad := indent + "  "
	if v.Pattern != "" {
		o.define(w, pad, v.Pattern)
	}
	if c == nil {
		if v.Explanation != "" {
			for _, l := range strings.Split(v.Explanation, "\n") {
				line(w, pad, l)
			}
		}
		if v.timeline != "" {
			writeTimeline(w, v.timeline, pad+"  ")
		}
		return
	}
	writeCore(w, c, v.Key, pad, o)
}

// writeCore writes a violation's core compactly: one line naming its
// operations, its timeline, and the story of the explanation (with the
// facts under it when asked).
func writeCore(w *bufio.Writer, c *Core, key, pad string, o TextOptions) {
	ls := opLabels(append(append([]Op(nil), c.Ops...), c.Weakened...))
	list := func(ls []string) string { return elideNamed(ls, ls, c.Explanation, MaxWitnessSteps, ", ") }
	head := pad + "core: " + list(ls[:len(c.Ops)])
	if c.Key != "" && c.Key != key {
		head = pad + "core on key " + c.Key + ": " + list(ls[:len(c.Ops)])
	}
	if len(c.Weakened) > 0 {
		head += "; weakened: " + list(ls[len(c.Ops):])
	}
	if !c.Minimal {
		head += " (not shown minimal: the time allowed ran out)"
	}
	line(w, "", head)
	if len(c.Weakened) > 0 {
		o.define(w, pad, "weakened")
	}
	if c.Size() <= MaxTextCoreTimeline || o.Facts {
		writeTimeline(w, c.Timeline, pad+"  ")
	}
	if story := c.Story(); story != "" {
		for _, l := range wrap(story, textWidth-len(pad)) {
			line(w, pad, l)
		}
	}
	if o.Facts {
		for _, f := range c.Facts() {
			for i, l := range wrap(f, textWidth-len(pad)-2) {
				bullet := "- "
				if i > 0 {
					bullet = "  "
				}
				line(w, pad+bullet, l)
			}
		}
	}
}

// writeTimeline writes a timeline's lines, indented by pad.
func writeTimeline(w *bufio.Writer, timeline, pad string) {
	for _, l := range strings.Split(strings.TrimRight(timeline, "\n"), "\n") {
		if l != "" {
			line(w, pad, strings.TrimRight(l, " "))
		}
	}
}

// wrap breaks s into lines of at most width bytes at spaces (a longer word
// gets a line of its own).
func wrap(s string, width int) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case len(line)+1+len(word) <= width:
				line += " " + word
			default:
				lines = append(lines, line)
				line = word
			}
		}
		if line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// Implication says why criterion has verdict v without a check of its own:
// it follows from the verdict of the checked criterion by, through the
// ladder's implications.
func Implication(criterion, by string, v checker.Verdict) string {
	strong, weak := by, criterion
	if v == checker.False {
		strong, weak = criterion, by
	}
	return fmt.Sprintf("follows from %s = %s: %s implies %s; not checked on its own", by, v, strong, weak)
}
