package format

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/histcheck/histcheck/history"
)

// notationFormat is the textbook notation, A: w(1) [0, 10].
var notationFormat = Format{
	Name:       Notation,
	Summary:    "the textbook notation, A: w(1) [0, 10]",
	Extensions: []string{".hist"},
	Sniff:      sniffNotation,
	Read:       readNotationOrDBCop,
}

// readNotationOrDBCop reads the notation or, when the content is dbcop's
// compact text (which shares the .hist extension), that.
func readNotationOrDBCop(r io.Reader) (Result, error) {
	if head := peekHead(r); head != nil && sniffDBCopHist(head) > 0 {
		h, err := readDBCopHist(r)
		return Result{History: h, Format: DBCopHist}, err
	}
	return streamed(readNotation)(r)
}

// sniffNotation claims input whose # comments are followed by a notation
// line, surely; otherwise input with a notation line anywhere, when no
// other format claims it.
func sniffNotation(head []byte) int {
	if k, _ := lead(head); k == leadNotation {
		return 4
	}
	if hasNotationLine(head) {
		return 1
	}
	return 0
}

// headerKeys are the settings a notation file may give before its first
// operation.
var headerKeys = map[string]bool{"model": true, "init": true, "nil_read": true, "time_unit": true}

// notationScanner reads the pieces of one notation line.
type notationScanner struct {
	s    string
	pos  int
	line int
}

func (sc *notationScanner) errorf(format string, args ...any) *history.InputError {
	return history.Errorf(sc.line, format, args...)
}

func (sc *notationScanner) space() {
	for sc.pos < len(sc.s) {
		r, n := utf8.DecodeRuneInString(sc.s[sc.pos:])
		if !unicode.IsSpace(r) {
			return
		}
		sc.pos += n
	}
}

// eat consumes lit (after spaces) if it comes next.
func (sc *notationScanner) eat(lit string) bool {
	sc.space()
	if strings.HasPrefix(sc.s[sc.pos:], lit) {
		sc.pos += len(lit)
		return true
	}
	return false
}

func (sc *notationScanner) done() bool {
	sc.space()
	return sc.pos >= len(sc.s)
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '+'
}

// word reads letters, digits, '_', '.', '+' and inner '-' (but not the '-'
// of an arrow "->"), with a leading '-' for negative numbers.
func (sc *notationScanner) word() string {
	sc.space()
	start := sc.pos
	for sc.pos < len(sc.s) {
		r, n := utf8.DecodeRuneInString(sc.s[sc.pos:])
		if r == '-' && sc.pos+1 < len(sc.s) && sc.s[sc.pos+1] != '>' {
			sc.pos += n
			continue
		}
		if !isWordRune(r) {
			break
		}
		sc.pos += n
	}
	return sc.s[start:sc.pos]
}

// value reads one value: an integer, a decimal, nil or ? (nil), true or
// false, a quoted string, or a bare word (a string).
func (sc *notationScanner) value() (history.Value, error) {
	sc.space()
	if sc.pos >= len(sc.s) {
		return history.Value{}, sc.errorf("expected a value at the end of the line")
	}
	switch c := sc.s[sc.pos]; c {
	case '"':
		end := sc.pos + 1
		for end < len(sc.s) && sc.s[end] != '"' {
			if sc.s[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(sc.s) {
			return history.Value{}, sc.errorf("unterminated string")
		}
		s, err := strconv.Unquote(sc.s[sc.pos : end+1])
		if err != nil {
			return history.Value{}, sc.errorf("bad string %s", sc.s[sc.pos:end+1])
		}
		sc.pos = end + 1
		return history.StringValue(s), nil
	case '?':
		sc.pos++
		return history.NilValue, nil
	}
	w := sc.word()
	if w == "" {
		r, _ := utf8.DecodeRuneInString(sc.s[sc.pos:])
		return history.Value{}, sc.errorf("expected a value, found %q", r)
	}
	v, err := wordValue(w)
	if err != nil {
		return v, sc.errorf("%v", err)
	}
	return v, nil
}

func wordValue(w string) (history.Value, error) {
	switch w {
	case "nil", "null":
		return history.NilValue, nil
	case "true", "false":
		return history.BoolValue(w == "true"), nil
	}
	c := w[0]
	if c >= '0' && c <= '9' || (c == '-' || c == '+') && len(w) > 1 && w[1] >= '0' && w[1] <= '9' {
		if v, ok := history.BigIntValue(strings.TrimPrefix(w, "+")); ok {
			return v, nil
		}
		f, err := strconv.ParseFloat(w, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return history.Value{}, fmt.Errorf("bad number %s", w)
		}
		return history.FloatValue(f), nil
	}
	return history.StringValue(w), nil
}

// time reads an integer time; unknown reports "?", "inf" or "∞".
func (sc *notationScanner) time(what string) (t int64, unknown bool, err error) {
	sc.space()
	if sc.eat("?") || sc.eat("∞") {
		return 0, true, nil
	}
	w := sc.word()
	if w == "inf" {
		return 0, true, nil
	}
	n, perr := strconv.ParseInt(w, 10, 64)
	if perr != nil || n == math.MaxInt64 {
		if w == "" {
			return 0, false, sc.errorf("expected the %s time", what)
		}
		if errors.Is(perr, strconv.ErrRange) || n == math.MaxInt64 {
			return 0, false, sc.errorf("%s time %s does not fit in a 64-bit integer", what, w)
		}
		return 0, false, sc.errorf("%s time must be an integer, got %s", what, w)
	}
	return n, false, nil
}

// stripComment cuts a '#' comment that is outside quotes.
func stripComment(s string) string {
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if inQuote {
				i++
			}
		case '"':
			inQuote = !inQuote
		case '#':
			if !inQuote {
				return s[:i]
			}
		}
	}
	return s
}

// textbookRegister reports whether a notation file's model (None when the
// header names none) is one of the textbook's registers, whose initial value
// is 0 unless stated; other models (queues, sets, locks) keep their own.
func textbookRegister(model history.Value) bool {
	name, _ := model.Str()
	switch {
	case model.IsNone(), name == "register", name == "cas-register", name == "kv":
		return true
	}
	return false
}

// readNotation reads the textbook notation described in the package
// documentation.
func readNotation(r io.Reader) (*history.History, error) {
	lr := newLineReader(r, RecordLimit)
	meta := map[string]history.Value{}
	var ops []history.Op
	for {
		b, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line := lr.line
		raw := string(b)
		if !utf8.ValidString(raw) {
			return nil, history.Errorf(line, "invalid UTF-8")
		}
		text := stripComment(raw)
		if strings.TrimSpace(text) == "" {
			continue
		}
		ns := &notationScanner{s: text, line: line}
		name := ns.word()
		if name == "" || !ns.eat(":") {
			return nil, ns.errorf("expected an operation such as A: w(1) [0, 10], got %q", strings.TrimSpace(raw))
		}
		if len(ops) == 0 && headerKeys[name] {
			v, err := ns.value()
			if err != nil {
				return nil, err
			}
			if !ns.done() {
				return nil, ns.errorf("unexpected %q after the %s setting", ns.s[ns.pos:], name)
			}
			meta[name] = v
			continue
		}
		op, err := notationOp(ns, name, len(ops))
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	if len(ops) == 0 {
		return nil, history.Errorf(0, "no operations; expected lines such as A: w(1) [0, 10]")
	}
	if _, ok := meta["init"]; !ok && textbookRegister(meta["model"]) {
		// The textbook's registers start at 0.
		meta["init"] = history.IntValue(0)
	}
	h, err := history.FromOps(ops)
	if err != nil {
		return nil, err
	}
	h.Meta = meta
	return h, nil
}

// notationOp reads the rest of an operation line after "A:": the
// operation, its arguments and result, its interval and its status.
func notationOp(ns *notationScanner, client string, index int) (history.Op, error) {
	op := history.Op{Client: client, Index: int64(index), Status: history.OK, Line: ns.line}
	f := ns.word()
	if f == "" {
		return op, ns.errorf("expected an operation name after %q", client+":")
	}
	op.F = shortF(f)
	args, err := ns.args(f)
	if err != nil {
		return op, err
	}
	result, hasResult, err := ns.result()
	if err != nil {
		return op, err
	}
	if err := ns.operands(&op, f, args, result, hasResult); err != nil {
		return op, err
	}
	unknown, err := ns.interval(&op)
	if err != nil {
		return op, err
	}
	return op, ns.status(&op, unknown)
}

// args reads the arguments of the operation f in parentheses, if any.
func (sc *notationScanner) args(f string) ([]history.Value, error) {
	var args []history.Value
	if !sc.eat("(") || sc.eat(")") {
		return args, nil
	}
	for {
		v, err := sc.value()
		if err != nil {
			return nil, err
		}
		args = append(args, v)
		if sc.eat(")") {
			return args, nil
		}
		if !sc.eat(",") {
			return nil, sc.errorf("expected ',' or ')' in the arguments of %s", f)
		}
	}
}

// result reads the result after an arrow, "-> v" or "→ v", if any.
func (sc *notationScanner) result() (v history.Value, has bool, err error) {
	if !sc.eat("->") && !sc.eat("→") {
		return history.Value{}, false, nil
	}
	v, err = sc.value()
	return v, err == nil, err
}

// operands sets op's key and value from the arguments and result of the
// operation f as written: cas(from, to) or cas(key, from, to); f(key) ->
// result or f -> result; f(value), f(key, value) or f.
func (sc *notationScanner) operands(op *history.Op, f string, args []history.Value, result history.Value, hasResult bool) error {
	switch {
	case op.F == "cas":
		if hasResult {
			return sc.errorf("cas takes (from, to) and has no result")
		}
		switch len(args) {
		case 2:
			op.Value = history.ListValue(args...)
		case 3:
			op.Key, op.Value = args[0], history.ListValue(args[1:]...)
		default:
			return sc.errorf("cas takes (from, to) or (key, from, to), got %s", count(len(args), "argument"))
		}
	case hasResult:
		switch len(args) {
		case 0:
			op.Value = result
		case 1:
			op.Key, op.Value = args[0], result
		default:
			return sc.errorf("%s(…) -> result takes at most one argument, the key; got %d", f, len(args))
		}
	default:
		switch len(args) {
		case 0:
			op.Value = history.NilValue
		case 1:
			op.Value = args[0]
		case 2:
			op.Key, op.Value = args[0], args[1]
		default:
			return sc.errorf("%s takes (value) or (key, value), got %s", f, count(len(args), "argument"))
		}
	}
	return nil
}

// interval reads the interval [call, return] into op; unknown reports a
// return time written as unknown, which makes the status info.
func (sc *notationScanner) interval(op *history.Op) (unknown bool, err error) {
	if !sc.eat("[") {
		return false, sc.errorf("expected the interval [call, return] after the operation")
	}
	call, unknown, err := sc.time("call")
	if err != nil {
		return false, err
	}
	if unknown {
		return false, sc.errorf("the call time must be known")
	}
	if !sc.eat(",") {
		return false, sc.errorf("expected ',' between the call and return times")
	}
	ret, unknown, err := sc.time("return")
	if err != nil {
		return false, err
	}
	if !sc.eat("]") {
		return false, sc.errorf("expected ']' to close the interval")
	}
	op.Call, op.Return = call, ret
	if unknown {
		op.Status, op.Return = history.Info, history.Infinity
	}
	return unknown, nil
}

// status reads the status that may end the line (ok when none is given);
// an operation whose return time is unknown can only be info.
func (sc *notationScanner) status(op *history.Op, unknown bool) error {
	if sc.done() {
		return nil
	}
	w := sc.word()
	st, ok := history.ParseType(w)
	if !ok || st == history.Invoke {
		return sc.errorf("expected ok, fail or info after the interval, got %q", strings.TrimSpace(sc.s[sc.pos-len(w):]))
	}
	if unknown && st != history.Info {
		return sc.errorf("an operation with unknown return time has status info, not %s", st)
	}
	if !sc.done() {
		return sc.errorf("unexpected %q at the end of the line", strings.TrimSpace(sc.s[sc.pos:]))
	}
	op.Status = st
	if st == history.Info {
		op.Return = history.Infinity
	}
	return nil
}

// count writes "1 argument", "3 arguments".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
