package model_test

import (
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// A counting model never allows an order that its count forbids: along
// random sequences of acquires and releases by a few clients, as long as
// every step is legal the count of holders stays within 0..Capacity.
func TestCountingKeepsBounds(t *testing.T) {
	countingKeepsBounds(t, model.NewMutex(model.Options{}))
	countingKeepsBounds(t, model.NewLock(model.Options{}))
}

func countingKeepsBounds[S comparable](t *testing.T, m model.Model[S]) {
	t.Helper()
	cm, ok := m.(model.Counting)
	if !ok {
		t.Fatalf("%s does not count", m.Info().Name)
	}
	legalSteps := 0
	for seed := range 2000 {
		r := rand.New(rand.NewPCG(uint64(seed), 3))
		tab := model.NewTable()
		var ops []model.Op
		for range 1 + r.IntN(8) {
			o := history.Op{Client: []string{"A", "B", "C"}[r.IntN(3)], F: []string{"acquire", "release"}[r.IntN(2)]}
			c, err := m.Compile(&o, tab)
			if err != nil {
				t.Fatal(err)
			}
			ops = append(ops, c)
		}
		s, count := m.Init(tab), 0
		for i := range ops {
			var legal bool
			if s, legal = m.Step(s, &ops[i]); !legal {
				break
			}
			legalSteps++
			if count += cm.Delta(&ops[i]); count < 0 || count > cm.Capacity() {
				t.Fatalf("%s: seed %d: a legal order takes the count to %d", m.Info().Name, seed, count)
			}
		}
	}
	if legalSteps == 0 {
		t.Fatal("no legal step taken")
	}
}
