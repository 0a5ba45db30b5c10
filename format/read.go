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

// ReadFile reads a history from a file ("-" is standard input); forced
// names the format, or "" to detect it.
func ReadFile(path string, forced string) (*history.History, error) {
	if path == "-" {
		return Read("<stdin>", os.Stdin, forced)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &history.InputError{File: path, Msg: fmt.Sprintf("cannot open: %v", errors.Unwrap(err))}
	}
	defer f.Close()
	return Read(path, f, forced)
}

// Read reads a history from r. name is the file name, for messages and for
// detecting the format by extension; forced names the format, or "" to
// detect it from the extension and the content. Errors are
// *history.InputError naming the file and, wherever possible, the line.
func Read(name string, r io.Reader, forced string) (*history.History, error) {
	h, err := read(name, r, forced)
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

func read(name string, r io.Reader, forced string) (*history.History, error) {
	br := bufio.NewReader(r)
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	r = br
	switch forced {
	case JSONL:
		return readJSONL(r)
	case JepsenLog:
		return readJepsenLog(r)
	case Notation:
		return readNotation(r)
	case "", JSON, Ops, Tuples, EDN:
	default:
		return nil, fmt.Errorf("unknown format %q; known formats: %s", forced, strings.Join(Formats(), ", "))
	}
	if forced == "" {
		switch strings.ToLower(filepath.Ext(name)) {
		case ".jsonl", ".ndjson":
			return readJSONL(r)
		case ".log":
			return readJepsenLog(r)
		case ".hist":
			return readNotation(r)
		case ".edn":
			forced = EDN
		}
	}
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading: %w", err)
	}
	if err := checkUTF8(src); err != nil {
		return nil, err
	}
	if forced == "" {
		if strings.ToLower(filepath.Ext(name)) == ".json" {
			forced = JSON
		} else {
			forced = sniff(src)
		}
	}
	switch forced {
	case JSON:
		return readJSON(src, formAuto)
	case Ops:
		return readJSON(src, formOps)
	case Tuples:
		return readJSON(src, formTuples)
	case EDN:
		return readEDN(src)
	case JSONL:
		return readJSONL(bytes.NewReader(src))
	case JepsenLog:
		return readJepsenLog(bytes.NewReader(src))
	case Notation:
		return readNotation(bytes.NewReader(src))
	}
	return nil, history.Errorf(0, "cannot tell the format of the input; name it with one of: %s", strings.Join(Formats(), ", "))
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

// countJSONValues counts top-level JSON values on the first lines, up to two.
func countJSONValues(src []byte) int {
	sc := bufio.NewScanner(bytes.NewReader(src))
	n := 0
	for sc.Scan() && n < 2 {
		if t := bytes.TrimSpace(sc.Bytes()); len(t) > 0 && t[0] == '{' && bytes.HasSuffix(t, []byte("}")) {
			n++
		} else if len(t) > 0 {
			return n
		}
	}
	return n
}
