package adtref

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
)

// TestSequentialAgrees compares Decide's sequential consistency with the
// engine's (checker/sequential, through checker/suite) on random histories
// of every model: it checks the brute force's compiling, its choices of the
// operations of unknown outcome and its keyed states.
func TestSequentialAgrees(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 40
	}
	engines := map[string]suite.Model{}
	for _, m := range suite.Builtin() {
		engines[m.Info.Name] = m
	}
	for _, name := range Models {
		r := rand.New(rand.NewPCG(7, uint64(len(name))))
		for range n {
			h, opts, err := Generate(r, name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecideNamed(name, opts, h, checker.Sequential)
			if err != nil {
				t.Fatal(err)
			}
			res, err := engines[name].Check(context.Background(), h, checker.Sequential, opts, suite.Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if want := res.Valid == checker.True; res.Valid == checker.Unknown || got != want {
				t.Fatalf("%s: adtref %v, engine %v on %s", name, got, res.Valid, show(h))
			}
		}
	}
}

// TestPureReadsKeepTheState checks what the session guarantees' search
// relies on: a pure read (model.ReadOp) with its output hidden is legal
// and changes nothing, in every state the history's events reach.
func TestPureReadsKeepTheState(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		for _, name := range Models {
			h, opts, err := Generate(r, name)
			if err != nil {
				t.Fatal(err)
			}
			if bad := prepared(t, name, opts, h).readChanges(r); bad >= 0 {
				t.Fatalf("%s: a hidden read (event %d) changes the state or is refused in %s", name, bad, show(h))
			}
		}
	}
}
