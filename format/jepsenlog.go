package format

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/histcheck/histcheck/history"
)

// jepsenLogFormat is the history lines of a Jepsen log.
var jepsenLogFormat = Format{
	Name:       JepsenLog,
	Summary:    "the history lines of a Jepsen log",
	Extensions: []string{".log"},
	Events:     true,
	Sniff:      sniffJepsenLog,
	Read:       streamed(func(r io.Reader) (*history.History, error) { return readEventLines(r, matchLogLine, logShape) }),
}

// logShape describes a Jepsen log's history line in messages.
const logShape = "INFO  jepsen.util - <process> <:type> <:f> <value>"

// sniffJepsenLog claims input with a history line of a Jepsen log anywhere
// in its head, before any other format: logs start with other lines.
func sniffJepsenLog(head []byte) int {
	// The literal is found far faster than the expression runs.
	if bytes.Contains(head, []byte("jepsen.util")) && logMarkerRe().Match(head) {
		return 5
	}
	return 0
}

// logLineRe matches a history line of a Jepsen log:
// "INFO  jepsen.util - <process> <:type> <:f> <value>", fields separated by
// tabs or runs of spaces.
// It is compiled on first use, as are the package's other expressions,
// so that a process that reads another format does not compile it.
var logLineRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\S*\s*INFO\s+jepsen\.util\s+-\s+(\S+)\s+:(invoke|ok|fail|info)\s+(\S+)(?:\s+(.*?))?\s*$`)
})

// matchLogLine is logLine.FindSubmatch, with the common shape of the line
// read without the regular expression, which dominated reading a log.
func matchLogLine(b []byte) [][]byte {
	if m, ok := fastLogLine(b); ok {
		return m
	}
	return logLineRe().FindSubmatch(b)
}

// fastLogLine reads "PREFIX INFO jepsen.util - PROCESS :TYPE F VALUE" as
// logLine does, giving the same groups; ok is false for any other shape,
// which logLine then decides. INFO must follow at most one word of the
// prefix, so the first INFO is the only one logLine can match.
func fastLogLine(b []byte) (m [][]byte, ok bool) {
	i := bytes.Index(b, []byte("INFO"))
	if i < 0 {
		return nil, false
	}
	pre := skipSpace(skipWord(b[:i]))
	rest, ok := expectAfterSpace(b[i+4:], "jepsen.util")
	if len(pre) > 0 || !ok {
		return nil, false
	}
	if rest, ok = expectAfterSpace(rest, "-"); !ok {
		return nil, false
	}
	proc, rest := word(rest)
	typ, rest := word(rest)
	f, rest := word(rest)
	if len(proc) == 0 || len(typ) < 2 || typ[0] != ':' || len(f) == 0 {
		return nil, false
	}
	switch string(typ[1:]) {
	case "invoke", "ok", "fail", "info":
	default:
		return nil, false
	}
	return [][]byte{b, proc, typ[1:], f, bytes.TrimRight(skipSpace(rest), " \t\n\f\r")}, true
}

// expectAfterSpace skips at least one space, then expects word.
func expectAfterSpace(b []byte, word string) ([]byte, bool) {
	s := skipSpace(b)
	if len(s) == len(b) || !bytes.HasPrefix(s, []byte(word)) {
		return nil, false
	}
	return s[len(word):], true
}

// word skips at least one space, then returns the word that follows
// (empty when there is no space or no word) and what is after it.
func word(b []byte) ([]byte, []byte) {
	s := skipSpace(b)
	if len(s) == len(b) {
		return nil, b
	}
	rest := skipWord(s)
	return s[:len(s)-len(rest)], rest
}

func skipSpace(b []byte) []byte {
	for len(b) > 0 && isRESpace(b[0]) {
		b = b[1:]
	}
	return b
}

func skipWord(b []byte) []byte {
	for len(b) > 0 && !isRESpace(b[0]) {
		b = b[1:]
	}
	return b
}

// isRESpace is \s of package regexp.
func isRESpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// logMarkerRe finds candidate lines cheaply when sniffing.
var logMarkerRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`INFO\s+jepsen\.util\s+-\s+\S+\s+:(invoke|ok|fail|info)\b`)
})

// readEventLines reads the lines of r that match finds, one event each
// (its groups: process, type, f, value); other lines are skipped. Values
// are EDN. shape describes a matching line, for the error when none does.
func readEventLines(r io.Reader, match func([]byte) [][]byte, shape string) (*history.History, error) {
	lr := newLineReader(r, RecordLimit)
	p := history.NewPairer()
	line := 0
	for {
		b, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line = lr.line
		if !utf8.Valid(b) {
			return nil, history.Errorf(line, "invalid UTF-8")
		}
		m := match(b)
		if m == nil {
			continue
		}
		e, err := logEvent(m, line)
		if err != nil {
			return nil, err
		}
		if err := p.Add(&e); err != nil {
			return nil, err
		}
	}
	if p.Events() == 0 {
		return nil, history.Errorf(0, "no history lines (%s) in %d lines", shape, line)
	}
	return p.History(), nil
}

// logEvent reads the event of a history line, from the groups of its
// match (process, type, f, value).
func logEvent(m [][]byte, line int) (history.Event, error) {
	t, _ := history.ParseType(string(m[2]))
	proc, ok := processName(history.StringValue(string(m[1])))
	if !ok {
		return history.Event{}, history.Errorf(line, "expected a process (an integer or a name) after the dash, got %q", m[1])
	}
	e := history.Event{Process: proc, Type: t, Line: line}
	if v, ok := history.BigIntValue(e.Process); ok {
		if _, fits := v.Int(); !fits {
			return e, history.Errorf(line, "process %s does not fit in a 64-bit integer", e.Process)
		}
	}
	if history.IsNemesis(e.Process) {
		return e, nil
	}
	fv, err := lineValue(m[3], line)
	if err != nil {
		return e, err
	}
	name, ok := opName(fv)
	if !ok {
		f, _ := ednScalar(m[3], line)
		return e, history.Errorf(line, "expected an operation name such as :read, got %s", f.describe())
	}
	e.F = name
	e.Value = history.NilValue
	if len(m[4]) > 0 {
		if e.Value, err = lineValue(m[4], line); err != nil {
			return e, err
		}
	}
	return e, nil
}

// lineValue reads exactly one EDN form from text on a line as a value:
// the forms a history line mostly holds (a keyword, an integer, nil, a
// vector of integers and nils) directly, any other by the EDN reader.
func lineValue(text []byte, line int) (history.Value, error) {
	if v, ok := simpleValue(text); ok {
		return v, nil
	}
	if len(text) > 2 && text[0] == '[' && text[len(text)-1] == ']' {
		if v, ok := simpleVector(text[1 : len(text)-1]); ok {
			return v, nil
		}
	}
	n, err := ednScalar(text, line)
	if err != nil {
		return history.Value{}, err
	}
	return n.value(), nil
}

// simpleValue reads nil, an integer of at most 18 digits (an optional
// minus first) or a keyword of letters, digits, '-' and '_' as the EDN
// reader does; ok is false for anything else.
func simpleValue(b []byte) (history.Value, bool) {
	switch {
	case len(b) == 0:
		return history.Value{}, false
	case string(b) == "nil":
		return history.NilValue, true
	case b[0] == ':':
		if len(b) == 1 || !allBytes(b[1:], isNameByte) {
			return history.Value{}, false
		}
		return history.StringValue(string(b[1:])), true
	}
	digits := b
	if b[0] == '-' {
		digits = b[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || !allBytes(digits, isDigit) {
		return history.Value{}, false
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return history.IntValue(n), err == nil
}

// simpleVector reads the inside of a vector whose elements are simple
// values (see simpleValue) separated by single spaces.
func simpleVector(b []byte) (history.Value, bool) {
	var elems [4]history.Value
	vs := elems[:0]
	for len(b) > 0 {
		i := bytes.IndexByte(b, ' ')
		if i < 0 {
			i = len(b)
		}
		v, ok := simpleValue(b[:i])
		if !ok || v.Kind() == history.String {
			return history.Value{}, false
		}
		vs = append(vs, v)
		if b = b[i:]; len(b) > 0 {
			if b = b[1:]; len(b) == 0 {
				return history.Value{}, false
			}
		}
	}
	return history.ListValue(vs...), true
}

func allBytes(b []byte, ok func(byte) bool) bool {
	for _, c := range b {
		if !ok(c) {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isNameByte(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_'
}

// ednScalar reads exactly one EDN form from text on a line.
func ednScalar(text []byte, line int) (*ednNode, error) {
	p := newEDNParser(text, line)
	n, err := p.form(0)
	if err != nil {
		return nil, err
	}
	if end, err := p.atEnd(); err != nil {
		return nil, err
	} else if !end {
		return nil, history.Errorf(line, "unexpected text after the value: %q", string(text[p.pos:]))
	}
	return n, nil
}
