package linear

import (
	"context"
	"math/rand"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// pInput is an operation's input as the Porcupine models below see it.
type pInput struct {
	f       string
	key     history.Value
	a, b    history.Value
	unknown bool
}

// porcupineOps converts a history the way Porcupine users do: failed
// operations left out, and an operation of unknown outcome returns at the
// end of time with a model that accepts any output for it.
func porcupineOps(h *history.History) []porcupine.Operation {
	var out []porcupine.Operation
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Status == history.Fail {
			continue
		}
		in := pInput{f: o.F, key: o.Key, a: o.Value, unknown: o.Status == history.Info}
		if o.F == "cas" {
			e := o.Value.Elems()
			in.a, in.b = e[0], e[1]
		}
		out = append(out, porcupine.Operation{ClientId: o.Process, Input: in, Call: o.Call,
			Output: o.Value, Return: o.Return})
	}
	return out
}

// porcupineModel is a register, CAS register or (per key, with append) a
// key-value store starting at init.
func porcupineModel(init history.Value, keyedKV bool) porcupine.Model {
	m := porcupine.Model{
		Init: func() interface{} { return init },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			s := state.(history.Value)
			in := input.(pInput)
			switch in.f {
			case "read", "get":
				return in.unknown || output.(history.Value) == s, s
			case "write", "put":
				return true, in.a
			case "cas":
				if s == in.a {
					return true, in.b
				}
				return in.unknown, s
			case "append":
				str, _ := s.Str()
				return true, history.StringValue(str + in.a.Text())
			}
			return false, s
		},
	}
	if keyedKV {
		m.Partition = func(ops []porcupine.Operation) [][]porcupine.Operation {
			idx := map[history.Value]int{}
			var parts [][]porcupine.Operation
			for _, o := range ops {
				k := o.Input.(pInput).key
				i, ok := idx[k]
				if !ok {
					i = len(parts)
					idx[k] = i
					parts = append(parts, nil)
				}
				parts[i] = append(parts[i], o)
			}
			return parts
		}
	}
	return m
}

func porcupineVerdict(r porcupine.CheckResult) checker.Verdict {
	switch r {
	case porcupine.Ok:
		return checker.True
	case porcupine.Illegal:
		return checker.False
	}
	return checker.Unknown
}

// TestAgainstPorcupine compares verdicts with Porcupine on random medium
// histories (50–300 operations, 2–6 clients) of the register, the CAS
// register, the key-value store, and a register of distinct values that
// writes its initial value again. With -short it checks the first 40
// seeds of each (Porcupine alone takes seconds on a CAS register history
// among the later ones).
func TestAgainstPorcupine(t *testing.T) {
	kinds := []struct {
		name string
		kind genKind
		m    model.Model[int64]
		init history.Value
	}{
		{"register", genRegister, model.NewRegister(model.Options{Init: i64(0)}), i64(0)},
		{"cas-register", genCAS, model.NewCASRegister(model.Options{Init: i64(0)}), i64(0)},
		{"kv", genKV, nil, history.StringValue("")},
		{"register-init-rewrites", genRewrites, model.NewRegister(model.Options{Init: i64(0)}), i64(0)},
	}
	perKind := 170
	if testing.Short() || raceEnabled {
		perKind = 40
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			perKind := perKind
			if k.kind == genRewrites {
				// Porcupine takes seconds on some of the later ones.
				perKind = min(perKind, 80)
			}
			counts := map[checker.Verdict]int{}
			for seed := int64(0); seed < int64(perKind); seed++ {
				r := rand.New(rand.NewSource(seed*7919 + int64(k.kind)))
				n, c := 50+r.Intn(251), 2+r.Intn(5)
				h, err := history.FromOps(genMedium(r, k.kind, n, c))
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				m := k.m
				if k.kind == genKV {
					m = model.NewKV(model.Options{Init: k.init})
				}
				// No time limit (0): Porcupine decides every one of these,
				// in seconds at worst, and a verdict must not depend on
				// how loaded the machine is.
				want := porcupineVerdict(porcupine.CheckOperationsTimeout(porcupineModel(k.init, k.kind == genKV), porcupineOps(h), 0))
				got, err := Check(context.Background(), m, h, Options{Verify: true})
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if got.Valid != want {
					t.Fatalf("seed %d (%d ops, %d clients): verdict %v, porcupine says %v", seed, n, c, got.Valid, want)
				}
				counts[want]++
			}
			// The generator must exercise both outcomes, or the comparison
			// proves little.
			if counts[checker.True] < perKind/10 || counts[checker.False] < perKind/10 {
				t.Errorf("verdicts too one-sided: %v", counts)
			}
			t.Logf("%v", counts)
		})
	}
}
