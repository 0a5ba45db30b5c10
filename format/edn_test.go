package format

import (
	"bytes"
	"math"
	"reflect"
	"strings"
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
		{"#inst", 1, "a tagged literal needs a value after its tag"},
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

func TestEDNMetadataValues(t *testing.T) {
	s, n := history.StringValue, history.IntValue
	tests := []struct {
		text string
		want history.Value
	}{
		{"^:a 1", n(1)},
		{"^Long 1", n(1)},
		{`^"String" "x"`, s("x")},
		{"^{:tag :x, :line [1 2]} :read", s("read")},
		{"^:a ^:b ^{:c 3} nil", history.NilValue},
		{"^^:a {:m 1} 2", n(2)},
		{"^ :a 1", n(1)},
		{"^:a\n; comment\n#_ 9 ,\n 1", n(1)},
		{"#_ ^:a 9 1", n(1)},
		{"[^:a 1 2 ^{:x [3]} 4]", history.ListValue(n(1), n(2), n(4))},
		{"(^:a 1)", history.ListValue(n(1))},
		{"#{^:a 1 2}", history.SetValue(n(1), n(2))},
		{"^:a [^:b [^:c []]]", history.ListValue(history.ListValue(history.ListValue()))},
		{"{^:k :a ^:v 1}", history.MapValue([]history.Value{s("a")}, []history.Value{n(1)})},
	}
	for _, tc := range tests {
		node, err := ednScalar([]byte(tc.text), 1)
		if err != nil {
			t.Errorf("%q: %v", tc.text, err)
			continue
		}
		if got := node.value(); got != tc.want {
			t.Errorf("%q: got %#v, want %#v", tc.text, got, tc.want)
		}
	}
}

func TestEDNMetadataErrors(t *testing.T) {
	const noMeta = "'^' needs metadata after it: a map, a keyword or a symbol"
	const noForm = "metadata after '^' has no form after it to attach to"
	tests := []struct {
		text string
		line int
		msg  string
	}{
		{"^", 1, noMeta},
		{"^ ; nothing\n", 1, noMeta},
		{"[1 ^]", 1, noMeta},
		{"{:a ^}", 1, noMeta},
		{"^:a", 1, noForm},
		{"^{:a 1}\n", 1, noForm},
		{"[^:a]", 1, noForm},
		{"\n[1 ^:a\n]", 2, noForm},
		{"^:a #_ 1", 1, noForm},
		{"^^:a", 1, noForm},
		{"^1 2", 1, "metadata after '^' must be a map, a keyword or a symbol, got 1"},
		{"^[:a] 2", 1, "metadata after '^' must be a map, a keyword or a symbol, got [a]"},
		{"^{:a 1 2", 1, "unexpected end of input; the '{' opened at line 1 is not closed"},
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
	long := bytes.Repeat([]byte("^:a "), 100000)
	if _, err := ednScalar(append(long, '1'), 1); err != nil {
		t.Errorf("a long chain of metadata: %v", err)
	}
}

// TestEDNMetadataSameHistory reads histories with reader metadata wherever
// a form can stand and checks that each reads as the history without it.
func TestEDNMetadataSameHistory(t *testing.T) {
	const plain = `[{:process 0, :type :invoke, :f :write, :value 1, :index 0}
{:process 1, :type :invoke, :f :read, :value nil, :index 1}
{:process 1, :type :ok, :f :read, :value [1 {:a 2}], :index 2}
{:process 0, :type :info, :f :write, :value 1, :index 3}
{:process :nemesis, :type :info, :f :start, :value nil, :index 4}]`
	const withMeta = `^{:jepsen.history/version 1, :tags [:a "b"]}
^:dynamic [^{:line 1} {:process 0, :type :invoke, :f :write, :value 1, :index 0}
^Op {^:k :process ^:v 1, :type :invoke, :f :read, :value ^:nil nil, :index 1}
{:process 1, :type ^:t :ok, :f :read, :value ^:list [^:x 1 ^{:m #{}} {^:a :a ^:two 2}], :index 2}
^"tag" ^:a ^{:b 1}
{:process 0, :type :info, :f :write, :value 1, :index 3}
#_ ^:gone {:process 9} ^:nemesis {:process :nemesis, :type :info, :f :start, :value nil, :index 4}]`
	const plainStream = `{:process 0, :type :invoke, :f :write, :value 1}
{:process 0, :type :ok, :f :write, :value 1}`
	const metaStream = `^{:seq 0} {:process 0, :type :invoke, :f :write, :value 1}
^{:seq 1}
{:process 0, :type :ok, :f :write, :value ^Long 1}`
	const plainWrapper = `{:model "register", :init 0, :history [{:process 0 :type :invoke :f :read} {:process 0 :type :ok :f :read :value 0}]}`
	const metaWrapper = `^:test {^:k :model "register", :init ^:v 0, :history ^:h [^:op {:process 0 :type :invoke :f :read} {:process 0 :type :ok :f :read :value 0}]}`
	tests := []struct{ name, plain, meta string }{
		{"vector", plain, withMeta},
		{"op maps one after another", plainStream, metaStream},
		{"wrapper", plainWrapper, metaWrapper},
	}
	for _, tc := range tests {
		for _, file := range []string{"h.edn", "h"} { // by extension, and detected
			want, err := Read(file, strings.NewReader(tc.plain), "")
			if err != nil {
				t.Fatalf("%s, %s: without metadata: %v", tc.name, file, err)
			}
			got, err := Read(file, strings.NewReader(tc.meta), "")
			if err != nil {
				t.Errorf("%s, %s: with metadata: %v", tc.name, file, err)
				continue
			}
			if err := history.Equivalent(want, got); err != nil {
				t.Errorf("%s, %s: with metadata reads as another history: %v", tc.name, file, err)
			}
			if len(got.Ops) != len(want.Ops) || got.Ignored != want.Ignored || !reflect.DeepEqual(got.Meta, want.Meta) ||
				!reflect.DeepEqual(got.Warnings, want.Warnings) {
				t.Errorf("%s, %s: got %d ops, %d ignored, meta %v, warnings %q; want %d, %d, %v, %q", tc.name, file,
					len(got.Ops), got.Ignored, got.Meta, got.Warnings, len(want.Ops), want.Ignored, want.Meta, want.Warnings)
			}
		}
	}
}
