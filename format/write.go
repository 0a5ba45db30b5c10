package format

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/histcheck/histcheck/history"
)

// Write writes h as Jepsen events in the format to: "json" (an array, or a
// wrapper object {"model": …, "history": […]} when h.Meta is not empty),
// "jsonl" (one event per line; Meta is not carried) or "edn" (a vector of op
// maps, one per line, or a wrapper map {:model … :history […]} when h.Meta
// is not empty). Each operation becomes an invocation at its Call time and
// a completion at its Return time, so reading the output gives the same
// operations; see history.History.Events.
//
// Jepsen's event times count up from the start of a test, and the readers
// refuse a negative one, so a history with a time before 0 (which the
// notation and operations forms allow) is refused rather than written as
// a file that cannot be read back.
func Write(w io.Writer, h *history.History, to string) error {
	f := lookup(to)
	if f == nil || f.Write == nil {
		return fmt.Errorf("cannot write format %q; writable formats: %s", to, strings.Join(Writable(), ", "))
	}
	if err := eventTimes(h); err != nil {
		return err
	}
	return f.Write(w, h)
}

// eventTimes refuses a history whose events would carry a negative time.
func eventTimes(h *history.History) error {
	for i := range h.Ops {
		o := &h.Ops[i]
		call := o.Call
		if h.Order == history.FileOrder {
			if !h.Timed {
				continue // positions, never negative
			}
			call = o.Times.Call // the times written; a return is no earlier
		}
		if call < 0 {
			return fmt.Errorf("operation %s is called at %d: Jepsen events count time up from 0, "+
				"so a history with times before 0 cannot be written as events; shift its times first", o.Label(), call)
		}
	}
	return nil
}

func sortedMetaKeys(m map[string]history.Value) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		if k != "history" {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}

// settings returns the settings to write before a history's events: the
// history's own, and its order when that is time order, so that the file
// is read back in the same order (events alone would be read in the order
// they are written, which cannot keep every tie of times).
func settings(h *history.History) map[string]history.Value {
	if h.Order != history.TimeOrder || !h.Timed {
		return h.Meta
	}
	m := make(map[string]history.Value, len(h.Meta)+1)
	for k, v := range h.Meta {
		m[k] = v
	}
	m[OrderKey] = history.StringValue("times")
	return m
}

func writeJSON(w *bufio.Writer, h *history.History) error {
	events := h.Events()
	indent := ""
	meta := settings(h)
	if len(meta) > 0 {
		w.WriteString("{")
		for _, k := range sortedMetaKeys(meta) {
			kb, _ := json.Marshal(k)
			vb, err := json.Marshal(meta[k].JSON())
			if err != nil {
				return fmt.Errorf("meta %s: %w", k, err)
			}
			fmt.Fprintf(w, "%s: %s,\n ", kb, vb)
		}
		w.WriteString(`"history": `)
		indent = " "
	}
	w.WriteString("[")
	for i, e := range events {
		if i > 0 {
			w.WriteString(",\n " + indent)
		}
		b, err := e.MarshalJSON()
		if err != nil {
			return err
		}
		w.Write(b)
	}
	w.WriteString("]")
	if len(meta) > 0 {
		w.WriteString("}")
	}
	w.WriteString("\n")
	return nil
}

func writeJSONL(w *bufio.Writer, h *history.History) error {
	for _, e := range h.Events() {
		b, err := e.MarshalJSON()
		if err != nil {
			return err
		}
		w.Write(b)
		w.WriteByte('\n')
	}
	return nil
}

func writeEDN(w *bufio.Writer, h *history.History) error {
	events := h.Events()
	indent := ""
	meta := settings(h)
	if len(meta) > 0 {
		w.WriteString("{")
		for _, k := range sortedMetaKeys(meta) {
			w.WriteString(ednName(k) + " " + ednValue(meta[k]) + "\n ")
		}
		w.WriteString(":history ")
		indent = "          "
	}
	w.WriteString("[")
	for i, e := range events {
		if i > 0 {
			w.WriteString("\n " + indent)
		}
		w.WriteString(ednEventText(&e))
	}
	w.WriteString("]")
	if len(meta) > 0 {
		w.WriteString("}")
	}
	w.WriteString("\n")
	return nil
}

// reserved are the op map keys histcheck interprets; extra fields by these
// names are not written (reading would take them for the real ones).
var reserved = map[string]bool{"process": true, "type": true, "f": true, "value": true,
	"time": true, "index": true, "key": true, "version": true, "token": true}

func ednEventText(e *history.Event) string {
	var sb strings.Builder
	sb.WriteString("{:process ")
	if isInt(e.Process) {
		sb.WriteString(e.Process)
	} else {
		sb.WriteString(ednKeywordOrString(e.Process))
	}
	sb.WriteString(", :type :" + e.Type.String())
	sb.WriteString(", :f " + ednKeywordOrString(e.F))
	for _, f := range []struct {
		name string
		v    history.Value
	}{{"value", e.Value}, {"key", e.Key}, {"version", e.Version}, {"token", e.Token}} {
		if !f.v.IsNone() {
			sb.WriteString(", :" + f.name + " " + ednValue(f.v))
		}
	}
	if e.HasTime {
		sb.WriteString(", :time " + strconv.FormatInt(e.Time, 10))
	}
	if e.HasIdx {
		sb.WriteString(", :index " + strconv.FormatInt(e.Index, 10))
	}
	for _, f := range e.Extra {
		if reserved[f.Name] || f.Value.IsNone() {
			continue
		}
		sb.WriteString(", " + ednName(f.Name) + " " + ednValue(f.Value))
	}
	sb.WriteString("}")
	return sb.String()
}

// isInt reports whether a process name reads back from an EDN or JSON
// integer unchanged.
func isInt(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && strconv.FormatInt(n, 10) == s
}

// keywordText matches names that can be written as EDN keywords.
// It is compiled on first use: most runs write no EDN.
var keywordText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z*!_?<>=][A-Za-z0-9*+!_?<>=.-]*$`)
})

func ednKeywordOrString(s string) string {
	if keywordText().MatchString(s) && s != "nil" && s != "true" && s != "false" {
		return ":" + s
	}
	return ednQuote(s)
}

// ednName writes a map key: a keyword when it can be one.
func ednName(s string) string { return ednKeywordOrString(s) }

func ednQuote(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\n':
			sb.WriteString(`\n`)
		case '\t':
			sb.WriteString(`\t`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			if r < 0x20 || r == utf8.RuneError {
				fmt.Fprintf(&sb, `\u%04x`, r)
			} else {
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// ednValue writes a Value as EDN that reads back as the same Value.
func ednValue(v history.Value) string {
	switch v.Kind() {
	case history.None, history.Nil:
		return "nil"
	case history.Bool:
		b, _ := v.Bool()
		return strconv.FormatBool(b)
	case history.Int:
		if _, ok := v.Int(); ok {
			return v.Text()
		}
		return v.Text() + "N"
	case history.Float:
		f, _ := v.Float()
		switch {
		case math.IsNaN(f):
			return "##NaN"
		case math.IsInf(f, 1):
			return "##Inf"
		case math.IsInf(f, -1):
			return "##-Inf"
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	case history.String:
		return ednQuote(v.Text())
	case history.List, history.Set, history.Map:
		es := v.Elems()
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = ednValue(e)
		}
		switch v.Kind() {
		case history.List:
			return "[" + strings.Join(parts, " ") + "]"
		case history.Set:
			return "#{" + strings.Join(parts, " ") + "}"
		}
		var sb strings.Builder
		sb.WriteByte('{')
		for i := 0; i < len(parts); i += 2 {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(parts[i] + " " + parts[i+1])
		}
		sb.WriteByte('}')
		return sb.String()
	}
	return "nil"
}
