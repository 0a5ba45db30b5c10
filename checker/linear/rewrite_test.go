package linear

import (
	"context"
	"math/rand"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// oneRewrite keeps the first write of the initial value 0 and gives the
// others values of their own, so that the register's values are distinct
// but for one rewrite of the initial value.
func oneRewrite(all []genPending) {
	seen := false
	for i := range all {
		o := &all[i].op
		if o.F != "write" || o.Value != history.IntValue(0) {
			continue
		}
		if seen {
			o.Value = history.IntValue(int64(1<<41 + i))
		}
		seen = true
	}
}

// TestInitRewriteZones compares Check, which decides registers of
// distinct values with one rewrite of the initial value by zones when the
// times settle each read of it, with the reference on small histories and
// with the register sweep and the search (NoZones) on medium ones.
func TestInitRewriteZones(t *testing.T) {
	m := model.NewRegister(model.Options{Init: i64(0)})
	counts := map[checker.Verdict]int{}
	byZones := 0
	for seed := int64(0); seed < 3000; seed++ {
		r := rand.New(rand.NewSource(seed))
		n, c := 3+r.Intn(reference.MaxOps-2), 1+r.Intn(4)
		if seed%6 == 0 {
			n, c = 50+r.Intn(200), 2+r.Intn(6)
		}
		h, err := history.FromOps(genMediumWith(r, genRewrites, n, c, oneRewrite))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Check(context.Background(), m, h, Options{Verify: true})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var want checker.Result
		if len(h.Ops) <= reference.MaxOps {
			want, err = reference.Linearizable(context.Background(), m, h)
		} else {
			want, err = Check(context.Background(), m, h, Options{NoZones: true})
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if got.Valid != want.Valid {
			t.Fatalf("seed %d: %v by %s, want %v\n%s", seed, got.Valid, got.Method, want.Valid, dump(h))
		}
		if got.Valid == checker.False {
			checkViolation(t, uint64(seed), m, h, got)
		}
		counts[got.Valid]++
		if got.Method == "zones" && rewrites(h) {
			byZones++
		}
	}
	if counts[checker.True] < 300 || counts[checker.False] < 300 || byZones < 300 {
		t.Errorf("verdicts %v, %d with a rewrite decided by zones", counts, byZones)
	}
	t.Logf("%v, %d with a rewrite decided by zones", counts, byZones)
}

// rewrites reports whether some write of h writes the initial value 0.
func rewrites(h *history.History) bool {
	for i := range h.Ops {
		if h.Ops[i].F == "write" && h.Ops[i].Value == history.IntValue(0) && h.Ops[i].Status != history.Fail {
			return true
		}
	}
	return false
}
