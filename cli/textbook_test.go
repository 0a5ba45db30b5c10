package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTextbookFilesSelfDescribing checks the textbook histories H1–H3 in
// every JSON form without flags: each file carries (or, for tuples, implies)
// the initial value 0, so the verdicts are the chapter's.
func TestTextbookFilesSelfDescribing(t *testing.T) {
	dir := filepath.Join("..", "testdata", "histories", "textbook", "json")
	want := map[string][2]string{ // linearizable, sequential
		"h1": {"true", "true"},
		"h2": {"false", "true"},
		"h3": {"false", "false"},
	}
	for name, w := range want {
		for _, form := range []string{"ops", "tuples"} {
			file := filepath.Join(dir, name+"-"+form+".json")
			code, out, errs := run(t, nil, "check", "-c", "linearizable,sequential", file)
			wantCode := ExitOK
			if w[0] == "false" || w[1] == "false" {
				wantCode = ExitInvalid
			}
			for i, c := range []string{"linearizable", "sequential"} {
				line := file + "\t" + c + "\t" + w[i] + "\n"
				if !strings.Contains(out, line) {
					t.Errorf("%s: no line %q:\n%s%s", file, line, out, errs)
				}
			}
			if code != wantCode {
				t.Errorf("%s: exit %d, want %d", file, code, wantCode)
			}
		}
	}
}
