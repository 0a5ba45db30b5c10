package sim

import (
	"github.com/histcheck/histcheck/history"

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
		{"redlock", nil, []string{"at least 3 of the 5 masters"}, "false"},
		{"redlock", Params{"fencing": "on"}, []string{"A writes to the storage with token 1, still believing it holds the lock: refused, the storage has accepted token 2"}, "true"},
		{"redlock", Params{"clock-jump": "on"}, []string{"| 0–4 | C sets the key on M4, M5 (2 of 5): no majority, no lock |",
			"| 4–8 | C releases the keys it did set, on M4, M5 |", "| 1000 | M3's clock jumps 10000 ms forward: A's key there expires early |",
			"B sets the key on M3, M4, M5 (3 of 5)", "A lock needs the key on at least 3 of the 5 masters", "A and B both held the lock from 1510 to 4000 ms."}, "false"},
		{"redlock", Params{"clock-jump": "on", "fencing": "on"}, []string{"A writes to the storage with token 1: refused, the storage has accepted token 2"}, "false"},
		{"fencing", Params{"late": "on"}, []string{"| 15 | A | A writes 9 with token 33: accepted", "| 16 | B | B writes 8 with token 34: accepted",
			"Final stock 8: a lost update (the right result is 7)."}, "false"},
		{"fencing", Params{"late": "on", "register": "on"}, []string{"| 11.02 | B | B registers token 34 with the storage at once |",
			"| 15 | A | A writes 9 with token 33: rejected, the storage has seen token 34 |", "Final stock 7: the right result."}, "true"},
		{"lockqueue", Params{"service": "etcd"}, []string{"| /lock/C3 (create_revision 1001) | C3 |",
			"| C4's lease expires, /lock/C4 (create_revision 1007) deleted | C3 | 1 | 4 |", "| total |  | 4 | 10 |"}, "true"},
		{"quorum", nil, []string{"N = 3, W = 2, R = 2: R + W = 4 > N", "| 100 | A | write 1, stamped 250 by A's clock, to R1, R2 | ok |",
			"| 300 | C | read from R1, R2 | 1 |", "| 400 | D | read from R2, R3 | 1 |"}, "false"},
		{"quorum", Params{"timestamps": "quorum"}, []string{"| 300 | C | read from R1, R2 | 2 |"}, "true"},
		{"quorum", Params{"skew": "0"}, []string{"| 400 | D | read from R2, R3 | 2 |"}, "true"},
		{"eventual", nil, []string{"| 70 | c2 | reads 1 at R2 | R1 2, R2 1 | RYW, MR |",
			"Both replicas had both writes from 60 ms on, yet they differed until 200 ms; both hold 2 at the end."}, "false"},
		{"eventual", Params{"merge": "crdt"}, []string{"| 70 | c2 | reads 2 at R2 | R1 2, R2 2 |  |",
			"The replicas were equal as soon as both had both writes (60 ms)"}, "true"},
		{"failover", Params{"wait": "on"}, []string{"`WAIT 1 2000` → 0 replicas", "One holder"}, "true"},
	}
	for _, tc := range tests {
		s, ok := LookupWith(tc.name, func(*history.History, string) (string, error) { return "true", nil })
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
