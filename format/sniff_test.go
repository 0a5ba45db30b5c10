package format

import "testing"

// TestSniffShapes checks the byte-by-byte searches of detection against
// the regular expressions they replaced, on the edges of each shape: every
// byte that may come before a keyword's colon, every kind of character
// that may start a notation name, and a notation line broken over lines.
func TestSniffShapes(t *testing.T) {
	keywords := []struct {
		in   string
		want bool
	}{
		{"{:a", true}, {"[:Z", true}, {"(:a", true}, {"[,:a", true}, {"[ :a", true},
		{"[\t:a", true}, {"[\n:a", true}, {"[\r:a", true}, {"[\f:a", true},
		{"[\v:a", false}, {"[x:a", false}, {"[:1", false}, {"[:", false}, {":a", false},
		{"[x :", false}, {`{"a": 1, "b":x}`, false}, {`{"a": 1, :b 2}`, true}, {"{:@", false}, {"{:[", false},
	}
	for _, c := range keywords {
		got, ref := hasEDNKeyword([]byte(c.in)), ednKeywordRe.MatchString(c.in)
		if got != c.want || ref != c.want {
			t.Errorf("keyword in %q: found %v, the expression %v, want %v", c.in, got, ref, c.want)
		}
	}
	lines := []struct {
		in   string
		want bool
	}{
		{"A: w(1) [0, 10]", true}, {"-x: r [", true}, {".a: r [", true}, {"_a: r [", true},
		{"7: r [", true}, {"é: r [", true}, {"٣: r [", true}, {"ℕ: r(x)->1 [", true},
		{" \t\f\rA: r [", true}, {"\n\n  A: w [", true}, {"x\n A\n:\n w\n[", true},
		{"# c\nA: w [", true}, {"  {\nA: r [", true}, {"{A: w [", false}, {"[A: r [", false},
		{"A: 1 [", false}, {"A: w", false}, {"\vA: w [", false}, {"→: w [", false},
		{"{:process 0, :type :invoke}\n{:a 1}", false}, {"", false}, {"\n", false},
	}
	for _, c := range lines {
		got, ref := hasNotationLine([]byte(c.in)), notationLine.MatchString(c.in)
		if got != c.want || ref != c.want {
			t.Errorf("notation line in %q: found %v, the expression %v, want %v", c.in, got, ref, c.want)
		}
	}
}
