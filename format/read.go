package format

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/histcheck/histcheck/history"
)

// Names of the encodings.
const (
	JSON      = "json"       // Jepsen events as a JSON array (or any JSON form, detected)
	JSONL     = "jsonl"      // Jepsen events, one JSON object per line
	Ops       = "ops"        // operations with call and return, JSON
	Tuples    = "tuples"     // [process, f, value, call, return] tuples, JSON
	EDN       = "edn"        // Jepsen op maps in EDN
	JepsenLog = "jepsen-log" // the history lines of a Jepsen log
	Notation  = "notation"   // the textbook notation, A: w(1) [0, 10]
)

// Formats lists the names Read accepts.
func Formats() []string {
	return []string{JSON, JSONL, Ops, Tuples, EDN, JepsenLog, Notation}
}

// Options say how to read a history.
type Options struct {
	// Format names the encoding, or "" to detect it from the file name's
	// extension and the content.
	Format string
	// Order says how to order the operations of an event history: "events"
	// (their order in the input) or "times" (their recorded times); ""
	// takes the file's own "order" setting, else the order in the input.
	// Operations written with call and return times are always in time
	// order.
	Order string
}

// OrderKey is the setting of a self-describing file that names its order.
const OrderKey = "order"

// ReadFile reads a history from a file ("-" is standard input); forced
// names the format, or "" to detect it.
func ReadFile(path string, forced string) (*history.History, error) {
	return ReadFileWith(path, Options{Format: forced})
}

// ReadFileWith is ReadFile with options.
func ReadFileWith(path string, opts Options) (*history.History, error) {
	if path == "-" {
		return ReadWith("<stdin>", os.Stdin, opts)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &history.InputError{File: path, Msg: fmt.Sprintf("cannot open: %v", errors.Unwrap(err))}
	}
	defer f.Close()
	return ReadWith(path, f, opts)
}

// Read reads a history from r. name is the file name, for messages and for
// detecting the format by extension; forced names the format, or "" to
// detect it from the extension and the content. Errors are
// *history.InputError naming the file and, wherever possible, the line.
func Read(name string, r io.Reader, forced string) (*history.History, error) {
	return ReadWith(name, r, Options{Format: forced})
}

// ReadWith is Read with options.
func ReadWith(name string, r io.Reader, opts Options) (*history.History, error) {
	h, err := read(name, r, opts.Format)
	if err == nil {
		err = order(h, opts.Order)
	}
	if err != nil {
		var ie *history.InputError
		if !errors.As(err, &ie) {
			return nil, &history.InputError{File: name, Msg: err.Error()}
		}
		out := *ie
		out.File = name
		return nil, &out
	}
	return h, nil
}

// order puts an event history in the order asked for, or the file's own.
func order(h *history.History, want string) error {
	if want == "" {
		if v, ok := h.Meta[OrderKey].Str(); ok {
			want = v
		} else if !h.Meta[OrderKey].IsNone() {
			return history.Errorf(0, "the file's order is %s; expected \"events\" or \"times\"", h.Meta[OrderKey])
		}
	}
	if want == "" || h.Order == history.TimeOrder {
		return nil
	}
	o, ok := history.ParseOrdering(want)
	if !ok {
		return fmt.Errorf("unknown order %q; expected events or times", want)
	}
	if o == history.TimeOrder {
		return h.OrderByTimes()
	}
	return nil
}

func read(name string, r io.Reader, forced string) (*history.History, error) {
	br := bufio.NewReaderSize(r, sniffLimit)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	switch forced {
	case "", JSON, Ops, Tuples, EDN, JSONL, JepsenLog, Notation:
	default:
		return nil, fmt.Errorf("unknown format %q; known formats: %s", forced, strings.Join(Formats(), ", "))
	}
	if forced == "" {
		switch strings.ToLower(filepath.Ext(name)) {
		case ".jsonl", ".ndjson":
			forced = JSONL
		case ".log":
			forced = JepsenLog
		case ".hist":
			forced = Notation
		case ".edn":
			forced = EDN
		case ".json":
			forced = JSON
		}
	}
	if forced == "" {
		// Detection looks at the head only, so that line formats are
		// still read as a stream.
		head, err := br.Peek(sniffLimit)
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("reading: %w", err)
		}
		if err := checkUTF8(trimPartialRune(head)); err != nil {
			return nil, err
		}
		forced = sniff(head)
		if forced == "" && len(bytes.TrimSpace(head)) == 0 {
			return nil, history.Errorf(0, "empty input; expected a history")
		}
	}
	switch forced {
	case JSONL:
		return readJSONL(br)
	case JepsenLog:
		return readJepsenLog(br)
	case Notation:
		return readNotation(br)
	case "":
		return nil, history.Errorf(0, "cannot tell the format of the input; name it with one of: %s", strings.Join(Formats(), ", "))
	}
	src, err := io.ReadAll(io.LimitReader(br, DocumentLimit+1))
	if err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	if len(src) > DocumentLimit {
		return nil, history.Errorf(0, "input longer than %d bytes; write a history this long as JSON Lines, which is read as a stream", DocumentLimit)
	}
	if err := checkUTF8(src); err != nil {
		return nil, err
	}
	switch forced {
	case Ops:
		return readJSON(src, formOps)
	case Tuples:
		return readJSON(src, formTuples)
	case EDN:
		return readEDN(src)
	}
	return readJSON(src, formAuto)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of a head
// cut from a longer input.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return b
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// checkUTF8 reports the line of the first invalid UTF-8 sequence.
func checkUTF8(src []byte) error {
	if utf8.Valid(src) {
		return nil
	}
	line := 1
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n <= 1 {
			return history.Errorf(line, "invalid UTF-8 (byte 0x%02x)", src[i])
		}
		if r == '\n' {
			line++
		}
		i += n
	}
	return nil
}

var (
	// ednKeyword finds an EDN keyword where a map key or value starts.
	ednKeywordRe = regexp.MustCompile(`[{\[(\s,]:[A-Za-z]`)
	notationLine = regexp.MustCompile(`(?m)^\s*[\p{L}\p{N}_.-]+\s*:\s*[\p{L}_][\p{L}\p{N}_-]*\s*(\(.*\))?\s*((->|→)\s*\S+)?\s*\[`)
)

// sniffLimit is how much of the input content detection looks at.
const sniffLimit = 64 << 10

// sniff guesses the format from the content, or returns "".
func sniff(src []byte) string {
	head := src[:min(len(src), sniffLimit)]
	if logMarker.Match(head) {
		return JepsenLog
	}
	// The first character that is not space or a comment line.
	first, rest := byte(0), head
	for len(rest) > 0 {
		rest = bytes.TrimLeft(rest, " \t\r\n\f,")
		if len(rest) > 0 && rest[0] == ';' {
			return EDN
		}
		if len(rest) > 0 && rest[0] == '#' && (len(rest) == 1 || rest[1] != '{' && rest[1] != '_') {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				rest = nil
			} else {
				rest = rest[i+1:]
			}
			if notationLine.Match(rest) {
				return Notation
			}
			continue
		}
		break
	}
	if len(rest) > 0 {
		first = rest[0]
	}
	switch first {
	case '(':
		return EDN
	case '[', '{', '#':
		if ednKeywordRe.Match(rest) {
			return EDN
		}
		if first == '#' {
			return EDN
		}
		if first == '{' && countJSONValues(rest) > 1 {
			return JSONL
		}
		return JSON
	}
	if notationLine.Match(head) {
		return Notation
	}
	return ""
}

// countJSONValues counts top-level JSON values on the first lines, up to
// two: a first line holding a whole object, and a next line that starts
// another (the head may cut that one short).
func countJSONValues(src []byte) int {
	n := 0
	for len(src) > 0 && n < 2 {
		i := bytes.IndexByte(src, '\n')
		line := src
		if i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0:
		case t[0] != '{':
			return n
		case n == 1 || bytes.HasSuffix(t, []byte("}")):
			n++
		default:
			return n
		}
	}
	return n
}
