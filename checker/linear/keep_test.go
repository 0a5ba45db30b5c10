package linear

import (
	"context"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestKeepDecidesVerdicts holds the register's rule for dropping operations
// of unknown outcome (model's Keep) to verdicts: each history turns on one
// crashed operation that the rule must keep because a cas or a read
// observes it, or may drop because nothing does. model's TestRegisterKeep
// checks the rule's answers; this checks what they change, against the
// reference, so that a slip in the rule shows as a wrong verdict too.
func TestKeepDecidesVerdicts(t *testing.T) {
	info, ok := history.Info, history.OK
	i := history.IntValue
	op := func(p int, f string, v history.Value, call, ret int64, st history.Type) history.Op {
		if st == info {
			ret = history.Infinity
		}
		return history.Op{Process: p, Client: string(rune('A' + p)), F: f, Value: v, Call: call, Return: ret, Status: st}
	}
	tests := []struct {
		name string
		ops  []history.Op
		want checker.Verdict
	}{
		{"a crashed write observed only by a cas from its value", []history.Op{
			op(0, "write", i(1), 0, 0, info), op(1, "cas", history.ListValue(i(1), i(2)), 2, 3, ok), op(1, "read", i(2), 4, 5, ok),
		}, checker.True},
		{"a crashed write observed only by a failed cas from its value", []history.Op{
			op(0, "write", i(1), 0, 0, info), op(1, "cas", history.ListValue(i(1), i(2)), 2, 3, history.Fail), op(1, "read", i(1), 4, 5, ok),
		}, checker.True},
		{"a crashed cas whose new value a read returns", []history.Op{
			op(0, "cas", history.ListValue(i(0), i(2)), 0, 0, info), op(1, "read", i(2), 2, 3, ok),
		}, checker.True},
		{"a crashed cas nothing observes", []history.Op{
			op(0, "cas", history.ListValue(i(0), i(2)), 0, 0, info), op(1, "read", i(0), 2, 3, ok), op(1, "read", i(3), 4, 5, ok),
		}, checker.False},
		{"a crashed write of a value no read returns, and a cas from the old value", []history.Op{
			op(0, "write", i(1), 0, 0, info), op(1, "cas", history.ListValue(i(0), i(2)), 2, 3, ok), op(1, "read", i(2), 4, 5, ok),
		}, checker.True},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &history.History{Ops: tc.ops, Processes: 2}
			m := model.NewCASRegister(model.Options{Init: i(0)})
			ref, err := reference.Linearizable(context.Background(), m, h)
			if err != nil {
				t.Fatal(err)
			}
			if ref.Valid != tc.want {
				t.Fatalf("the reference says %s; the test expects %s", ref.Valid, tc.want)
			}
			got, err := Check(context.Background(), m, h, Options{Workers: 1, NoZones: true, Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			if got.Valid != tc.want {
				t.Fatalf("got %s, want %s", got.Valid, tc.want)
			}
		})
	}
}
