package linear

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// twinsBySort is the definition of twins, written as a sort of every
// operation by identity, call, return and index.
func twinsBySort(ops []model.Op) []int32 {
	key := func(o *model.Op) [5]int64 {
		u := int64(0)
		if o.Unknown {
			u = 1
		}
		return [5]int64{int64(o.Kind), u, o.A, o.B, o.C}
	}
	idx := make([]int32, len(ops))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(x, y int32) int {
		kx, ky := key(&ops[x]), key(&ops[y])
		return cmp.Or(slices.Compare(kx[:], ky[:]), cmp.Compare(ops[x].Call, ops[y].Call),
			cmp.Compare(ops[x].Return, ops[y].Return), cmp.Compare(x, y))
	})
	tw := make([]int32, len(ops))
	for k, i := range idx {
		tw[i] = -1
		if k > 0 {
			j := idx[k-1]
			if key(&ops[j]) == key(&ops[i]) && (ops[i].Unknown || ops[j].Return <= ops[i].Return) {
				tw[i] = j
			}
		}
	}
	return tw
}

// TestTwins checks twins against its definition on operations with few
// identities, calls and returns that tie, outcomes unknown, and orders
// that are not call order.
func TestTwins(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 5000 {
		ops := make([]model.Op, r.IntN(30))
		for i := range ops {
			call := int64(r.IntN(10))
			o := model.Op{Kind: uint8(r.IntN(2)), A: int64(r.IntN(3)), B: int64(r.IntN(2)), Call: call, Return: call + int64(r.IntN(4))}
			if r.IntN(5) == 0 {
				o.Unknown, o.Return = true, history.Infinity
			}
			ops[i] = o
		}
		if trial%2 == 0 {
			slices.SortStableFunc(ops, func(x, y model.Op) int { return cmp.Compare(x.Call, y.Call) })
		}
		if got, want := twins(ops), twinsBySort(ops); !slices.Equal(got, want) {
			t.Fatalf("trial %d: twins %v, want %v\nops %v", trial, got, want, ops)
		}
	}
}
