package history

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text that comes from the input (process names, operation names, values,
// keys, file names) is shown to people through Quote or Escape, so that it
// can neither break a line of the report nor reach the terminal as a control
// sequence: newlines, tabs, carriage returns, escape sequences (ESC, the C1
// controls 0x80–0x9f), other control characters, invalid UTF-8 and the
// Unicode format characters (bidirectional overrides, zero-width marks) are
// written as Go escapes. These two functions are the one place that
// decides what is safe to print; every text path uses them.

// Quote returns s as text output shows a name or string from the input:
// unchanged when every character prints as itself and none is a double
// quote, else Go-quoted, "A\nB". The empty string is "". A bare name never
// holds a double quote, so a quoted one cannot be mistaken for it.
func Quote(s string) string {
	if s != "" && plain(s) {
		return s
	}
	return strconv.Quote(s)
}

// plain reports whether s may be shown bare.
func plain(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r == '"' || !strconv.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}

// Escape returns s with every character that does not print as itself
// written as a Go escape (\n, \t, \x1b, \u202e; an invalid byte as \xNN),
// and everything else (quotes and backslashes included) left as is. It is
// for whole lines of prose and messages that may carry input text, where
// Quote would quote the whole line: the result is one line without control
// characters.
func Escape(s string) string {
	if escaped(s) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			const hex = "0123456789abcdef"
			sb.WriteString(`\x`)
			sb.WriteByte(hex[s[i]>>4])
			sb.WriteByte(hex[s[i]&0xf])
		case printable(r):
			sb.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRune(r)
			sb.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return sb.String()
}

// escaped reports whether Escape would leave s as is.
func escaped(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !printable(r) {
			return false
		}
		i += n
	}
	return true
}

// printable reports whether r prints as itself: a letter, mark, number,
// punctuation, symbol or the ASCII space (strconv.IsPrint). Quotes and
// backslashes count as printable here; Quote handles them itself.
func printable(r rune) bool {
	return r == '\'' || r == '"' || r == '\\' || strconv.IsPrint(r)
}
