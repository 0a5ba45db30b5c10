package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxWitnessSteps is how many steps of a witness the text form shows before
// eliding the rest; the JSON form always has all of them.
const MaxWitnessSteps = 20

// MaxTextViolations is how many violations per result the text form shows.
const MaxTextViolations = 10

const indent = "    "

// Text writes r for people: for each history and criterion the line
// "FILE<TAB>CRITERION<TAB>true|false|unknown" (the line scripts written for
// elle-cli parse), followed by indented detail.
func Text(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	for i := range r.Histories {
		writeHistory(bw, &r.Histories[i])
	}
	return bw.Flush()
}

func writeHistory(w *bufio.Writer, h *History) {
	for _, res := range h.Results {
		fmt.Fprintf(w, "%s\t%s\t%s\n", h.File, res.Consistency, res.Valid)
		writeResult(w, &res)
	}
	if h.Ladder != nil {
		fmt.Fprintf(w, "%sstrongest satisfied: %s\n", indent, listOrNone(h.Ladder.Strongest))
		fmt.Fprintf(w, "%sweakest violated: %s\n", indent, listOrNone(h.Ladder.Weakest))
	}
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func writeResult(w *bufio.Writer, r *Result) {
	if len(r.Witness) > 0 {
		fmt.Fprintf(w, "%switness: %s\n", indent, Chain(r.Witness, MaxWitnessSteps))
	}
	if len(r.Dropped) > 0 {
		labels := make([]string, len(r.Dropped))
		for i, op := range r.Dropped {
			labels[i] = op.Label
		}
		fmt.Fprintf(w, "%sleft out (outcome unknown, need not have taken effect): %s\n", indent, elide(labels, MaxWitnessSteps, ", "))
	}
	for i, v := range r.Violations {
		if i == MaxTextViolations {
			fmt.Fprintf(w, "%s… %d more violations (use -o json to see them all)\n", indent, len(r.Violations)-i)
			break
		}
		head := "violation"
		if v.Pattern != "" {
			head += " (" + v.Pattern + ")"
		}
		if v.Key != "" {
			head += " on key " + v.Key
		}
		parts := make([]string, len(v.Ops))
		for j, op := range v.Ops {
			parts[j] = op.Label + " " + Interval(op)
		}
		fmt.Fprintf(w, "%s%s: %s\n", indent, head, strings.Join(parts, ", "))
		if v.Explanation != "" {
			for _, line := range strings.Split(v.Explanation, "\n") {
				fmt.Fprintf(w, "%s  %s\n", indent, line)
			}
		}
	}
	if r.Valid.String() == "unknown" && r.Reason != "" {
		fmt.Fprintf(w, "%sreason: %s\n", indent, r.Reason)
	}
}

// Chain renders a witness in the textbook's form, "B:r(0) -> A:w(1) ->
// C:r(1)", showing at most max steps and then how many more there are.
func Chain(ops []Op, max int) string {
	labels := make([]string, len(ops))
	for i, op := range ops {
		labels[i] = op.Label
	}
	return elide(labels, max, " -> ")
}

func elide(labels []string, max int, sep string) string {
	if max > 0 && len(labels) > max {
		return strings.Join(labels[:max], sep) + sep + "… (" + strconv.Itoa(len(labels)-max) + " more)"
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

// Summary writes one line of counts for h, then its warnings, indented.
func Summary(w io.Writer, h *History) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s: %d ops (%d ok, %d failed, %d unknown), %d processes, %d clients, %d ignored, %d warnings\n",
		h.File, h.Ops, h.OK, h.Failed, h.Unknown, h.Processes, h.Clients, h.Ignored, len(h.Warnings))
	for _, warn := range h.Warnings {
		fmt.Fprintf(bw, "%swarning: %s\n", indent, warn)
	}
	return bw.Flush()
}

// JSON writes r as one indented JSON object followed by a newline.
func JSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
