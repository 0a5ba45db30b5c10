package linear

import (
	"context"
	"math/rand"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// opaque hides a model's classes: the search knows only its steps.
type opaque struct{ model.Model[int64] }

// observing is opaque, but tells which operations never change the state
// (model.Observer), as the register's classes say.
type observing struct {
	model.Model[int64]
	rw model.ReadWriteRegister
}

func (m observing) Observes(op *model.Op) bool {
	c := m.rw.Class(op)
	return c == model.ReadOp || c == model.AnyReadOp
}

// TestObserver checks the search with model.Observer against the search
// that knows nothing of the operations, on random medium histories of the
// register and the compare-and-set register: the same verdicts, some in
// fewer steps.
func TestObserver(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 20
	}
	for _, kind := range []genKind{genRegister, genCAS} {
		fewer := 0
		for seed := 0; seed < seeds; seed++ {
			r := rand.New(rand.NewSource(int64(seed)*31 + int64(kind)))
			h, err := history.FromOps(genMedium(r, kind, 30+r.Intn(60), 2+r.Intn(4)))
			if err != nil {
				t.Fatal(err)
			}
			m := model.NewRegister(model.Options{Init: i64(0)})
			if kind == genCAS {
				m = model.NewCASRegister(model.Options{Init: i64(0)})
			}
			opts := Options{NoZones: true, Verify: true, Workers: 1}
			plain, err := Check(context.Background(), opaque{m}, h, opts)
			if err != nil {
				t.Fatal(err)
			}
			obs, err := Check(context.Background(), observing{m, m.(model.ReadWriteRegister)}, h, opts)
			if err != nil {
				t.Fatal(err)
			}
			if plain.Valid != obs.Valid || plain.Valid == checker.Unknown {
				t.Fatalf("kind %d seed %d: %v with observers, %v without", kind, seed, obs.Valid, plain.Valid)
			}
			if obs.Stats.States < plain.Stats.States {
				fewer++
			}
		}
		if fewer == 0 {
			t.Errorf("kind %d: observers never saved a step", kind)
		}
	}
}
