package linear

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
)

// TestMergeRecordedTimes checks that when no client's operations touch,
// the merge of partition orders compares recorded times and gives what it
// gives with real time's instants: the same verdict and the same order,
// on histories whose times tie within and across clients, with crashed
// and failed operations, and partition orders that often fail.
func TestMergeRecordedTimes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	compared := 0
	for trial := range 3000 {
		cfg := randhist.Default("kv")
		cfg.Ops, cfg.Processes, cfg.Keys = 4+r.IntN(20), 1+r.IntN(5), 1+r.IntN(3)
		cfg.CrashRate, cfg.FailRate, cfg.Ties = 0.15, 0.1, 1+r.IntN(4)
		h := randhist.KV(r, cfg)
		if h.Touching() {
			continue
		}
		compared++
		orders := randomOrders(r, h)
		build := func(ranked bool) *merge {
			m := newMerge(h, len(h.Ops), false)
			if ranked {
				m.rt = h.RealTime()
			}
			for _, order := range orders {
				prev := int32(-1)
				for _, pos := range order {
					prev = m.add(pos, prev)
				}
			}
			return m
		}
		got, gotOK := build(false).run()
		want, wantOK := build(true).run()
		if gotOK != wantOK || !slices.Equal(got, want) {
			t.Fatalf("trial %d: recorded times give %v %v, real time's instants %v %v\n%v", trial, got, gotOK, want, wantOK, h.Ops)
		}
	}
	if compared < 1000 {
		t.Fatalf("only %d of 3000 histories had no touching operations", compared)
	}
}

// randomOrders splits the operations that did not fail into up to three
// partitions, each in call order with some neighbours swapped.
func randomOrders(r *rand.Rand, h *history.History) [][]int {
	orders := make([][]int, 1+r.IntN(3))
	for i := range h.Ops {
		if h.Ops[i].Status == history.Fail {
			continue
		}
		k := r.IntN(len(orders))
		orders[k] = append(orders[k], i)
	}
	for _, o := range orders {
		for j := 1; j < len(o); j++ {
			if r.IntN(4) == 0 {
				o[j-1], o[j] = o[j], o[j-1]
			}
		}
	}
	return orders
}
