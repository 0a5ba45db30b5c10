package shrink

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// TestRandomCores shrinks 2,000 seeded random histories that the exact
// reference checker finds not linearizable, over every model randhist
// generates, and proves with the reference that each core still violates
// and that weakening any single one of its essential operations makes it
// pass.
func TestRandomCores(t *testing.T) {
	const want = 2000
	models := []string{"register", "cas-register", "kv", "mutex"}
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 11))
	found, tried := 0, 0
	sizes := make(map[int]int)
	for found < want {
		tried++
		if tried > 40*want {
			t.Fatalf("only %d violating histories in %d tries", found, tried)
		}
		name := models[tried%len(models)]
		cfg := randhist.Default(name)
		cfg.Ops = 4 + r.IntN(7)
		cfg.Ties = []int{0, 0, 2, 4}[r.IntN(4)]
		h, check, keyed := randomHistory(t, r, name, cfg)
		res, err := check(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid != checker.False {
			continue
		}
		found++
		core, err := Minimize(ctx, h, check, keyed)
		if err != nil {
			t.Fatalf("%s history %d: %v", name, tried, err)
		}
		if !core.Minimal {
			t.Fatalf("%s history %d: core not shown 1-minimal", name, tried)
		}
		if err := coreError(ctx, check, core); err != nil {
			t.Fatalf("%s history %d: %v\n%s", name, tried, err, labels(h, core.Ops))
		}
		for _, p := range core.Ops {
			if p < 0 || p >= len(h.Ops) || h.Ops[p].Status == history.Fail {
				t.Fatalf("%s history %d: core names operation %d", name, tried, p)
			}
		}
		sizes[core.Size()]++
	}
	t.Logf("%d violating histories in %d; core sizes %v", found, tried, sizes)
}

// randomHistory generates a history of the randhist model name from cfg,
// with the model's usual initial value, and returns it with the reference
// checker for it and whether the model is keyed.
func randomHistory(t *testing.T, r *rand.Rand, name string, cfg randhist.Config) (*history.History, Checker, bool) {
	t.Helper()
	cfg.Init = history.IntValue(0)
	if name == "kv" {
		cfg.Init = history.StringValue("")
	}
	h, err := randhist.New(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	check, keyed := randomChecker(name, cfg.Init)
	return h, check, keyed
}

// randomChecker returns the reference linearizability checker for a
// randhist model.
func randomChecker(name string, init history.Value) (Checker, bool) {
	o := model.Options{Init: init}
	switch name {
	case "register":
		return referenceChecker(model.NewRegister(o), checker.Linearizable), false
	case "cas-register":
		return referenceChecker(model.NewCASRegister(o), checker.Linearizable), false
	case "kv":
		return func(ctx context.Context, h *history.History) (checker.Result, error) {
			return reference.Linearizable(ctx, model.NewKV(o), h)
		}, true
	}
	return referenceChecker(model.NewMutex(o), checker.Linearizable), false
}

// labels names the operations at positions ps of h, for failure messages.
func labels(h *history.History, ps []int) string {
	var out []string
	for _, p := range ps {
		if p >= 0 && p < len(h.Ops) {
			o := &h.Ops[p]
			out = append(out, fmt.Sprintf("%s [%d, %d]", o.Label(), o.Call, o.Return))
		}
	}
	return strings.Join(out, ", ")
}
