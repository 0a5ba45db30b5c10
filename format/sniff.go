package format

import (
	"bytes"
	"regexp"
	"sync"
	"unicode"
	"unicode/utf8"
)

// notationLineRe matches a line of the notation at the start of its input,
// A: w(1) [ up to the bracket of its times. It is compiled on first use:
// most inputs never reach it (see hasNotationLine).
var notationLineRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*[\p{L}\p{N}_.-]+\s*:\s*[\p{L}_][\p{L}\p{N}_-]*\s*(\(.*\))?\s*((->|→)\s*\S+)?\s*\[`)
})

// hasNotationLine reports whether a line of b starts a notation line, as
// the multi-line form of notationLineRe, (?m)^\s*..., would find anywhere
// in b. That search ran over all of b for every input; here only a line
// whose first character after spaces can start a name is tried, anchored.
// A match that begins with blank lines (\s takes newlines) is also a
// match from the line where its name starts, so trying those lines alone
// finds every match.
func hasNotationLine(b []byte) bool {
	for rest := b; ; {
		if nameStart(rest) >= 0 && notationLineRe().Match(rest) {
			return true
		}
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return false
		}
		rest = rest[nl+1:]
	}
}

// nameStart is the offset of line's first byte after \s other than a
// newline, when that byte begins a character of a notation name
// ([\p{L}\p{N}_.-]); else -1.
func nameStart(line []byte) int {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\f') {
		i++
	}
	if i == len(line) {
		return -1
	}
	c := line[i]
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '-':
		return i
	case c < utf8.RuneSelf:
		return -1
	}
	if r, _ := utf8.DecodeRune(line[i:]); unicode.IsLetter(r) || unicode.IsNumber(r) {
		return i
	}
	return -1
}

// hasEDNKeyword reports whether b holds an EDN keyword where a map key or
// value starts: one of {[( , or \s, then a colon and an ASCII letter, as
// the regular expression [{\[(\s,]:[A-Za-z] finds, without running one.
func hasEDNKeyword(b []byte) bool {
	for i := 1; i+1 < len(b); i++ {
		j := bytes.IndexByte(b[i:len(b)-1], ':')
		if j < 0 {
			return false
		}
		i += j
		switch b[i-1] {
		case '{', '[', '(', ',', ' ', '\t', '\n', '\f', '\r':
			if c := b[i+1] | 0x20; c >= 'a' && c <= 'z' {
				return true
			}
		}
	}
	return false
}

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
			if hasNotationLine(rest) {
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
