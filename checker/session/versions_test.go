package session

import (
	"context"
	"slices"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/weakref"
)

// vop is an operation on key x carrying the version it wrote or read.
func vop(proc int, f string, v, ver, call int64) history.Op {
	return history.Op{Process: proc, Client: string(rune('A' + proc)), F: f, Key: history.StringValue("x"),
		Value: history.IntValue(v), Version: history.IntValue(ver), Call: call, Return: call + 1, Status: history.OK}
}

// TestVersionedGuarantees checks the guarantees on small histories whose
// operations carry versions, each shaped on one rule of the versioned
// mode: a read of an older version than the newest its session knows, the same
// version read twice, a read of the initial value whatever version the
// store gave it, versions that contradict a process's order of its own
// writes (with no read anywhere), and a read whose value is not its
// version's. Every verdict is the brute force's, and the test names those
// that fail. The ladder's random comparison with versions covers these
// rules too, but from another package and by chance.
func TestVersionedGuarantees(t *testing.T) {
	tests := []struct {
		name  string
		ops   []history.Op
		fails []string
	}{
		{"a session reads an older version", []history.Op{
			vop(0, "write", 1, 1, 0), vop(0, "write", 2, 2, 2), vop(1, "read", 2, 2, 4), vop(1, "read", 1, 1, 6),
		}, []string{checker.MonotonicReads, checker.PRAM}},
		{"a session reads up and then back to a version it had read", []history.Op{
			vop(0, "write", 1, 1, 0), vop(0, "write", 2, 2, 2), vop(1, "read", 1, 1, 4), vop(1, "read", 2, 2, 6), vop(1, "read", 1, 1, 8),
		}, []string{checker.MonotonicReads, checker.PRAM}},
		{"a session reads one version twice", []history.Op{
			vop(0, "write", 1, 1, 0), vop(1, "read", 1, 1, 2), vop(1, "read", 1, 1, 4),
		}, nil},
		{"a read of the initial value after the session's own write", []history.Op{
			vop(0, "write", 1, 1, 0), vop(0, "read", 0, 5, 2),
		}, []string{checker.ReadYourWrites, checker.PRAM}},
		{"versions against a process's order of its writes", []history.Op{
			vop(0, "write", 1, 2, 0), vop(0, "write", 2, 1, 2),
		}, []string{checker.MonotonicWrites, checker.PRAM}},
		{"a read whose value is not its version's", []history.Op{
			vop(0, "write", 1, 1, 0), vop(1, "read", 5, 1, 2),
		}, Criteria},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &history.History{Ops: tc.ops, Processes: 2, Clients: 2}
			for _, c := range Criteria {
				want := !slices.Contains(tc.fails, c)
				ref, err := weakref.Decide(h, history.IntValue(0), c)
				if err != nil {
					t.Fatal(err)
				}
				if ref != want {
					t.Errorf("%s: the brute force says %v; the test expects %v", c, ref, want)
				}
				res, err := Check(context.Background(), h, c, Options{Init: history.IntValue(0)})
				if err != nil {
					t.Fatal(err)
				}
				if (res.Valid == checker.True) != want || res.Valid == checker.Unknown {
					t.Errorf("%s: got %s, want %v (%+v)", c, res.Valid, want, res.Violations)
				}
			}
		})
	}
}
