package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
)

// encodeIndented is what JSON wrote before it indented as it wrote:
// json.Encoder's own indentation.
func encodeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// TestIndenterAsEncoder checks that writeIndented writes byte for byte
// what json.Encoder writes with SetIndent: on values whose strings hold
// JSON's own punctuation, escapes and HTML, on empty and nested
// containers, on random nested values, and on a whole report with a core.
func TestIndenterAsEncoder(t *testing.T) {
	values := []any{
		nil, true, 1.5, "", `a "quoted" \ string, with: {braces} [and] brackets\`,
		"<html> & \u2028 \x01 é", []any{}, map[string]any{}, []any{[]any{}, map[string]any{}},
		map[string]any{"a": []any{1, "x,y", map[string]any{"b:": nil, "": []any{}}}, "z": "\\\""},
		[]int{1, 2, 3}, struct{ A, B []string }{B: []string{"]"}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		values = append(values, randomJSON(r, 4))
	}
	hr := checked(t, "h2.hist", "register", textbook(t, "h2"), checkers(register0), checker.Linearizable, checker.Sequential)
	rep := &Report{Histories: []History{hr}}
	rep.Finish()
	values = append(values, rep)
	for _, v := range values {
		var want, got bytes.Buffer
		if err := encodeIndented(&want, v); err != nil {
			t.Fatal(err)
		}
		err := writeIndented(&got, "  ", func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false)
			return enc.Encode(v)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("indented\n%s\nwant\n%s", got.String(), want.String())
		}
	}
	var got bytes.Buffer
	if err := JSON(&got, rep); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := encodeIndented(&want, rep); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() || !strings.Contains(got.String(), "\n      \"results\": [\n") {
		t.Fatalf("JSON wrote\n%s\nwant\n%s", got.String(), want.String())
	}
}

// randomJSON is a random JSON value nested at most depth deep, its
// strings drawn from JSON's punctuation, escapes and quotes.
func randomJSON(r *rand.Rand, depth int) any {
	const pieces = `{}[],:"\ab` + "\n\t\u00e9<&"
	str := func() string {
		var b strings.Builder
		for range r.IntN(6) {
			b.WriteRune([]rune(pieces)[r.IntN(len([]rune(pieces)))])
		}
		return b.String()
	}
	k := r.IntN(6)
	if depth == 0 {
		k = r.IntN(3)
	}
	switch k {
	case 0:
		return str()
	case 1:
		return r.Float64() * 100
	case 2:
		return r.IntN(2) == 0
	case 3:
		return nil
	case 4:
		out := make([]any, r.IntN(4))
		for i := range out {
			out[i] = randomJSON(r, depth-1)
		}
		return out
	default:
		out := make(map[string]any)
		for range r.IntN(4) {
			out[str()] = randomJSON(r, depth-1)
		}
		return out
	}
}
