package linear

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestByKey checks the counted order of nodes against sorting, on keys
// that are small instants, large, never (math.MaxInt64), negative, the
// least int64, and recorded times far from zero.
func TestByKey(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 2000 {
		n := r.IntN(40)
		key := make([]int64, n)
		for i := range key {
			switch r.IntN(10) {
			case 0:
				key[i] = math.MaxInt64
			case 1:
				key[i] = int64(4*n + 16 + r.IntN(5))
			case 3:
				if trial%5 == 0 {
					key[i] = math.MinInt64
					break
				}
				fallthrough
			case 2:
				if trial%3 == 0 {
					key[i] = -int64(r.IntN(3) + 1)
					break
				}
				fallthrough
			default:
				key[i] = int64(r.IntN(2*n + 1))
			}
		}
		if trial%4 == 1 { // recorded times: far from zero, close together
			for i := range key {
				if key[i] != math.MaxInt64 && key[i] != math.MinInt64 {
					key[i] += 1_700_000_000_000
				}
			}
		}
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortFunc(want, func(x, y int32) int { return cmp.Or(cmp.Compare(key[x], key[y]), cmp.Compare(x, y)) })
		if got := byKey(key); !slices.Equal(got, want) {
			t.Fatalf("keys %v: byKey %v, want %v", key, got, want)
		}
	}
}
