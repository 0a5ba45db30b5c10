package causal

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// TestPrepareUsesVersionsLikeTheModels checks that Prepare takes reads-from
// from versions exactly when model.UsesVersions says every criterion reads
// them: one rule, so that the causal criteria, the session guarantees and
// the models never read different facts from one history. The histories
// carry versions on all, most or none of their operations, sometimes with a
// repeated write version.
func TestPrepareUsesVersionsLikeTheModels(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 2))
	init := history.IntValue(0)
	seen := [2]int{}
	for i := 0; i < 3000; i++ {
		cfg := randhist.Config{Ops: 1 + r.IntN(8), Processes: 1 + r.IntN(4), Values: 50, Keys: 1 + r.IntN(3),
			Init: init, CrashRate: 0.15, FailRate: 0.1, Corrupt: 0.5, Versions: 0.8}
		h := randhist.Register(r, cfg)
		if i%2 == 0 {
			h = randhist.KVReadWrite(r, cfg)
		}
		if len(h.Ops) > 0 {
			o := &h.Ops[r.IntN(len(h.Ops))]
			switch r.IntN(6) {
			case 0:
				o.Version = history.Value{} // one operation without
			case 1:
				o.Version = history.StringValue("v1") // not an integer
			case 2:
				for j := range h.Ops { // a repeated write version
					if w := &h.Ops[j]; w != o && w.Key == o.Key && causalWrite(w) && causalWrite(o) {
						o.Version = w.Version
						break
					}
				}
			}
		}
		p, err := prepareNoPanic(h, init)
		if err != nil {
			t.Errorf("history %d: %v", i, err)
			continue
		}
		want := model.UsesVersions(h)
		if p.Unknown == "" && p.Versioned != want && len(p.Ops) > 0 {
			t.Fatalf("history %d: Prepare reads versions %v, model.UsesVersions says %v", i, p.Versioned, want)
		}
		if want {
			seen[1]++
		} else {
			seen[0]++
		}
	}
	if seen[0] < 300 || seen[1] < 300 {
		t.Errorf("unbalanced: %d histories without versions, %d with", seen[0], seen[1])
	}
}

func causalWrite(o *history.Op) bool { return IsWrite(o.F) && o.Status != history.Fail }

// prepareNoPanic is Prepare with a panic turned into an error, so that one
// history's panic is reported and the others are still compared.
func prepareNoPanic(h *history.History, init history.Value) (p *Prepared, err error) {
	defer func() {
		if x := recover(); x != nil {
			err = fmt.Errorf("Prepare panicked: %v", x)
		}
	}()
	return Prepare(h, init, PreferVersions)
}
