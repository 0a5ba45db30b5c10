package jepsen_test

import (
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
)

// TestSet judges the final read as Jepsen's set checker does.
func TestSet(t *testing.T) {
	tests := []struct {
		name                                        string
		events                                      []string
		valid                                       checker.Verdict
		attempts, acked, ok, lost, unexp, recovered string
	}{
		{"every add read", []string{"0 invoke add 0", "0 ok add 0", "0 invoke add 1", "0 ok add 1",
			"0 invoke read", "0 ok read [0 1]"}, checker.True, "0 1", "0 1", "0 1", "", "", ""},
		{"lost", []string{"0 invoke add 0", "0 ok add 0", "0 invoke add 1", "0 ok add 1",
			"0 invoke read", "0 ok read [1]"}, checker.False, "0 1", "0 1", "1", "0", "", ""},
		{"unexpected", []string{"0 invoke add 0", "0 ok add 0", "0 invoke read", "0 ok read #{0 7}"},
			checker.False, "0", "0", "0", "", "7", ""},
		{"recovered: crashed and failed adds read", []string{"0 invoke add 0", "0 info add 0",
			"1 invoke add 1", "1 fail add 1", "2 invoke read", "2 ok read [0 1]"},
			checker.True, "0 1", "", "0 1", "", "", "0 1"},
		{"crashed add not read is not lost", []string{"0 invoke add 0", "0 info add 0",
			"1 invoke read", "1 ok read []"}, checker.True, "0", "", "", "", "", ""},
		{"the last read to complete is final", []string{"0 invoke add 0", "0 ok add 0",
			"1 invoke read", "2 invoke read", "2 ok read [0]", "1 ok read []"},
			checker.False, "0", "0", "", "0", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, jepsen.Set, edn(t, tt.events...), nil)
			s := res.Jepsen.Set
			got := []string{vals(s.Attempts), vals(s.Acknowledged), vals(s.OK), vals(s.Lost), vals(s.Unexpected), vals(s.Recovered)}
			want := []string{tt.attempts, tt.acked, tt.ok, tt.lost, tt.unexp, tt.recovered}
			if res.Valid != tt.valid {
				t.Errorf("valid %v, want %v", res.Valid, tt.valid)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("attempts, acknowledged, ok, lost, unexpected, recovered = %q, want %q", got, want)
					break
				}
			}
		})
	}
}

// TestSetNeverRead: without a read the verdict is unknown.
func TestSetNeverRead(t *testing.T) {
	for _, events := range [][]string{
		{"0 invoke add 0", "0 ok add 0"},
		{"0 invoke add 0", "0 ok add 0", "0 invoke read", "0 info read"},
		{"0 invoke add 0", "0 ok add 0", "0 invoke read", "0 ok read nil"},
	} {
		res := run(t, jepsen.Set, edn(t, events...), nil)
		if res.Valid != checker.Unknown {
			t.Errorf("%v: got %v, want unknown", events, res.Valid)
		}
	}
}

func TestIntervalSet(t *testing.T) {
	h := edn(t, "0 invoke read", "0 ok read [5 1 2 3 9 8 :x]")
	if got, want := jepsen.IntervalSet(h.Ops[0].Value.Elems()[:6]), "#{1..3 5 8..9}"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := jepsen.IntervalSet(nil), "#{}"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
