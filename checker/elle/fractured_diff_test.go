package elle_test

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/sim"
)

// TestFracturedAgainstReference compares the fractured reads found on the
// inferred versions with the reference search, which looks every element
// read up by value, on small random histories and on simulated stores of
// every isolation (the broken one shows reads no version order covers).
func TestFracturedAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	n, seeds := 3000, uint32(8)
	if testing.Short() {
		n, seeds = 500, 3
	}
	found := 0
	for i := range n {
		found += compareFractured(t, "random", i, generate(rng).h)
	}
	for _, iso := range sim.Isolations {
		for seed := range seeds {
			h, err := sim.Txns(sim.TxnOptions{Txns: 3000, Clients: 6, Keys: 4, WritesPerKey: 6, MaxLength: 5,
				Isolation: iso, FailRate: 0.05, CrashRate: 0.05, Seed: seed + 1})
			if err != nil {
				t.Fatal(err)
			}
			found += compareFractured(t, iso, int(seed), h)
		}
	}
	if found == 0 {
		t.Fatal("no fractured read in any history: the comparison tested nothing")
	}
}

// compareFractured compares one history's fractured reads and returns how
// many there were.
func compareFractured(t *testing.T, name string, i int, h *history.History) int {
	t.Helper()
	got, want, err := elle.FracturedBoth(h)
	if err != nil {
		return 0 // an unreadable history has no cases
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s %d: fractured reads\n got %v\nwant %v", name, i, got, want)
	}
	return len(want)
}
