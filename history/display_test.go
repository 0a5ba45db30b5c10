package history

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// hostile are strings from an input that must not reach a terminal as they
// are.
var hostile = []string{
	"A\nx.json\tlinearizable\ttrue",
	"carriage\rreturn",
	"\x1b[2Jclear",
	"\x1b]0;title\x07",
	"nul\x00byte",
	"c1\u009bcsi",
	"raw\x9bbyte",
	"bidi\u202eevil",
	"zero\u200bwidth",
	"line\u2028sep",
	"bad\xffutf8",
	"del\x7f",
}

// safe reports whether s has no character that could break a line or move
// the cursor.
func safe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return false
		}
	}
	return true
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"A", "A"},
		{"client-1", "client-1"},
		{"née", "née"},
		{"a b", "a b"},
		{"", `""`},
		{`say "hi"`, `"say \"hi\""`},
		{`back\slash`, `back\slash`},
		{"A\nx.json\tlinearizable\ttrue", `"A\nx.json\tlinearizable\ttrue"`},
		{"\x1b[2J", `"\x1b[2J"`},
		{"\x00nil", `"\x00nil"`},
		{"\u009b", `"\u009b"`},
		{"\x9b", `"\x9b"`},
		{"\u202e", `"\u202e"`},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	for _, s := range hostile {
		if got := Quote(s); !safe(got) {
			t.Errorf("Quote(%q) = %q still holds a control character", s, got)
		}
	}
}

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text: A:w(1)", "plain text: A:w(1)"},
		{`keeps "quotes" and \ backslashes`, `keeps "quotes" and \ backslashes`},
		{"A\nx.json\tlinearizable\ttrue", `A\nx.json\tlinearizable\ttrue`},
		{"\x1b[2J", `\x1b[2J`},
		{"a\rb", `a\rb`},
		{"nul\x00", `nul\x00`},
		{"\u009b", `\u009b`},
		{"\x9b", `\x9b`},
		{"\u202e", `\u202e`},
		{"bad\xff", `bad\xff`},
		{"∞ … é", "∞ … é"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	for _, s := range hostile {
		got := Escape(s)
		if !safe(got) || strings.Contains(got, "\n") {
			t.Errorf("Escape(%q) = %q still holds a control character", s, got)
		}
	}
}
