package reference

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// naive decides the criterion by trying every sequence of distinct
// operations that contains all completed ones, checking each in full: the
// order constraint pair by pair, then a replay with one state per key.
func naive[S comparable](t *testing.T, m model.Model[S], h *history.History, ord checker.Order) bool {
	t.Helper()
	c, err := checker.Compile(m, h, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	init := m.Init(c.Table)
	keyed := m.Info().Keyed
	n := len(c.Ops)
	legal := func(seq []int) bool {
		for a := range seq {
			for b := a + 1; b < len(seq); b++ {
				x, y := &h.Ops[c.Pos[seq[a]]], &h.Ops[c.Pos[seq[b]]]
				if ord == checker.RealTime && y.Return < x.Call {
					return false
				}
				if ord == checker.ProcessOrder && x.Process == y.Process && y.Call < x.Call {
					return false
				}
			}
		}
		states := make(map[history.Value]S)
		for _, i := range seq {
			var k history.Value
			if keyed {
				k = h.Ops[c.Pos[i]].Key
			}
			s, ok := states[k]
			if !ok {
				s = init
			}
			next, ok := m.Step(s, &c.Ops[i])
			if !ok {
				return false
			}
			states[k] = next
		}
		return true
	}
	used := make([]bool, n)
	var seq []int
	var try func() bool
	try = func() bool {
		complete := true
		for i := range c.Ops {
			if !c.Ops[i].Unknown && !used[i] {
				complete = false
			}
		}
		if complete && legal(seq) {
			return true
		}
		for i := 0; i < n; i++ {
			if used[i] {
				continue
			}
			used[i] = true
			seq = append(seq, i)
			if try() {
				return true
			}
			seq = seq[:len(seq)-1]
			used[i] = false
		}
		return false
	}
	return try()
}

// randomConfig draws a generator configuration and matching model
// options.
func randomConfig(r *rand.Rand, name string) (randhist.Config, model.Options) {
	cfg := randhist.Config{
		Model:     name,
		Ops:       1 + r.IntN(6),
		Processes: 1 + r.IntN(4),
		Values:    1 + r.IntN(4),
		Keys:      1 + r.IntN(2),
		CrashRate: 0.15,
		FailRate:  0.1,
		Corrupt:   0.8,
	}
	var opts model.Options
	switch r.IntN(3) {
	case 1:
		if name == "kv" {
			cfg.Init = history.StringValue("")
		} else {
			cfg.Init = history.IntValue(0)
		}
		opts.Init = cfg.Init
	case 2:
		opts.NilRead = model.NilIsAny
	}
	return cfg, opts
}

// TestAgainstNaive cross-checks both criteria of the reference with the
// naive enumeration on random tiny histories, and every witness with
// VerifyWitness.
func TestAgainstNaive(t *testing.T) {
	const perModel = 4000
	for _, name := range []string{"register", "cas-register", "kv", "mutex"} {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(name))))
			var counts [3][3]int // [criterion][verdict]; [2] counts lin false, seq true
			for n := 0; n < perModel; n++ {
				cfg, opts := randomConfig(r, name)
				h, err := randhist.New(r, cfg)
				if err != nil {
					t.Fatal(err)
				}
				switch name {
				case "register":
					crossCheck(t, model.NewRegister(opts), h, &counts)
				case "cas-register":
					crossCheck(t, model.NewCASRegister(opts), h, &counts)
				case "kv":
					crossCheck(t, model.NewKV(opts), h, &counts)
				case "mutex":
					crossCheck(t, model.NewMutex(opts), h, &counts)
				}
				if t.Failed() {
					t.Fatalf("history %d: %+v", n, h.Ops)
				}
			}
			if sc := counts[2][checker.True]; sc < perModel/100 {
				t.Errorf("only %d histories sequential but not linearizable", sc)
			}
			// Both verdicts must be well represented, or the cross-check
			// proves little.
			for c, crit := range []string{"linearizable", "sequential"} {
				tr, fa := counts[c][checker.True], counts[c][checker.False]
				t.Logf("%s: %d true, %d false", crit, tr, fa)
				if tr < perModel/5 || fa < perModel/10 {
					t.Errorf("%s: %d true and %d false verdicts: too lopsided", crit, tr, fa)
				}
			}
		})
	}
}

func crossCheck[S comparable](t *testing.T, m model.Model[S], h *history.History, counts *[3][3]int) {
	t.Helper()
	var verdicts [2]checker.Verdict
	defer func() {
		if verdicts[0] == checker.False {
			counts[2][verdicts[1]]++
		}
	}()
	for c, ord := range []checker.Order{checker.RealTime, checker.ProcessOrder} {
		check := Linearizable[S]
		if ord == checker.ProcessOrder {
			check = Sequential[S]
		}
		res, err := check(context.Background(), m, h)
		if err != nil {
			t.Fatal(err)
		}
		counts[c][res.Valid]++
		verdicts[c] = res.Valid
		want := naive(t, m, h, ord)
		if got := res.Valid == checker.True; got != want {
			t.Errorf("%s: reference says %v, naive enumeration says %v", res.Criterion, res.Valid, want)
			return
		}
		if res.Valid == checker.False {
			if len(res.Violations) != 1 || len(res.Violations[0].Ops) == 0 || report.Explain(h, res.Criterion, res.Violations[0]) == "" {
				t.Errorf("%s: violation %+v", res.Criterion, res.Violations)
			}
			last := res.Violations[0].Ops[len(res.Violations[0].Ops)-1]
			if h.Ops[last].Status != history.OK {
				t.Errorf("%s: violation names %s, whose outcome is not known", res.Criterion, h.Ops[last].Label())
			}
		}
		if res.Valid == checker.True {
			if err := checker.VerifyWitness(m, h, res.Witness, ord); err != nil {
				t.Errorf("%s: witness %s rejected: %v", res.Criterion, labels(h, res.Witness), err)
			}
			if len(res.Witness)+len(res.Dropped) != res.Stats.Ops {
				t.Errorf("%s: witness %v and dropped %v do not cover %d operations", res.Criterion, res.Witness, res.Dropped, res.Stats.Ops)
			}
		}
	}
}

// TestPruning checks each model's Pruner: the reference (which never
// prunes) gives the same verdicts on a history and on the history without
// the operations the Pruner drops.
func TestPruning(t *testing.T) {
	for _, name := range []string{"register", "cas-register", "kv"} {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(2, uint64(len(name))))
			dropped := 0
			for n := 0; n < 2000; n++ {
				cfg, opts := randomConfig(r, name)
				cfg.Ops = 1 + r.IntN(8)
				cfg.CrashRate = 0.3
				h, err := randhist.New(r, cfg)
				if err != nil {
					t.Fatal(err)
				}
				switch name {
				case "register":
					dropped += comparePruned(t, model.NewRegister(opts), h)
				case "cas-register":
					dropped += comparePruned(t, model.NewCASRegister(opts), h)
				case "kv":
					dropped += comparePruned(t, model.NewKV(opts), h)
				}
				if t.Failed() {
					t.Fatalf("history %d: %+v", n, h.Ops)
				}
			}
			if dropped < 200 {
				t.Errorf("only %d operations pruned: the test has no bite", dropped)
			}
		})
	}
}

func comparePruned[S comparable](t *testing.T, m model.Model[S], h *history.History) int {
	t.Helper()
	c, err := checker.Compile(m, h, nil, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Dropped) == 0 {
		return 0
	}
	gone := make(map[int]bool)
	for _, p := range c.Dropped {
		if h.Ops[p].Status != history.Info {
			t.Fatalf("pruned %s, whose outcome is known", h.Ops[p].Label())
		}
		gone[p] = true
	}
	pruned := &history.History{Processes: h.Processes, Clients: h.Clients}
	for i := range h.Ops {
		if !gone[i] {
			pruned.Ops = append(pruned.Ops, h.Ops[i])
		}
	}
	for _, check := range []func(context.Context, model.Model[S], *history.History) (checker.Result, error){Linearizable[S], Sequential[S]} {
		full, err1 := check(context.Background(), m, h)
		part, err2 := check(context.Background(), m, pruned)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if full.Valid != part.Valid {
			t.Errorf("%s: %v on the history, %v after pruning %d operations", full.Criterion, full.Valid, part.Valid, len(c.Dropped))
		}
	}
	return len(c.Dropped)
}
