package sim

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

var init0 = model.Options{Init: history.IntValue(0)}

// referenceVerdict decides a small history with the exhaustive checker.
func referenceVerdict(t *testing.T, modelName string, h *history.History) checker.Verdict {
	t.Helper()
	ctx := context.Background()
	var res checker.Result
	var err error
	switch modelName {
	case "register":
		res, err = reference.Linearizable(ctx, model.NewRegister(init0), h)
	case "cas-register":
		res, err = reference.Linearizable(ctx, model.NewCASRegister(init0), h)
	case "kv":
		res, err = reference.Linearizable(ctx, model.NewKV(init0), h)
	}
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	return res.Valid
}

// wglVerdict decides a history with the WGL checker.
func wglVerdict(t *testing.T, modelName string, h *history.History) checker.Verdict {
	t.Helper()
	switch modelName {
	case "register":
		return linearizable(t, model.NewRegister(init0), h).Valid
	case "cas-register":
		return linearizable(t, model.NewCASRegister(init0), h).Valid
	}
	return linearizable(t, model.NewKV(init0), h).Valid
}

func TestRandomDeterministic(t *testing.T) {
	o := RandomOptions{Ops: 500, Clients: 4, Keys: 3, Model: "kv", CrashRate: 0.1, Anomaly: "stale-read", Seed: 9}
	a, err := Random(o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Random(o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs with one seed differ")
	}
	o.Seed = 10
	c, err := Random(o)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Ops, c.Ops) {
		t.Error("seeds 9 and 10 give the same history")
	}
}

func TestRandomShape(t *testing.T) {
	h, err := Random(RandomOptions{Ops: 5000, Clients: 6, Keys: 4, Model: "kv", CrashRate: 0.05, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	c := h.Counts()
	if len(h.Ops) != 5000 || c.Info < 100 || c.Info > 400 || c.Fail == 0 {
		t.Errorf("%d ops, %+v; want 5000 with about 250 info and some failed cas", len(h.Ops), c)
	}
	if len(h.Warnings) != 0 {
		t.Errorf("warnings: %v", h.Warnings)
	}
	// A crashed client continues under a new name: one process per name.
	if h.Processes != h.Clients || h.Processes != 6+c.Info {
		t.Errorf("%d processes, %d clients, %d info; want 6 + info each", h.Processes, h.Clients, c.Info)
	}
	keys := map[history.Value]bool{}
	overlaps := 0
	for i, o := range h.Ops {
		keys[o.Key] = true
		if o.Index != int64(i) {
			t.Fatalf("op %d has index %d", i, o.Index)
		}
		if i > 0 && o.Call < h.Ops[i-1].Return {
			overlaps++
		}
	}
	if len(keys) != 4 || overlaps < 1000 {
		t.Errorf("%d keys, %d overlapping neighbours", len(keys), overlaps)
	}
	if m, _ := h.Meta["model"].Str(); m != "kv" || h.Meta["init"] != history.IntValue(0) {
		t.Errorf("meta %v", h.Meta)
	}
}

func TestRandomBadOptions(t *testing.T) {
	for _, o := range []RandomOptions{
		{Ops: 10, Clients: 2, Model: "queue"},
		{Ops: -1, Clients: 2, Model: "register"},
		{Ops: 10, Clients: 0, Model: "register"},
		{Ops: 10, Clients: 2, Model: "kv"},
		{Ops: 10, Clients: 2, Model: "register", CrashRate: 1},
		{Ops: 10, Clients: 2, Model: "register", Anomaly: "dirty-read"},
		{Ops: 2, Clients: 2, Model: "register", Anomaly: "stale-read"},
	} {
		if _, err := Random(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestRandomSmallAgainstReference checks small workloads with the
// exhaustive checker: linearizable as generated, not with an anomaly.
func TestRandomSmallAgainstReference(t *testing.T) {
	models := []string{"register", "cas-register", "kv"}
	for seed := uint32(1); seed <= 60; seed++ {
		for _, m := range models {
			for _, anomaly := range []string{"none", "stale-read", "lost-update"} {
				o := RandomOptions{Ops: 10, Clients: 3, Keys: 2, Model: m, Anomaly: anomaly, Seed: seed,
					UniqueValues: seed%2 == 0, CrashRate: float64(seed%3) * 0.1}
				h, err := Random(o)
				if err != nil {
					t.Fatalf("%+v: %v", o, err)
				}
				if c := h.Counts(); c.OK+c.Info > reference.MaxOps {
					t.Fatalf("%+v: %d operations for the reference checker", o, c.OK+c.Info)
				}
				want := checker.False
				if anomaly == "none" {
					want = checker.True
				}
				if got := referenceVerdict(t, m, h); got != want {
					t.Fatalf("%+v: linearizable = %v, want %v\n%s", o, got, want, dump(h))
				}
			}
		}
	}
}

func TestRandomLargeWithWGL(t *testing.T) {
	for _, m := range []string{"register", "cas-register", "kv"} {
		for _, anomaly := range []string{"none", "stale-read", "lost-update"} {
			o := RandomOptions{Ops: 3000, Clients: 5, Keys: 8, Model: m, Anomaly: anomaly, Seed: 77, UniqueValues: true, CrashRate: 0.02}
			h, err := Random(o)
			if err != nil {
				t.Fatal(err)
			}
			want := checker.False
			if anomaly == "none" {
				want = checker.True
			}
			if got := wglVerdict(t, m, h); got != want {
				t.Errorf("%s %s: linearizable = %v, want %v", m, anomaly, got, want)
			}
		}
	}
}

// TestRandomScales generates a million operations (100,000 with -short).
// The time it took is logged, not asserted: tests do not fail on
// wall-clock time.
func TestRandomScales(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	start := time.Now()
	h, err := Random(RandomOptions{Ops: n, Clients: 20, Keys: 100, Model: "kv", CrashRate: 0.01, UniqueValues: true, Anomaly: "stale-read", Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != n {
		t.Fatalf("%d ops, want %d", len(h.Ops), n)
	}
	t.Logf("%d operations generated in %v", n, time.Since(start).Round(time.Millisecond))
}

func dump(h *history.History) string {
	s := ""
	for _, o := range h.Ops {
		ret := fmt.Sprint(o.Return)
		if o.Return == history.Infinity {
			ret = "?"
		}
		s += fmt.Sprintf("%s [%d, %s] %s\n", o.Label(), o.Call, ret, o.Status)
	}
	return s
}

func BenchmarkRandom(b *testing.B) {
	for b.Loop() {
		if _, err := Random(RandomOptions{Ops: 100_000, Clients: 10, Keys: 10, Model: "kv", CrashRate: 0.01, UniqueValues: true, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
