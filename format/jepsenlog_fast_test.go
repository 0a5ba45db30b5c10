package format

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestFastLogLine checks the log line's reader without the regular
// expression against logLine: whenever it reads a line, its groups are
// logLine's; and on the usual shapes it does read it.
func TestFastLogLine(t *testing.T) {
	usual := []string{
		"INFO  jepsen.util - 3\t:invoke\t:read\tnil",
		"12:00:00,000{GMT}\tINFO  jepsen.util - 12\t:ok\t:cas\t[1 2]",
		"INFO jepsen.util - 0 :fail :read :timed-out  ",
		"INFO  jepsen.util - :nemesis\t:info\t:start\t",
		"INFO  jepsen.util - 7 :info :write 4\r",
	}
	for _, l := range usual {
		if _, ok := fastLogLine([]byte(l)); !ok {
			t.Errorf("%q: not read", l)
		}
		agree(t, []byte(l))
	}
	pieces := []string{"INFO", "jepsen.util", "-", "3", ":invoke", ":ok", ":okay", ":read", "nil", "[1 2]",
		" ", "  ", "\t", "\v", "x", "xINFO", "jepsen.utilx", "-1", ":", "é", "\r", "\f"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var b bytes.Buffer
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
			if r.IntN(3) > 0 {
				b.WriteString([]string{" ", "\t", "  "}[r.IntN(3)])
			}
		}
		agree(t, b.Bytes())
	}
}

func agree(t *testing.T, line []byte) {
	t.Helper()
	got, ok := fastLogLine(line)
	if !ok {
		return
	}
	want := logLine.FindSubmatch(line)
	if want == nil {
		t.Fatalf("%q: read as %q, which logLine does not match", line, got)
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%q: group %d is %q, logLine gives %q", line, i, got[i], want[i])
		}
	}
}

// TestLineValue checks the direct reading of a line's usual values against
// the EDN reader: whenever simpleValue or simpleVector reads a text, the
// value is the EDN reader's; and the usual shapes are read directly.
func TestLineValue(t *testing.T) {
	usual := []string{"nil", "0", "-7", "123456789012345678", ":read", ":timed-out", ":cas_op", "[1 2]", "[nil 3]", "[-1 0 5]", "[7]"}
	for _, s := range usual {
		b := []byte(s)
		_, okV := simpleValue(b)
		_, okL := simpleVector(b[min(1, len(b)):max(len(b)-1, 1)])
		if !okV && (s[0] != '[' || !okL) {
			t.Errorf("%q: not read directly", s)
		}
	}
	pieces := []string{"nil", "0", "-", "+", "1", "9", "007", "1234567890", "123456789012345678", ":", "::", "a", "-a", "_", "é",
		"[", "]", " ", "  ", ",", "\"", "#", "/", ".", "e", "N", "M", "true", "x"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		var b bytes.Buffer
		for range 1 + r.IntN(5) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		agreeValue(t, b.Bytes())
	}
	for _, s := range usual {
		agreeValue(t, []byte(s))
	}
}

// agreeValue checks lineValue against the EDN reader on text.
func agreeValue(t *testing.T, text []byte) {
	t.Helper()
	got, err := lineValue(text, 1)
	n, werr := ednScalar(text, 1)
	if (err == nil) != (werr == nil) {
		t.Fatalf("%q: lineValue error %v, EDN reader error %v", text, err, werr)
	}
	if err == nil && got != n.value() {
		t.Fatalf("%q: lineValue %v, EDN reader %v", text, got, n.value())
	}
}
