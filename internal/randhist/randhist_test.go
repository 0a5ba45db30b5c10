package randhist

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

var models = []string{"register", "cas-register", "kv", "mutex"}

// TestValid checks the pairing rules on many histories: FromOps accepts
// them unchanged, and no client issues anything after a crash.
func TestValid(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, name := range models {
		for n := 0; n < 500; n++ {
			cfg := Default(name)
			cfg.Ops = 1 + r.IntN(10)
			cfg.CrashRate = 0.2
			cfg.Ties = r.IntN(5)
			h, err := New(r, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(h.Ops) == 0 || len(h.Ops) > cfg.Ops {
				t.Fatalf("%s: %d operations for Ops = %d", name, len(h.Ops), cfg.Ops)
			}
			v, err := history.FromOps(h.Ops)
			if err != nil {
				t.Fatalf("%s: history rejected: %v\n%+v", name, err, h.Ops)
			}
			if !reflect.DeepEqual(v.Ops, h.Ops) || v.Processes != h.Processes || v.Clients != h.Clients {
				t.Fatalf("%s: validation changed the history:\n%+v\n%+v", name, h, v)
			}
			crashed := make(map[string]bool)
			for i, o := range h.Ops {
				if crashed[o.Client] {
					t.Fatalf("%s: %s issued after its client crashed", name, o.Label())
				}
				if o.Status == history.Info {
					crashed[o.Client] = true
				}
				if o.Index != int64(i) {
					t.Fatalf("index %d at position %d", o.Index, i)
				}
				if name == "kv" && o.Key.IsNone() || name != "kv" && !o.Key.IsNone() {
					t.Fatalf("%s: key %v", name, o.Key)
				}
			}
		}
	}
}

// TestTies checks that a coarse clock gives the shapes it is for: ties
// across processes and operations of one process that touch.
func TestTies(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	across, touching := 0, 0
	for n := 0; n < 500; n++ {
		cfg := Default("register")
		cfg.Ops, cfg.Processes, cfg.Ties = 8, 3, 4
		h, err := New(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if h.RealTime().Touching {
			touching++
		}
		ends := map[int64]int{}
		for _, o := range h.Ops {
			ends[o.Call] |= 1 << o.Process
			if o.Return != history.Infinity {
				ends[o.Return] |= 1 << o.Process
			}
		}
		for _, procs := range ends {
			if procs&(procs-1) != 0 {
				across++
				break
			}
		}
	}
	if across < 100 || touching < 100 {
		t.Errorf("of 500 histories, %d tie across processes and %d have touching operations; want 100 or more of each", across, touching)
	}
}

func TestDeterministic(t *testing.T) {
	for _, name := range models {
		a, _ := New(rand.New(rand.NewPCG(3, 4)), Default(name))
		b, _ := New(rand.New(rand.NewPCG(3, 4)), Default(name))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: same seed, different histories", name)
		}
	}
	if _, err := New(rand.New(rand.NewPCG(1, 1)), Config{Model: "queue"}); err == nil {
		t.Error("unknown model accepted")
	}
}

// TestMix checks that the default configuration gives roughly half
// linearizable histories, and that without corruption all are.
func TestMix(t *testing.T) {
	for _, name := range models {
		r := rand.New(rand.NewPCG(5, 5))
		valid := 0
		const n = 400
		for i := 0; i < n; i++ {
			if verdict(t, r, Default(name)) == checker.True {
				valid++
			}
			cfg := Default(name)
			cfg.Corrupt = 0
			if v := verdict(t, r, cfg); v != checker.True {
				t.Fatalf("%s: uncorrupted history is %v", name, v)
			}
		}
		t.Logf("%s: %d of %d linearizable", name, valid, n)
		if valid < n*3/10 || valid > n*7/10 {
			t.Errorf("%s: %d of %d linearizable, want about half", name, valid, n)
		}
	}
}

func verdict(t *testing.T, r *rand.Rand, cfg Config) checker.Verdict {
	t.Helper()
	h, err := New(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var res checker.Result
	ctx := context.Background()
	switch cfg.Model {
	case "register":
		res, err = reference.Linearizable(ctx, model.NewRegister(model.Options{}), h)
	case "cas-register":
		res, err = reference.Linearizable(ctx, model.NewCASRegister(model.Options{}), h)
	case "kv":
		res, err = reference.Linearizable(ctx, model.NewKV(model.Options{}), h)
	case "mutex":
		res, err = reference.Linearizable(ctx, model.NewMutex(model.Options{}), h)
	}
	if err != nil {
		t.Fatal(err)
	}
	return res.Valid
}
