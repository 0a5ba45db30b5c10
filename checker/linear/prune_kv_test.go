package linear

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// TestKVPruneAppends checks the kv model's rule for dropping appends of
// unknown outcome that nothing observed: with it and without it, the
// verdict is the reference's, on histories with many crashed appends.
func TestKVPruneAppends(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	droppedAppends := 0
	for i := 0; i < 4000; i++ {
		cfg := randhist.Default("kv")
		cfg.Ops = 4 + r.IntN(6)
		cfg.CrashRate = 0.35
		cfg.Keys = 1
		h, err := randhist.New(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := reference.Linearizable(context.Background(), model.NewKV(model.Options{}), h)
		if err != nil {
			continue // input the model rejects (e.g. an append of nil): not this test's concern
		}
		pruned, err := Check(context.Background(), model.NewKV(model.Options{}), h, Options{Workers: 1, NoZones: true, Verify: true})
		if err != nil {
			t.Fatalf("history %d: %v", i, err)
		}
		if pruned.Valid != ref.Valid {
			t.Fatalf("history %d: %v with pruning, reference %v\n%v", i, pruned.Valid, ref.Valid, h.Ops)
		}
		c, err := checker.Compile(model.NewKV(model.Options{}), h, nil, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.Dropped {
			if h.Ops[p].F == "append" && h.Ops[p].Status == history.Info {
				droppedAppends++
			}
		}
	}
	if droppedAppends < 100 {
		t.Fatalf("only %d crashed appends were dropped: the rule is not exercised", droppedAppends)
	}
}
