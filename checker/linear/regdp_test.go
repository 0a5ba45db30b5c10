package linear

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/sim"
)

// TestManyClientsUseTheSweep: one register, 32 clients, values from 5 —
// the search would not finish; the engine hands it to the register sweep.
func TestManyClientsUseTheSweep(t *testing.T) {
	for _, tc := range []struct {
		anomaly string
		want    checker.Verdict
	}{{"none", checker.True}, {"stale-read", checker.False}} {
		h, err := sim.Random(sim.RandomOptions{Ops: 2000, Clients: 32, Model: "register", CrashRate: 0.01, Anomaly: tc.anomaly, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		m := model.NewRegister(model.Options{Init: history.IntValue(0)})
		res, err := Check(context.Background(), m, h, Options{Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid != tc.want || res.Method != "regdp" {
			t.Errorf("%s: %v by %q (%s), want %v by regdp", tc.anomaly, res.Valid, res.Method, res.Reason, tc.want)
		}
		if res.Valid == checker.False && (len(res.Violations) == 0 || len(res.Violations[0].Ops) == 0) {
			t.Errorf("%s: violation without operations: %+v", tc.anomaly, res.Violations)
		}
	}
}

// TestSweepAgreesWithSearch: registers and kv with repeated values, nil
// reads under both rules, crashed operations: the routed engine and the
// plain search give the same verdicts, and every witness verifies.
func TestSweepAgreesWithSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 3000; i++ {
		name := []string{"register", "kv"}[i%2]
		cfg := randhist.Default(name)
		cfg.Ops = 4 + r.IntN(10)
		cfg.Processes = 1 + r.IntN(5)
		cfg.CrashRate = 0.15
		opts := model.Options{}
		if i%3 == 0 {
			opts.Init = history.IntValue(0)
			cfg.Init = opts.Init
		}
		if i%5 == 0 {
			opts.NilRead = model.NilIsAny
		}
		h, err := randhist.New(r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		newModel := model.NewRegister
		if name == "kv" {
			newModel = model.NewKV
		}
		fast, err := Check(context.Background(), newModel(opts), h, Options{Workers: 1, Verify: true})
		if err != nil {
			t.Fatalf("history %d: %v", i, err)
		}
		slow, err := Check(context.Background(), newModel(opts), h, Options{Workers: 1, NoZones: true})
		if err != nil {
			t.Fatalf("history %d: %v", i, err)
		}
		if fast.Valid != slow.Valid {
			t.Fatalf("history %d (%s): %v by %s, but the search says %v\n%v", i, name, fast.Valid, fast.Method, slow.Valid, h.Ops)
		}
	}
}

// TestSweepNamesNilAsWritten: the sweep gets nil, read and written as a
// plain value, recoded as a value of its own; its explanation still names
// the operations as the history has them, r(nil) and w(nil), and never the
// recoded value.
func TestSweepNamesNilAsWritten(t *testing.T) {
	op := func(c, f string, v history.Value, call, ret int64) history.Op {
		return history.Op{Client: c, F: f, Value: v, Call: call, Return: ret, Status: history.OK}
	}
	nilv, one := history.NilValue, history.IntValue(1)
	h, err := history.FromOps([]history.Op{
		op("A", "write", nilv, 0, 1), op("B", "write", nilv, 0, 1),
		op("A", "write", one, 2, 3), op("B", "write", one, 2, 3),
		op("C", "read", nilv, 4, 5),
	})
	if err != nil {
		t.Fatal(err)
	}
	m := model.NewRegister(model.Options{Init: history.IntValue(0)})
	res, err := Check(context.Background(), m, h, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != checker.False || res.Method != "regdp" || len(res.Violations) != 1 {
		t.Fatalf("%v by %q (%s), want one violation found by regdp", res.Valid, res.Method, res.Reason)
	}
	got := Explain(h, checker.Linearizable, res.Violations[0])
	want := "C:r(nil) cannot take effect: no order of the operations lets the register hold nil at any moment"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "B:w(nil), A:w(nil)") || strings.ContainsRune(got, 0) {
		t.Errorf("explanation %q\nwant it to start %q and name B:w(nil), A:w(nil)", got, want)
	}
}
