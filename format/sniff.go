package format

import (
	"bytes"
	"regexp"
)

var (
	// ednKeywordRe finds an EDN keyword where a map key or value starts.
	ednKeywordRe = regexp.MustCompile(`[{\[(\s,]:[A-Za-z]`)
	notationLine = regexp.MustCompile(`(?m)^\s*[\p{L}\p{N}_.-]+\s*:\s*[\p{L}_][\p{L}\p{N}_-]*\s*(\(.*\))?\s*((->|→)\s*\S+)?\s*\[`)
)

// sniffLimit is how much of the input content detection looks at.
const sniffLimit = 64 << 10

// leadKind is what the comment lines at the start of a head tell.
type leadKind int

const (
	leadNone     leadKind = iota // no verdict: look at the first character
	leadEDN                      // a ; comment: EDN
	leadNotation                 // a # comment followed by a notation line
)

// lead skips the blank and # comment lines at the start of head. It stops
// with a verdict at a ; comment (EDN) or at a # comment line followed by a
// line of the notation; otherwise it returns the text from the first
// character that is not space or comment.
func lead(head []byte) (leadKind, []byte) {
	rest := head
	for len(rest) > 0 {
		rest = bytes.TrimLeft(rest, " \t\r\n\f,")
		if len(rest) > 0 && rest[0] == ';' {
			return leadEDN, rest
		}
		if len(rest) > 0 && rest[0] == '#' && (len(rest) == 1 || rest[1] != '{' && rest[1] != '_') {
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				rest = nil
			} else {
				rest = rest[i+1:]
			}
			if notationLine.Match(rest) {
				return leadNotation, rest
			}
			continue
		}
		break
	}
	return leadNone, rest
}

// firstByte is the first byte of b, or 0.
func firstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
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
