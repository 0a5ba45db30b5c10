package ahead

import (
	"errors"
	"sync/atomic"
	"testing"
)

// TestDoInOrder checks that every item is worked on once and used in
// order, that no more than workers items are worked on at once, and that
// an error from use stops the work not yet started.
func TestDoInOrder(t *testing.T) {
	for _, c := range []struct{ n, workers int }{{0, 2}, {1, 2}, {5, 1}, {5, 2}, {17, 3}, {3, 8}} {
		var running, most atomic.Int32
		var used []int
		err := Do(c.n, c.workers, func(i int) int {
			r := running.Add(1)
			for m := most.Load(); r > m && !most.CompareAndSwap(m, r); m = most.Load() {
			}
			running.Add(-1)
			return i * i
		}, func(i, sq int) error {
			if sq != i*i {
				t.Errorf("n %d workers %d: item %d got %d", c.n, c.workers, i, sq)
			}
			used = append(used, i)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(used) != c.n {
			t.Errorf("n %d workers %d: used %v", c.n, c.workers, used)
		}
		for k, i := range used {
			if k != i {
				t.Errorf("n %d workers %d: used out of order: %v", c.n, c.workers, used)
				break
			}
		}
		if m := int(most.Load()); m > max(c.workers, 1) {
			t.Errorf("n %d workers %d: %d at once", c.n, c.workers, m)
		}
	}
	stop := errors.New("stop")
	var worked atomic.Int32
	err := Do(10, 2, func(i int) int { worked.Add(1); return i }, func(i, _ int) error {
		if i == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("error %v, want %v", err, stop)
	}
	if w := worked.Load(); w < 4 || w > 6 {
		t.Errorf("worked on %d items after stopping at the fourth with two workers, want 4 to 6", w)
	}
}
