package history

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortPointsAgreesWithSort holds the counting sort of real time's
// ends to a plain sort, on narrow ranges of times (counted), wide ones
// (sorted whole), ties across clients and within one, and times at the
// ends of int64's range.
func TestSortPointsAgreesWithSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 22))
	for trial := 0; trial < 2000; trial++ {
		n := rng.IntN(60)
		base := []int64{0, -50, 1 << 40, math.MaxInt64 - 100, math.MinInt64}[rng.IntN(5)]
		width := []int64{1, 3, int64(n) + 1, 10 * int64(n+1), math.MaxInt64}[rng.IntN(5)]
		pts := make([]rtPoint, n)
		for i := range pts {
			off := rng.Int64N(width)
			tm := base + off
			if base > 0 && tm < base { // wrapped past MaxInt64
				tm = math.MaxInt64
			}
			pts[i] = rtPoint{t: tm, op: int32(rng.IntN(n + 1)), ret: rng.IntN(2) == 0, proc: rng.IntN(4)}
		}
		want := slices.Clone(pts)
		slices.SortFunc(want, comparePoints)
		got := slices.Clone(pts)
		sortPoints(got)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: sortPoints(%v) = %v, want %v", trial, pts, got, want)
		}
	}
}
