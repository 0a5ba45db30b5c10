package format

import (
	"bytes"
	"strings"
	"testing"
)

// TestWriteRefusesTimesBeforeZero checks that a history whose intervals
// start before 0 (the notation allows them) is refused by every writer,
// since events with negative times cannot be read back, and that one that
// starts at 0 is written and reads back.
func TestWriteRefusesTimesBeforeZero(t *testing.T) {
	for _, tc := range []struct {
		notation string
		refused  bool
	}{
		{"A: w(1) [-5, 0]\nB: r(1) [2, 4]", true},
		{"A: w(1) [0, 3]\nB: r(1) [-2, 4]", true},
		{"A: w(1) [0, 3]\nB: r(1) [2, 4]", false},
	} {
		h, err := Read("h.hist", strings.NewReader(tc.notation), Notation)
		if err != nil {
			t.Fatal(err)
		}
		for _, to := range Writable() {
			if f, _ := Lookup(to); f.Transactions {
				continue // holds transactions only, and no times
			}
			var buf bytes.Buffer
			err := Write(&buf, h, to)
			if tc.refused {
				if err == nil || !strings.Contains(err.Error(), "times before 0") {
					t.Errorf("%q as %s: error %v, want a refusal of times before 0", tc.notation, to, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%q as %s: %v", tc.notation, to, err)
			}
			if _, err := Read("out."+to, &buf, to); err != nil {
				t.Errorf("%q as %s: reading back: %v", tc.notation, to, err)
			}
		}
	}
}
