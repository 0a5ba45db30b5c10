package shrink

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// TestMinimizeFromKnown shrinks random violating histories, with failed
// operations and crashed reads the first cut drops, twice: checking them
// first (MinimizeFor) and from the check's result (MinimizeFrom). The cores
// are the same, and starting from the result saves the first check.
func TestMinimizeFromKnown(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 17))
	found, saved := 0, 0
	for tried := 0; found < 300 && tried < 30000; tried++ {
		cfg := randhist.Default("cas-register")
		cfg.Ops = 6 + r.IntN(20)
		cfg.Processes = 2 + r.IntN(4)
		cfg.Values = []int{2, 3, 5}[r.IntN(3)]
		cfg.Ties = []int{0, 0, 2}[r.IntN(3)]
		cfg.Init = history.IntValue(0)
		h, err := randhist.New(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		m := model.NewCASRegister(model.Options{Init: cfg.Init})
		check := linearChecker(m)
		known, err := check(ctx, h)
		if err != nil {
			t.Fatal(err)
		}
		if known.Valid != checker.False {
			continue
		}
		found++
		info := registerInfo(false)
		want, err := MinimizeFor(ctx, h, info, check)
		if err != nil {
			t.Fatalf("history %d: %v", tried, err)
		}
		got, err := MinimizeFrom(ctx, h, info, check, known)
		if err != nil {
			t.Fatalf("history %d: %v", tried, err)
		}
		if !slices.Equal(got.Ops, want.Ops) || !slices.Equal(got.Weakened, want.Weakened) || got.Minimal != want.Minimal {
			t.Fatalf("history %d: core from the known result %v/%v, checked first %v/%v\n%s",
				tried, got.Ops, got.Weakened, want.Ops, want.Weakened, labels(h, want.Ops))
		}
		if got.Checks > want.Checks {
			t.Fatalf("history %d: %d checks from the known result, %d checking first", tried, got.Checks, want.Checks)
		}
		if got.Checks < want.Checks {
			saved++
		}
	}
	if found < 300 || saved < found/2 {
		t.Fatalf("%d violating histories, %d shrunk with fewer checks", found, saved)
	}
}

// TestMinimizeFromUnusable falls back to checking when the known result is
// not a violation or names an operation the first cut drops.
func TestMinimizeFromUnusable(t *testing.T) {
	ctx := context.Background()
	h := h2(t)
	check := linearChecker(register0())
	known, err := check(ctx, h)
	if err != nil || known.Valid != checker.False {
		t.Fatalf("the stale read: %v, %v", known.Valid, err)
	}
	want, err := Minimize(ctx, h, check, false)
	if err != nil {
		t.Fatal(err)
	}
	bad := known
	bad.Violations = []checker.Violation{{Ops: []int{len(h.Ops) + 3}}}
	for name, k := range map[string]checker.Result{"no violation": {}, "out of range": bad} {
		got, err := MinimizeFrom(ctx, h, registerInfo(false), check, k)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(got.Ops, want.Ops) || got.Checks != want.Checks {
			t.Fatalf("%s: core %v in %d checks, want %v in %d", name, got.Ops, got.Checks, want.Ops, want.Checks)
		}
	}
}
