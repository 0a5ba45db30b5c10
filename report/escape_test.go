package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"github.com/histcheck/histcheck/checker"
)

// TestTextEscapesEverything: whatever a report holds (a file name, keys,
// labels, explanations, a core, reasons, warnings with control
// characters), the text form has one verdict line per result and sends no
// control character to the terminal. Labels are escaped where they are
// rendered; this checks the last guard, in the text writer itself. (A
// newline in an explanation separates its lines, so there it starts an
// indented line, never a verdict line.)
func TestTextEscapesEverything(t *testing.T) {
	const evil = "x\n.json\tlinearizable\ttrue\x1b[2J\r\x00\u009b\u202e\xff"
	op := Op{Process: evil, F: "read", Label: evil + ":r(1)", Call: 1}
	rep := &Report{Histories: []History{{
		File:     evil,
		Warnings: []string{"warning " + evil},
		Results: []Result{
			{Consistency: checker.Linearizable, Valid: checker.False, Violations: []Violation{{
				Ops: []Op{op}, Explanation: "first " + evil + "\nsecond " + evil, Pattern: "stale-read", Key: evil,
				Core: &Core{Ops: []Op{op}, Weakened: []Op{op}, Minimal: true, Key: evil + "2",
					Explanation: "story " + evil + "\n\n- fact " + evil, Timeline: evil + " |=== r(1) ===|\n"},
			}}},
			{Consistency: checker.Sequential, Valid: checker.True, Witness: []Op{op, op}, Dropped: []Op{op}},
			{Consistency: checker.Causal, Valid: checker.Unknown, Reason: "reason " + evil},
			{Consistency: checker.Linearizable, Valid: checker.True, Model: "register", Key: evil},
			{Consistency: checker.Linearizable, Valid: checker.False, Model: "register", Key: []any{evil}},
		},
	}}}
	var buf bytes.Buffer
	if err := WriteText(&buf, rep, TextOptions{Facts: true}); err != nil {
		t.Fatal(err)
	}
	if err := Summary(&buf, &rep.Histories[0]); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	verdicts := 0
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.Contains(l, "\t") {
			verdicts++
			if fields := strings.Split(l, "\t"); len(fields) != 3 || strings.HasPrefix(l, " ") {
				t.Errorf("not a verdict line of three fields: %q", l)
			}
		}
	}
	if verdicts != 4 {
		t.Errorf("%d verdict lines, want 4 (the two per-object results share one):\n%s", verdicts, out)
	}
	for _, r := range out {
		if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == unicode.ReplacementChar) {
			t.Fatalf("character %U reaches the terminal:\n%q", r, out)
		}
	}
	for _, want := range []string{`"x\n.json\tlinearizable\ttrue\x1b[2J\r\x00\u009b\u202e\xff"` + "\tlinearizable\tfalse\n",
		`reason: reason x\n.json\tlinearizable\ttrue\x1b[2J\r\x00\u009b\u202e\xff`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	buf.Reset()
	if err := JUnit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	for _, r := range buf.String() {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
			t.Fatalf("JUnit: character %U reaches the page:\n%s", r, buf.String())
		}
	}
}
