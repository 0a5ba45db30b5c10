package shrink

import (
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestWeakenAsksTheModel checks that weakening reads classes from the
// model, not names: under a model that calls its read "load", its write
// "store" and its compare-and-set "swap", a weakened load is dropped and a
// weakened swap becomes an optional store of its new value; under the
// register's names the same operations are of no class and only get
// unknown outcome.
func TestWeakenAsksTheModel(t *testing.T) {
	cell := model.Info{Name: "cell", Ops: []model.OpInfo{
		{Names: []string{"load"}, Class: model.ReadOp},
		{Names: []string{"store"}, Class: model.WriteOp},
		{Names: []string{"swap"}, Class: model.CASOp},
	}}
	h := mustHistory(t,
		op("A", "store", i1, 0, 1),
		op("B", "swap", history.ListValue(i1, i2), 2, 3),
		op("C", "load", i2, 4, 5))
	got := WeakenFor(h, cell, []int{1, 2})
	if len(got.Ops) != 2 {
		t.Fatalf("cell: %d ops, want the load dropped", len(got.Ops))
	}
	if o := got.Ops[1]; o.F != "store" || o.Value != i2 || o.Status != history.Info {
		t.Fatalf("cell: weakened swap is %s, want an optional store of 2", o.Label())
	}
	got = Weaken(h, []int{1, 2})
	if len(got.Ops) != 3 || got.Ops[1].F != "swap" || got.Ops[2].Status != history.Info {
		t.Fatalf("register names: got %d ops, %s, %s", len(got.Ops), got.Ops[1].Label(), got.Ops[2].Label())
	}
}
