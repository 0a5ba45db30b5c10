package sim

import (
	"strings"
	"testing"
)

// TestNewScenarioFigures checks that the tables of the scenarios built from
// the chapters' prose carry the figures the chapters give, and that each
// run's verdict is the one its story calls for.
func TestNewScenarioFigures(t *testing.T) {
	tests := []struct {
		name    string
		params  Params
		figures []string
		expect  string
	}{
		{"election", nil, []string{"session timeout 6 s", "| 14 |  | the ensemble ends S1's session (last heartbeat at 8 s)",
			"Two leaders acted from 14.11 s to 20 s."}, "false"},
		{"election", Params{"remedy": "fencing"}, []string{"refused, the storage has accepted token 2", "the storage refused the old leader's 2 jobs"}, "true"},
		{"election", Params{"remedy": "step-down"}, []string{"One leader at a time"}, "true"},
		{"check-then-write", nil, []string{"| 9.9 | A | A asks: is the lease still mine? yes (0.1 s left) |",
			"| 10 |  | A's lease ends |", "A pauses (GC) for 6 s", "| 15.9 | A | A's write of 9 with token 33 reaches the storage: accepted |",
			"Final stock 9"}, "false"},
		{"check-then-write", Params{"remedy": "fencing"}, []string{"| 15.9 | A | A's write of 9 reaches the storage: refused", "Final stock 8"}, "true"},
		{"check-then-write", Params{"remedy": "conditional"}, []string{"refused, the stock is 8, not 10", "Final stock 8"}, "true"},
		{"setnx-expire", nil, []string{"| 1 | A | A crashes before it sends `EXPIRE lock 30`: the key has no expiry |",
			"| 600 | ops | an operator deletes the stuck key: `DEL lock` → 1 |", "B failed 4 times"}, "false"},
		{"setnx-expire", Params{"command": "set-nx-px"}, []string{"| 30 |  | the key expires |",
			"| 35 | B | B: `SET lock B NX PX 30000` → OK, B holds the lock |"}, "true"},
		{"failover", nil, []string{"| 0.5 |  | the primary dies", "| 3 |  | the replica is promoted to primary, without A's key |",
			"Two holders from 3.5 s"}, "false"},
		{"failover", Params{"wait": "on"}, []string{"`WAIT 1 2000` → 0 replicas", "One holder"}, "true"},
	}
	for _, tc := range tests {
		s, ok := Lookup(tc.name)
		if !ok {
			t.Fatalf("no scenario %s", tc.name)
		}
		out, err := s.Run(tc.params)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range tc.figures {
			if !strings.Contains(out.Table, f) {
				t.Errorf("%s %v: table lacks %q:\n%s", tc.name, tc.params, f, out.Table)
			}
		}
		if out.Expect != tc.expect {
			t.Errorf("%s %v: expects %s, want %s", tc.name, tc.params, out.Expect, tc.expect)
		}
		again, _ := s.Run(tc.params)
		if again.Table != out.Table || len(again.History.Ops) != len(out.History.Ops) {
			t.Errorf("%s %v: not deterministic", tc.name, tc.params)
		}
	}
}
