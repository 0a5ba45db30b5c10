package checker_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// TestCompileGroupTouching checks that a group compiled with the whole
// history's Touching compiles as Compile does, Touching and Prev included,
// on kv histories whose coarse clocks make a process's operations touch
// within and across keys.
func TestCompileGroupTouching(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	touched := 0
	for trial := range 2000 {
		cfg := randhist.Default("kv")
		cfg.Ops, cfg.Processes, cfg.Keys = 4+r.IntN(25), 1+r.IntN(4), 1+r.IntN(3)
		cfg.CrashRate, cfg.FailRate, cfg.Ties = 0.1, 0.1, 1+r.IntN(5)
		h := randhist.KV(r, cfg)
		_, groups := checker.Partition(h)
		for _, g := range groups {
			want, err := checker.Compile(model.NewKV(model.Options{}), h, g, nil, true)
			if err != nil {
				t.Fatal(err)
			}
			got, err := checker.CompileGroup(model.NewKV(model.Options{}), h, g, true, h.Touching())
			if err != nil {
				t.Fatal(err)
			}
			if want.Touching {
				touched++
			}
			if got.Touching != want.Touching || !reflect.DeepEqual(got.Prev, want.Prev) {
				t.Fatalf("trial %d: group %v: Touching %v %v, want %v %v", trial, g, got.Touching, got.Prev, want.Touching, want.Prev)
			}
		}
	}
	if touched < 100 {
		t.Fatalf("only %d groups touched: the test does not exercise the rule", touched)
	}
}
