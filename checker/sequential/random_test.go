package sequential

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// perModel is how many random histories each model's differential test
// checks against the reference checker (a quarter of them with -short).
const perModel = 10_000

// randomConfig varies size, concurrency, value domain (small: duplicate
// values; large: unique values, where the saturation applies), crashes and
// failures with the seed.
func randomConfig(r *rand.Rand, name string) randhist.Config {
	cfg := randhist.Default(name)
	cfg.Ops = 3 + r.IntN(10) // up to 12, the reference's limit
	cfg.Processes = 1 + r.IntN(5)
	switch r.IntN(3) {
	case 0:
		cfg.Values = 2
	case 1:
		cfg.Values = 4
	default:
		cfg.Values = 50
	}
	cfg.Keys = 1 + r.IntN(3)
	cfg.CrashRate = []float64{0, 0.1, 0.3}[r.IntN(3)]
	cfg.FailRate = []float64{0, 0.1}[r.IntN(2)]
	cfg.Ties = []int{0, 0, 2, 4}[r.IntN(4)]
	if r.IntN(2) == 0 {
		cfg.Init = history.IntValue(0)
	}
	return cfg
}

// mode is one way of running the checker under test.
type mode uint8

const (
	full       mode = iota // Check as users call it
	noLinear               // Check without the linearizability shortcut
	searchOnly             // the exact search alone
)

func TestAgreesWithReference(t *testing.T) {
	models := []struct {
		name string
		run  func(t *testing.T, seed uint64, h *history.History, md mode, nilAny bool) (checker.Verdict, string)
	}{
		{"register", func(t *testing.T, seed uint64, h *history.History, md mode, nilAny bool) (checker.Verdict, string) {
			return agree(t, model.NewRegister(opts(h, nilAny)), h, md)
		}},
		{"cas-register", func(t *testing.T, seed uint64, h *history.History, md mode, nilAny bool) (checker.Verdict, string) {
			return agree(t, model.NewCASRegister(opts(h, nilAny)), h, md)
		}},
		{"kv", func(t *testing.T, seed uint64, h *history.History, md mode, nilAny bool) (checker.Verdict, string) {
			return agree(t, model.NewKV(opts(h, nilAny)), h, md)
		}},
		{"mutex", func(t *testing.T, seed uint64, h *history.History, md mode, nilAny bool) (checker.Verdict, string) {
			return agree(t, model.NewMutex(model.Options{}), h, md)
		}},
	}
	n := perModel
	if testing.Short() {
		n = perModel / 4
	}
	for mi, mc := range models {
		t.Run(mc.name, func(t *testing.T) {
			counts := map[string]int{}
			for i := 0; i < n; i++ {
				seed := uint64(mi)<<32 | uint64(i)
				r := rand.New(rand.NewPCG(seed, 7))
				cfg := randomConfig(r, mc.name)
				h := generate(t, r, cfg)
				md := mode(i % 3)
				nilAny := mc.name == "register" && i%7 == 0
				v, method := mc.run(t, seed, h, md, nilAny)
				if t.Failed() {
					t.Fatalf("seed %d (mode %d, config %+v)", seed, md, cfg)
				}
				counts[fmt.Sprintf("%s/%s", v, method)]++
			}
			t.Logf("verdicts by method: %v", counts)
		})
	}
}

// generate draws a history for cfg and records its initial value in its
// metadata, for opts.
func generate(t *testing.T, r *rand.Rand, cfg randhist.Config) *history.History {
	t.Helper()
	h, err := randhist.New(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.Meta = map[string]history.Value{}
	if !cfg.Init.IsNone() {
		h.Meta["init"] = cfg.Init
	}
	return h
}

// opts reads back the initial value the generator used.
func opts(h *history.History, nilAny bool) model.Options {
	o := model.Options{Init: h.Meta["init"]}
	if nilAny {
		o.NilRead = model.NilIsAny
	}
	return o
}

// agree checks h both ways and fails the test on any disagreement or on a
// witness the independent validator rejects.
func agree[S comparable](t *testing.T, m model.Model[S], h *history.History, md mode) (checker.Verdict, string) {
	t.Helper()
	ctx := context.Background()
	want, err := reference.Sequential(ctx, m, h)
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	var got checker.Result
	switch md {
	case searchOnly:
		c, err := checker.Compile(m, h, nil, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		got = runSearch(ctx, newProblem(m, h, c, m.Info().Keyed), 0, defaultMemoBytes)
	default:
		got, err = Check(ctx, m, h, Options{NoLinearFirst: md == noLinear, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
	}
	if got.Valid != want.Valid {
		t.Errorf("verdict %s by %s, reference says %s\nhistory:\n%s\nviolations: %+v\nreference witness: %s",
			got.Valid, got.Method, want.Valid, dump(h), got.Violations, labels(h, want.Witness))
		return got.Valid, got.Method
	}
	switch got.Valid {
	case checker.True:
		if err := checker.VerifyWitness(m, h, got.Witness, checker.ProcessOrder); err != nil {
			t.Errorf("witness %s by %s: %v\nhistory:\n%s", labels(h, got.Witness), got.Method, err, dump(h))
		}
		placed := len(got.Witness) + len(got.Dropped)
		for i := range h.Ops {
			if h.Ops[i].Status == history.Fail {
				placed++
			}
		}
		if placed != len(h.Ops) {
			t.Errorf("witness and dropped cover %d of %d operations", placed, len(h.Ops))
		}
	case checker.False:
		if len(got.Violations) != 1 || len(got.Violations[0].Ops) == 0 || Explain(h, checker.Sequential, got.Violations[0]) == "" {
			t.Errorf("violation not reported: %+v", got.Violations)
		}
	default:
		t.Errorf("unknown: %s", got.Reason)
	}
	return got.Valid, got.Method
}

func dump(h *history.History) string {
	s := ""
	for i := range h.Ops {
		o := &h.Ops[i]
		ret := fmt.Sprint(o.Return)
		if o.Return == history.Infinity {
			ret = "∞"
		}
		s += fmt.Sprintf("  %d p%d %s [%d,%s] %s\n", i, o.Process, o.Label(), o.Call, ret, o.Status)
	}
	return s
}

// On histories too large for the reference checker, the refutations and
// the search must still agree with each other: a saturation cycle or a
// refuted key must never meet a witness found by the search of the whole.
func TestMethodsAgreeOnLargerHistories(t *testing.T) {
	counts := map[string]int{}
	defer func() {
		t.Logf("verdicts by method: %v", counts)
		if counts["false/saturation"] == 0 || counts["true/search"] == 0 || counts["false/search"] == 0 {
			t.Errorf("the histories did not exercise every method: %v", counts)
		}
		if n := counts["unknown/search"]; n > 0 {
			t.Errorf("%d histories undecided within %d configurations", n, searchNodes)
		}
	}()
	for i := 0; i < 300; i++ {
		seed := uint64(i)
		r := rand.New(rand.NewPCG(seed, 11))
		name := []string{"register", "kv"}[i%2]
		cfg := randhist.Default(name)
		cfg.Ops = 20 + r.IntN(30)
		cfg.Processes = 2 + r.IntN(4)
		cfg.Values = 1000
		cfg.Keys = 1 + r.IntN(3)
		cfg.Corrupt = 0.9
		h, err := randhist.New(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		m := model.NewRegister(model.Options{})
		if name == "kv" {
			m = model.NewKV(model.Options{})
		}
		// Budgets in configurations, not seconds, so that every machine
		// covers the same histories.
		full, err := Check(context.Background(), m, h, Options{NoLinearFirst: true, Workers: 1, MaxNodes: searchNodes})
		if err != nil {
			t.Fatal(err)
		}
		c, err := checker.Compile(m, h, nil, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		alone := runSearch(context.Background(), newProblem(m, h, c, m.Info().Keyed), searchNodes, defaultMemoBytes)
		counts[fmt.Sprintf("%s/%s", full.Valid, full.Method)]++
		if full.Valid == checker.Unknown || alone.Valid == checker.Unknown {
			continue
		}
		if full.Valid != alone.Valid {
			t.Fatalf("seed %d: %s by %s, search alone says %s\n%s\n%+v", seed, full.Valid, full.Method, alone.Valid, dump(h), full.Violations)
		}
		if alone.Valid == checker.True {
			if err := checker.VerifyWitness(m, h, alone.Witness, checker.ProcessOrder); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
	}
}

// searchNodes bounds each search of the random comparisons.
const searchNodes = 200_000
