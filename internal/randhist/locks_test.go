package randhist

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/history"
)

var lockGens = map[string]func(*rand.Rand, Config) *history.History{
	"lock":            Lock,
	"lease":           func(r *rand.Rand, cfg Config) *history.History { return Lease(r, cfg, 8) },
	"fenced-register": FencedRegister,
}

// TestLocksValid checks the pairing rules and that the generators use what
// the models read: tokens, ttl fields, renews, failures and crashes.
func TestLocksValid(t *testing.T) {
	for name, gen := range lockGens {
		r := rand.New(rand.NewPCG(9, 9))
		seen := map[string]int{}
		for n := 0; n < 500; n++ {
			cfg := Default(name)
			cfg.Ops = 1 + r.IntN(10)
			cfg.Processes = 2 + r.IntN(2)
			h := gen(r, cfg)
			if len(h.Ops) == 0 || len(h.Ops) > cfg.Ops {
				t.Fatalf("%s: %d operations for Ops = %d", name, len(h.Ops), cfg.Ops)
			}
			v, err := history.FromOps(h.Ops)
			if err != nil {
				t.Fatalf("%s: history rejected: %v\n%+v", name, err, h.Ops)
			}
			if !reflect.DeepEqual(v.Ops, h.Ops) || v.Processes != h.Processes {
				t.Fatalf("%s: validation changed the history", name)
			}
			for _, o := range h.Ops {
				seen[o.F]++
				seen[o.Status.String()]++
				if !o.Token.IsNone() {
					seen["token"]++
				}
				if len(o.Extra) > 0 {
					seen["ttl"]++
				}
			}
		}
		want := map[string][]string{
			"lock":            {"acquire", "release", "token", "fail", "info"},
			"lease":           {"acquire", "release", "renew", "token", "ttl", "fail", "info"},
			"fenced-register": {"read", "write", "token", "fail", "info"},
		}[name]
		for _, w := range want {
			if seen[w] < 20 {
				t.Errorf("%s: only %d of %s in 500 histories (%v)", name, seen[w], w, seen)
			}
		}
	}
}

func TestLocksDeterministic(t *testing.T) {
	for name, gen := range lockGens {
		a := gen(rand.New(rand.NewPCG(3, 4)), Default(name))
		b := gen(rand.New(rand.NewPCG(3, 4)), Default(name))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: same seed, different histories", name)
		}
	}
}
