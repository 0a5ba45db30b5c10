package adtref

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// features are what a model's generated histories must cover.
type features struct {
	crashed, failed, tieAcross, touching, repeated, nilValue bool
}

func featuresOf(h *history.History, f *features) {
	last := map[int]int64{} // process → return of its previous operation
	values := map[string]int{}
	for k, o := range h.Ops {
		f.crashed = f.crashed || o.Status == history.Info
		f.failed = f.failed || o.Status == history.Fail
		// A read of nil, or a transaction's (inside its value).
		f.nilValue = f.nilValue || (o.Status == history.OK && strings.Contains(o.Value.String(), "nil"))
		if r, ok := last[o.Process]; ok && r == o.Call {
			f.touching = true
		}
		last[o.Process] = o.Return
		if k > 0 && h.Ops[k-1].Call == o.Call && h.Ops[k-1].Process != o.Process {
			f.tieAcross = true
		}
		if o.Status != history.Fail && !o.Value.IsNone() {
			values[o.Value.String()]++
			f.repeated = f.repeated || values[o.Value.String()] > 1
		}
	}
}

// TestGeneratorCovers checks that every model's histories have 3 to 7
// operations of 2 or more processes, and that together they cover crashed
// and failed operations, ties of times across processes, operations that
// start when their process's previous one returns, repeated values and
// (where the model has them) nil reads; and that a seed gives one history.
func TestGeneratorCovers(t *testing.T) {
	// The locks carry no values; sets and counters never read nil.
	noValues := map[string]bool{"mutex": true, "lock": true}
	noNil := map[string]bool{"mutex": true, "lock": true, "set": true, "counter": true}
	for _, name := range Models {
		var f features
		r := rand.New(rand.NewPCG(1, uint64(len(name))))
		for range 300 {
			h, _, err := Generate(r, name)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(h.Ops); n > 7 || n < 1 {
				t.Fatalf("%s: %d operations", name, n)
			}
			featuresOf(h, &f)
		}
		want := features{true, true, true, true, !noValues[name], !noNil[name]}
		if f != want {
			t.Errorf("%s: covers %+v, want %+v", name, f, want)
		}
		h1, o1, _ := Generate(rand.New(rand.NewPCG(9, 9)), name)
		h2, o2, _ := Generate(rand.New(rand.NewPCG(9, 9)), name)
		if !reflect.DeepEqual(h1, h2) || !reflect.DeepEqual(o1, o2) {
			t.Errorf("%s: one seed gave two histories", name)
		}
	}
}
