package format

import (
	"bytes"
	"regexp"
	"strings"
)

// sniffReference is how formats were told by content before each format
// sniffed for itself: one decision over all of them. Detection must agree
// with it.
func sniffReference(src []byte) string {
	head := src[:min(len(src), sniffLimit)]
	if logMarker.Match(head) {
		return JepsenLog
	}
	if f := sniffResearchReference(head); f != "" {
		return f
	}
	if dbcopReference(head) {
		return DBCop
	}
	// Jepsen's history.txt, added after the registry: its first line is
	// process, :type, f and value, tab-separated.
	line, _, _ := bytes.Cut(bytes.TrimLeft(head, "\r\n"), []byte("\n"))
	if txtLine.Match(bytes.TrimSuffix(line, []byte("\r"))) {
		return JepsenTxt
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
	case '(', '^': // a list, or reader metadata before a form
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

// The research checkers' line formats, added after the registry: their
// first lines (up to 4 or 8, not counting blank ones or a last one the
// head cuts short) are all in the format.
var (
	plumeLineRe = regexp.MustCompile(`^[rw]\((\d+),(\d+),(\d+),(\d+|-1)\)$`)
	awditLineRe = regexp.MustCompile(`^[rw][ \t]+\d+[ \t]+\d+$`)
	awditSepRe  = regexp.MustCompile(`^(-+|=+)$`)
)

// sniffResearchReference tells plume and awdit-test input, or "".
func sniffResearchReference(head []byte) string {
	lines := strings.Split(string(head), "\n")
	cut := !strings.HasSuffix(string(head), "\n")
	isLast := func(i int) bool { return cut && i == len(lines)-1 }
	plume, bad := 0, false
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if plume == 4 || (isLast(i) && plume > 0) {
			break
		}
		if !plumeLineRe.MatchString(l) {
			bad = true
			break
		}
		plume++
	}
	if !bad && plume > 0 {
		return Plume
	}
	ops, seen := 0, 0
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if seen == 8 || (isLast(i) && seen > 0) {
			break
		}
		seen++
		if awditSepRe.MatchString(l) {
			continue
		}
		if !awditLineRe.MatchString(l) {
			return ""
		}
		ops++
	}
	if ops > 0 {
		return AWDITTest
	}
	return ""
}

// dbcopReference tells dbcop's history JSON, added after the registry:
// with JSON's whitespace taken out, it starts as the generator's wrapper
// ({"params": …, with "data" in the first 4 KiB) or as an array of
// sessions of transactions with events ([[{"events": …, or [[] with
// "events" in the first 4 KiB), its sessions empty included.
func dbcopReference(head []byte) bool {
	head = head[:min(len(head), 4096)]
	compact := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
			return -1
		}
		return r
	}, string(head))
	switch {
	case strings.HasPrefix(compact, `{"params":`):
		return strings.Contains(string(head), `"data"`)
	case strings.HasPrefix(compact, `[[{"events":`):
		return true
	case strings.HasPrefix(compact, `[[]`):
		return strings.Contains(string(head), `"events"`)
	}
	return false
}
