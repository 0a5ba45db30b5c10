package randhist

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestVersionsFollowTheExecution checks that unaltered versioned histories
// use versions and are linearizable with them (the versions agree with the
// execution), that altered ones often are not, and that histories with cas
// or append carry no versions.
func TestVersionsFollowTheExecution(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 11))
	ctx := context.Background()
	broken := 0
	for i := 0; i < 1500; i++ {
		corrupt := float64(i % 2)
		cfg := Config{Ops: 1 + r.IntN(8), Processes: 1 + r.IntN(3), Values: 1 + r.IntN(5), Keys: 1 + r.IntN(3),
			Init: history.IntValue(0), CrashRate: 0.15, FailRate: 0.1, Corrupt: corrupt, Versions: 1}
		h, newModel := Register(r, cfg), model.NewRegister
		if i%3 == 0 {
			h, newModel = KVReadWrite(r, cfg), model.NewKV
		}
		if !model.UsesVersions(h) {
			for _, o := range h.Ops {
				if o.Status == history.OK || (o.Status == history.Info && (o.F == "write" || o.F == "put")) {
					t.Fatalf("history %d does not use versions", i)
				}
			}
			continue // nothing that returned: nothing to carry a version
		}
		res, err := reference.Linearizable(ctx, newModel(model.Options{Init: cfg.Init, Versions: true}), h)
		if err != nil {
			t.Fatal(err)
		}
		if corrupt == 0 && res.Valid != checker.True {
			t.Fatalf("history %d, unaltered, is not linearizable with its versions", i)
		}
		if res.Valid == checker.False {
			broken++
		}
	}
	if broken < 150 {
		t.Errorf("only %d altered histories are not linearizable", broken)
	}
	for i := 0; i < 300; i++ {
		h := KV(r, Config{Ops: 8, Versions: 1})
		for _, o := range h.Ops {
			if !o.Version.IsNone() && (o.F == "cas" || o.F == "append" || !model.UsesVersions(h)) {
				t.Fatalf("history %d carries versions it cannot use", i)
			}
		}
	}
}
