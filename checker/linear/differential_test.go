package linear

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// perModel is how many random small histories each model is checked on.
const perModel = 10000

// smallConfig draws a generator setting: up to 12 operations, 1–4
// processes, few values (repeats) or many (mostly unique), with crashes and
// failures at varying rates.
func smallConfig(r *rand.Rand, name string) randhist.Config {
	cfg := randhist.Default(name)
	cfg.Ops = 1 + r.IntN(reference.MaxOps)
	cfg.Processes = 1 + r.IntN(4)
	cfg.Values = []int{2, 3, 5, 30}[r.IntN(4)]
	cfg.Keys = 1 + r.IntN(3)
	cfg.CrashRate = []float64{0, 0.1, 0.3}[r.IntN(3)]
	cfg.FailRate = []float64{0, 0.1}[r.IntN(2)]
	cfg.Ties = []int{0, 0, 2, 4}[r.IntN(4)]
	if r.IntN(3) == 0 {
		cfg.Init = history.IntValue(0)
		if name == "kv" {
			cfg.Init = history.StringValue("")
		}
	}
	return cfg
}

// differential checks perModel random histories of one model against the
// reference checker, half of them without pruning, and every witness
// independently.
func differential[S comparable](t *testing.T, name string, newModel func(model.Options) model.Model[S]) {
	differentialOn(t, name, newModel, perModel, nil)
}

// differentialOn is differential with n histories (a quarter of them with
// -short), each passed through alter when it is set.
func differentialOn[S comparable](t *testing.T, name string, newModel func(model.Options) model.Model[S], n uint64,
	alter func(r *rand.Rand, h *history.History) *history.History) {
	differentialFrom(t, name, newModel, n, smallConfig, alter)
}

// differentialFrom is differentialOn with the generator settings drawn by
// config.
func differentialFrom[S comparable](t *testing.T, name string, newModel func(model.Options) model.Model[S], n uint64,
	config func(r *rand.Rand, name string) randhist.Config, alter func(r *rand.Rand, h *history.History) *history.History) {
	if testing.Short() {
		n /= 4
	}
	counts := map[checker.Verdict]int{}
	for seed := uint64(0); seed < n; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x11ea7))
		cfg := config(r, name)
		h, err := randhist.New(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if alter != nil {
			if h = alter(r, h); h == nil {
				t.Fatalf("seed %d: altering the history failed", seed)
			}
		}
		m := newModel(model.Options{Init: cfg.Init})
		want, refErr := reference.Linearizable(context.Background(), m, h)
		opts := Options{NoPrune: seed%2 == 1, Verify: seed%4 < 2, Workers: 1 + int(seed%3), NoZones: seed%5 < 2}
		got, err := Check(context.Background(), m, h, opts)
		var ie *history.InputError
		switch {
		case refErr != nil && errors.As(refErr, &ie):
			// The generator can write a value the model rejects (say, an
			// append of nil): both checkers must reject the input.
			if err == nil || !errors.As(err, &ie) {
				t.Fatalf("seed %d: reference rejects the input (%v) but Check gives %v, %v", seed, refErr, got.Valid, err)
			}
			counts[checker.Unknown]++
			continue
		case refErr != nil:
			t.Fatalf("seed %d: reference: %v", seed, refErr)
		case err != nil:
			t.Fatalf("seed %d: %v", seed, err)
		}
		if got.Valid != want.Valid {
			t.Fatalf("seed %d (%+v): verdict %v, reference says %v\n%s", seed, cfg, got.Valid, want.Valid, dump(h))
		}
		counts[got.Valid]++
		switch got.Valid {
		case checker.True:
			if err := checker.VerifyWitness(m, h, got.Witness, checker.RealTime); err != nil {
				t.Fatalf("seed %d: witness %v: %v\n%s", seed, got.Witness, err, dump(h))
			}
		case checker.False:
			checkViolation(t, seed, m, h, got)
		}
	}
	if counts[checker.True] < int(n/10) || counts[checker.False] < int(n/10) {
		t.Errorf("verdicts too one-sided: %v", counts)
	}
	t.Logf("%v", counts)
}

// checkViolation asserts the shape of a refutation: the prefix is a legal
// order that leaves out the failing operation, which completed.
func checkViolation[S comparable](t *testing.T, seed uint64, m model.Model[S], h *history.History, res checker.Result) {
	t.Helper()
	if len(res.Violations) != 1 {
		t.Fatalf("seed %d: %d violations", seed, len(res.Violations))
	}
	v := res.Violations[0]
	if len(v.Ops) == 0 || Explain(h, checker.Linearizable, v) == "" {
		t.Fatalf("seed %d: empty violation %+v", seed, v)
	}
	fail := v.Ops[0]
	if h.Ops[fail].Status != history.OK {
		t.Fatalf("seed %d: the failing operation %s did not complete", seed, h.Ops[fail].Label())
	}
	for _, p := range v.Prefix {
		if p == fail {
			t.Fatalf("seed %d: the failing operation is in the prefix", seed)
		}
	}
	if m.Info().Keyed {
		for _, p := range v.Prefix {
			if h.Ops[p].Key != h.Ops[fail].Key || h.Ops[p].Key.String() != v.Key {
				t.Fatalf("seed %d: prefix crosses keys: %+v", seed, v)
			}
		}
	}
}

func dump(h *history.History) string {
	var s string
	for i := range h.Ops {
		o := &h.Ops[i]
		s += o.Label() + " " + o.Status.String() + " [" + history.IntValue(o.Call).String() + ", " + history.IntValue(o.Return).String() + "]\n"
	}
	return s
}

func TestDifferentialRegister(t *testing.T) {
	t.Parallel()
	differential(t, "register", model.NewRegister)
}

func TestDifferentialCASRegister(t *testing.T) {
	t.Parallel()
	differential(t, "cas-register", model.NewCASRegister)
}

func TestDifferentialKV(t *testing.T) {
	t.Parallel()
	differential(t, "kv", model.NewKV)
}

func TestDifferentialMutex(t *testing.T) {
	t.Parallel()
	differential(t, "mutex", model.NewMutex)
}

// weakenSome weakens each operation with probability 0.4, as shrinking
// does: writes become optional and pending from the start, which is where
// the search skips optional blind writes that nothing observes next.
func weakenSome(r *rand.Rand, h *history.History) *history.History {
	var pos []int
	for i := range h.Ops {
		if r.IntN(5) < 2 {
			pos = append(pos, i)
		}
	}
	return shrink.Weaken(h, pos)
}

func TestDifferentialWeakened(t *testing.T) {
	t.Parallel()
	t.Run("register", func(t *testing.T) { differentialOn(t, "register", model.NewRegister, perModel/2, weakenSome) })
	t.Run("cas-register", func(t *testing.T) {
		differentialOn(t, "cas-register", model.NewCASRegister, perModel/2, weakenSome)
	})
	t.Run("kv", func(t *testing.T) { differentialOn(t, "kv", model.NewKV, perModel/2, weakenSome) })
}

// manyClientsConfig is smallConfig with many clients, each doing one or two
// operations, on two or three values, crashes common: identical operations
// of different clients then overlap, which is where the search takes
// interchangeable operations in one order only (see twins).
func manyClientsConfig(r *rand.Rand, name string) randhist.Config {
	cfg := smallConfig(r, name)
	cfg.Ops = 6 + r.IntN(reference.MaxOps-5)
	cfg.Processes = cfg.Ops/2 + r.IntN(cfg.Ops/2+1)
	cfg.Values = 2 + r.IntN(2)
	cfg.CrashRate = []float64{0.1, 0.3, 0.5}[r.IntN(3)]
	return cfg
}

func TestDifferentialManyClients(t *testing.T) {
	t.Parallel()
	t.Run("register", func(t *testing.T) {
		differentialFrom(t, "register", model.NewRegister, perModel/2, manyClientsConfig, nil)
	})
	t.Run("cas-register", func(t *testing.T) {
		differentialFrom(t, "cas-register", model.NewCASRegister, perModel/2, manyClientsConfig, nil)
	})
}
