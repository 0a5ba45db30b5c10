package format

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"unicode/utf8"

	"github.com/histcheck/histcheck/history"
)

// logLine matches a history line of a Jepsen log:
// "INFO  jepsen.util - <process> <:type> <:f> <value>", fields separated by
// tabs or runs of spaces.
var logLine = regexp.MustCompile(`^\S*\s*INFO\s+jepsen\.util\s+-\s+(\S+)\s+:(invoke|ok|fail|info)\s+(\S+)(?:\s+(.*?))?\s*$`)

// logMarker finds candidate lines cheaply when sniffing.
var logMarker = regexp.MustCompile(`INFO\s+jepsen\.util\s+-\s+\S+\s+:(invoke|ok|fail|info)\b`)

// readJepsenLog reads the history lines of a Jepsen log; other lines are
// skipped. Values are EDN.
func readJepsenLog(r io.Reader) (*history.History, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var events []history.Event
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if !utf8.Valid(b) {
			return nil, history.Errorf(line, "invalid UTF-8")
		}
		m := logLine.FindSubmatch(b)
		if m == nil {
			continue
		}
		t, _ := history.ParseType(string(m[2]))
		e := history.Event{Process: string(m[1]), Type: t, Line: line}
		if pn := string(m[1]); len(pn) > 1 && pn[0] == ':' {
			e.Process = pn[1:]
		}
		if history.IsNemesis(e.Process) {
			events = append(events, e)
			continue
		}
		f, err := ednScalar(m[3], line)
		if err != nil {
			return nil, err
		}
		name, ok := opName(f.value())
		if !ok {
			return nil, history.Errorf(line, "expected an operation name such as :read, got %s", f.describe())
		}
		e.F = name
		e.Value = history.NilValue
		if len(m[4]) > 0 {
			v, err := ednScalar(m[4], line)
			if err != nil {
				return nil, err
			}
			e.Value = v.value()
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, history.Errorf(line+1, "line longer than %d bytes", maxLine)
		}
		return nil, fmt.Errorf("reading: %w", err)
	}
	if len(events) == 0 {
		return nil, history.Errorf(0, "no history lines (INFO  jepsen.util - <process> <:type> <:f> <value>) in %d lines", line)
	}
	return history.Pair(events)
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
