package format

import "bytes"

// sniffReference is how formats were told by content before each format
// sniffed for itself: one decision over all of them. Detection must agree
// with it.
func sniffReference(src []byte) string {
	head := src[:min(len(src), sniffLimit)]
	if logMarker.Match(head) {
		return JepsenLog
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
