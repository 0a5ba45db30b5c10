package format

import (
	"math"
	"testing"

	"github.com/histcheck/histcheck/history"
)

func TestEDNValues(t *testing.T) {
	s, n := history.StringValue, history.IntValue
	big, _ := history.BigIntValue("12345678901234567890")
	tests := []struct {
		text string
		want history.Value
	}{
		{"nil", history.NilValue},
		{"true", history.BoolValue(true)},
		{"-42", n(-42)},
		{"+7", n(7)},
		{"12345678901234567890", big},
		{"12345678901234567890N", big},
		{"3N", n(3)},
		{"2.0", n(2)},
		{"2.5", history.FloatValue(2.5)},
		{"1e3", n(1000)},
		{"1.5M", history.FloatValue(1.5)},
		{"##Inf", history.FloatValue(math.Inf(1))},
		{":read", s("read")},
		{":jepsen.nemesis/start", s("jepsen.nemesis/start")},
		{"some-symbol", s("some-symbol")},
		{`"a\tb\n\"c\" \\ \u00e9"`, s("a\tb\n\"c\" \\ é")},
		{`\a`, s("a")},
		{`\newline`, s("\n")},
		{`\u0041`, s("A")},
		{"[1 2 3]", history.ListValue(n(1), n(2), n(3))},
		{"(1, 2)", history.ListValue(n(1), n(2))},
		{"[]", history.ListValue()},
		{"#{3 1 3}", history.SetValue(n(1), n(3))},
		{"{:a 1, \"b\" [nil]}", history.MapValue([]history.Value{s("a"), s("b")}, []history.Value{n(1), history.ListValue(history.NilValue)})},
		{"[1 #_ 2 3 ; comment\n 4]", history.ListValue(n(1), n(3), n(4))},
		{"[[[[]]]]", history.ListValue(history.ListValue(history.ListValue(history.ListValue())))},
	}
	for _, tc := range tests {
		node, err := ednScalar([]byte(tc.text), 1)
		if err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		if got := node.value(); got != tc.want {
			t.Errorf("%s: got %#v, want %#v", tc.text, got, tc.want)
		}
	}
}

func TestEDNErrors(t *testing.T) {
	tests := []struct {
		text string
		line int
		msg  string
	}{
		{"[1 2", 1, "unexpected end of input; the '[' opened at line 1 is not closed"},
		{"\n\n(1 ]", 3, "unexpected ']'; expected ')' to close the '(' opened at line 3"},
		{"}", 1, "unexpected '}' with no open collection"},
		{"\"abc\n\ndef", 1, "unterminated string starting at line 1"},
		{`"\q"`, 1, `unknown escape \q in string`},
		{"1/2", 1, "ratio 1/2 is not supported; write a decimal number"},
		{"#inst \"2020\"", 1, "tagged literal #inst is not supported; write the plain value"},
		{"##Foo", 1, "unknown symbolic value ##Foo"},
		{"12abc", 1, "bad number 12abc"},
		{"0x10", 1, "bad number 0x10"},
		{"1e999", 1, "bad number 1e999"},
		{":", 1, "a keyword needs a name after ':'"},
		{`\bogus`, 1, `unknown character literal \bogus`},
		{"\\\n0", 1, `unknown character literal "\\\n0"`},
		{"\"\\\n", 1, `unknown escape "\\\n" in string`},
		{`"\q"`, 1, `unknown escape \q in string`},
		{"{:a}", 1, "map has a key without a value"},
		{"1 2", 1, `unexpected text after the value: "2"`},
	}
	for _, tc := range tests {
		_, err := ednScalar([]byte(tc.text), 1)
		ie, ok := err.(*history.InputError)
		if !ok {
			t.Errorf("%q: got %v, want an *InputError", tc.text, err)
			continue
		}
		if ie.Line != tc.line || ie.Msg != tc.msg {
			t.Errorf("%q: got line %d %q, want line %d %q", tc.text, ie.Line, ie.Msg, tc.line, tc.msg)
		}
	}
	deep := make([]byte, 0, 2*maxEDNDepth+10)
	for i := 0; i < maxEDNDepth+5; i++ {
		deep = append(deep, '[')
	}
	if _, err := ednScalar(deep, 1); err == nil {
		t.Error("deeply nested input accepted")
	}
}
