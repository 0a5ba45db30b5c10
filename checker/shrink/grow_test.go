package shrink

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/sim"
)

// TestGrownIsRelaxation checks that the small histories growing and
// dropUnobserved check are relaxations of the original: on random
// histories the reference finds linearizable, the history that keeps a
// random set of operations (grown), and one with random operations
// weakened and the surplus writes dropped (surplus), are linearizable too.
// Were either not, a core could fail where the original does not.
func TestGrownIsRelaxation(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(5, 23))
	models := []string{"register", "cas-register", "kv"}
	checked := map[string]int{}
	total := 0
	for tried := 0; total < 3000 && tried < 60000; tried++ {
		name := models[tried%len(models)]
		cfg := randhist.Default(name)
		cfg.Ops = 4 + r.IntN(reference.MaxOps-3)
		cfg.Processes = 2 + r.IntN(4)
		cfg.Values = []int{2, 3, 5}[r.IntN(3)]
		cfg.Corrupt = 0
		cfg.Ties = []int{0, 0, 2}[r.IntN(3)]
		h, check, keyed := randomHistory(t, r, name, cfg)
		if res, err := check(ctx, h); err != nil || res.Valid != checker.True {
			continue
		}
		s := &shrinker{ctx: ctx, h: h, m: registerInfo(keyed), check: check, criterion: checker.Linearizable,
			standIn: standIn(h, checker.Linearizable)}
		s.forms = make([]form, len(h.Ops))
		for i := range h.Ops {
			s.forms[i] = kept
			if h.Ops[i].Status == history.Fail || h.Ops[i].Status == history.Info && isRead(s.m, &h.Ops[i]) {
				s.forms[i] = dropped
			}
		}
		var keep []int
		weakened := append([]form(nil), s.forms...)
		for i := range h.Ops {
			if r.IntN(3) == 0 {
				keep = append(keep, i)
			} else if weakened[i] != dropped && r.IntN(2) == 0 {
				weakened[i] = weakForm(s.m, &h.Ops[i])
			}
		}
		sur, ok := s.surplus(weakened)
		if !ok {
			continue // appends: neither applies
		}
		for what, forms := range map[string][]form{"grown": s.grown(keep), "surplus": sur} {
			hh, _ := buildFor(h, s.m, forms)
			res, err := check(ctx, hh)
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid != checker.True {
				t.Fatalf("%s history %d: the %s history is %v, the original linearizable\n%s\nreduced:\n%s",
					name, tried, what, res.Valid, labels(h, all(h)), labels(hh, all(hh)))
			}
		}
		checked[name]++
		total++
	}
	if total < 3000 || checked["kv"] < 100 {
		t.Fatalf("only %v linearizable histories of reads, writes and cas", checked)
	}
	t.Logf("%v", checked)
}

func all(h *history.History) []int {
	out := make([]int, len(h.Ops))
	for i := range out {
		out[i] = i
	}
	return out
}

// TestGrowLongHistories shrinks long histories with many clients and one
// stale read, where whittling the whole history leaves thousands of
// weakened writes to check: the core grows from the failing read instead,
// and is small and shown minimal.
func TestGrowLongHistories(t *testing.T) {
	cases := []struct {
		model   string
		clients int
		ops     int
	}{
		{"register", 32, 2000},
		{"register", 64, 5000},
		{"kv", 32, 5000},
	}
	if testing.Short() {
		cases = cases[:1]
	}
	ctx := context.Background()
	for _, c := range cases {
		h, err := sim.Random(sim.RandomOptions{Model: c.model, Clients: c.clients, Ops: c.ops, Keys: 10, CrashRate: 0.02,
			Anomaly: "stale-read", Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		init := h.Meta["init"]
		m := model.NewRegister(model.Options{Init: init})
		if c.model == "kv" {
			m = model.NewKV(model.Options{Init: init})
		}
		check := linearChecker(m)
		core, err := MinimizeFor(ctx, h, m.Info(), check)
		if err != nil {
			t.Fatalf("%s, %d clients: %v", c.model, c.clients, err)
		}
		if core.Size() > 20 || !core.Minimal {
			t.Errorf("%s, %d clients: core of %d operations, minimal %v", c.model, c.clients, core.Size(), core.Minimal)
		}
		if err := coreError(ctx, check, core); err != nil {
			t.Errorf("%s, %d clients: %v\n%s", c.model, c.clients, err, labels(h, core.Ops))
		}
		t.Logf("%s, %d clients, %d ops: core of %d (%d weakened) in %d checks", c.model, c.clients, c.ops, core.Size(), len(core.Weakened), core.Checks)
	}
}
