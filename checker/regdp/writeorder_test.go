package regdp_test

import (
	"context"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/checker/regdp"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestEarliestReturningWriteFirst guards the order in which a gap takes
// the writes of a value: of the pending writes of 2, D's read uses the one
// that returns first (A's, returning at 6), which keeps C's, returning at
// 14, for E's read after B's write of 3 and read of 3. Taking C's write
// for D's read leaves only A's, which must take effect by 6, before the 3
// that B reads at 12: the sweep would then call this linearizable history
// a violation. TestAgainstLinear finds the same rule by chance on long
// histories; this history is the smallest it shrinks to.
func TestEarliestReturningWriteFirst(t *testing.T) {
	h := mustHistory(t,
		op("A", "write", 2, 0, 6),
		op("B", "write", 3, 1, 9),
		op("C", "write", 2, 4, 14),
		op("D", "read", 2, 4, 5),
		op("B", "read", 3, 12, 12),
		op("E", "read", 2, 15, 21))
	ref, err := reference.Linearizable(context.Background(), model.NewRegister(model.Options{Init: history.IntValue(0)}), h)
	if err != nil || ref.Valid != checker.True {
		t.Fatalf("the reference says %s (%v); the test expects true", ref.Valid, err)
	}
	res, err := regdp.Check(context.Background(), h, regdp.Options{Init: history.IntValue(0)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != checker.True {
		t.Fatalf("got %s, want true: %+v", res.Valid, res.Violations)
	}
}
