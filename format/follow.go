package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/histcheck/histcheck/history"
)

// LineEvents reads a history one event a line, as the history is written:
// JSON Lines, Jepsen EDN with one op map a line, or a Jepsen log, whose
// other lines are skipped. Its format is named, or sniffed from its first
// line that is not blank.
type LineEvents struct {
	lr   *lineReader
	form string // JSONL, EDN or JepsenLog; "" until known
	fj   *fastJSON
	fe   *ednFast
	err  error
	// skipped counts the lines before the first event, which a log may
	// have (up to logPreamble).
	skipped int
}

// logPreamble is how many lines may come before the first event.
const logPreamble = 1000

// NewLineEvents reads events from r, a line at a time. name is a format
// (JSONL, EDN or JepsenLog) or "" to sniff it from the first line.
func NewLineEvents(r io.Reader, name string) (*LineEvents, error) {
	switch name {
	case "", JSONL, EDN, JepsenLog:
	default:
		return nil, fmt.Errorf("format %s is not read an event a line; following a history takes %s, %s (one op map a line) or %s", name, JSONL, EDN, JepsenLog)
	}
	return &LineEvents{lr: newLineReader(r, RecordLimit), form: name, fj: newFastJSON(), fe: newEDNFast()}, nil
}

// Format is the format read, once known.
func (l *LineEvents) Format() string { return l.form }

// Line is the number of the last line read.
func (l *LineEvents) Line() int { return l.lr.line }

// ErrPartialLine is wrapped by the error Next returns when the input ends
// inside a line: the writer stopped, or was stopped, mid-event.
var ErrPartialLine = errors.New("the input ends inside a line")

// Next returns the next event. At the end of the input it returns io.EOF;
// a last line without its newline is an error naming it (an event cut
// short), as is a line that is not an event.
func (l *LineEvents) Next() (history.Event, error) {
	var e history.Event
	err := l.Read(&e)
	return e, err
}

// Read is Next reading the event into e, which a reader of many events
// reuses: an event is a couple of hundred bytes, and copying it out
// through each call was a tenth of decoding a line. After an error, e
// holds nothing of use.
func (l *LineEvents) Read(e *history.Event) error {
	if l.err != nil {
		return l.err
	}
	for {
		b, err := l.lr.next()
		if err != nil {
			l.err = err
			return err
		}
		line := l.lr.line
		if l.lr.partial {
			l.err = &history.InputError{Line: line, Msg: fmt.Sprintf("%v: the line has no newline, so its event may be cut short (the writer stopped mid-line?)", ErrPartialLine)}
			return l.err
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		ok, err := l.decode(b, line, e)
		if err != nil {
			l.err = err
			return err
		}
		if ok {
			return nil
		}
	}
}

// decode reads one line into e; ok is false for a log line that is not a
// history line.
func (l *LineEvents) decode(b []byte, line int, e *history.Event) (bool, error) {
	if !utf8.Valid(b) {
		return false, history.Errorf(line, "invalid UTF-8")
	}
	if l.form == "" {
		t := bytes.TrimSpace(b)
		switch {
		case bytes.HasPrefix(t, []byte(`{"`)), bytes.Equal(t, []byte("{}")):
			l.form = JSONL
		case bytes.HasPrefix(t, []byte("{:")), bytes.HasPrefix(t, []byte("#")):
			l.form = EDN
		case matchLogLine(b) != nil:
			l.form = JepsenLog
		case l.skipped < logPreamble:
			l.skipped++ // a log's lines before its first history line
			return false, nil
		default:
			return false, history.Errorf(line, "expected an event (a JSON object, an EDN op map or a Jepsen log line) within the first %d lines, got %q", logPreamble, truncate(t, 60))
		}
	}
	var err error
	switch l.form {
	case JSONL:
		err = l.jsonLine(b, line, e)
		return err == nil, err
	case EDN:
		err = l.ednLine(b, line, e)
		return err == nil, err
	}
	m := matchLogLine(b)
	if m == nil {
		return false, nil
	}
	ev, err := logEvent(m, line)
	if err == nil {
		*e = ev
	}
	return err == nil, err
}

func (l *LineEvents) jsonLine(b []byte, line int, e *history.Event) error {
	if l.fj.lineEvent(b, line, e) {
		return nil
	}
	tops, err := newJSONParser(b, line).all()
	if err != nil {
		return err
	}
	if len(tops) != 1 {
		return history.Errorf(line, "expected one JSON object on the line, found %d values", len(tops))
	}
	ev, err := jsonEvent(tops[0])
	if err == nil {
		*e = ev
	}
	return err
}

func (l *LineEvents) ednLine(b []byte, line int, e *history.Event) error {
	if ev, end, ok := l.fe.opMap(b, line); ok && len(bytes.TrimSpace(b[end:])) == 0 {
		*e = ev
		return nil
	}
	p := newEDNParser(b, line)
	n, err := p.form(0)
	if err != nil {
		return err
	}
	if end, err := p.atEnd(); err != nil {
		return err
	} else if !end {
		return history.Errorf(line, "expected one op map on the line, found more")
	}
	ev, err := ednEvent(n)
	if err == nil {
		*e = ev
	}
	return err
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// AppendEventLine appends e as one line of JSON Lines, for a writer that
// emits a history as it runs (histcheck sim live): its process, type, f,
// key, value, time and index. Values are integers, nil or strings.
func AppendEventLine(b []byte, e *history.Event) []byte {
	b = append(b, `{"process":`...)
	if isDecimal(e.Process) {
		b = append(b, e.Process...) // Jepsen's processes are integers
	} else {
		b = strconv.AppendQuote(b, e.Process)
	}
	b = append(b, `,"type":"`...)
	b = append(b, e.Type.String()...)
	b = append(b, `","f":`...)
	b = strconv.AppendQuote(b, e.F)
	if !e.Key.IsNone() {
		b = append(b, `,"key":`...)
		b = appendScalar(b, e.Key)
	}
	b = append(b, `,"value":`...)
	b = appendScalar(b, e.Value)
	if e.HasTime {
		b = append(b, `,"time":`...)
		b = strconv.AppendInt(b, e.Time, 10)
	}
	if e.HasIdx {
		b = append(b, `,"index":`...)
		b = strconv.AppendInt(b, e.Index, 10)
	}
	return append(b, "}\n"...)
}

func appendScalar(b []byte, v history.Value) []byte {
	if n, ok := v.Int(); ok {
		return strconv.AppendInt(b, n, 10)
	}
	if s, ok := v.Str(); ok {
		return strconv.AppendQuote(b, s)
	}
	return append(b, "null"...)
}

// isDecimal reports whether s is a plain non-negative integer that a
// reader gives back as the same name ("0", "17"; not "007").
func isDecimal(s string) bool {
	if s == "" || len(s) > 18 || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
