package sim

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
)

// txnVerdicts checks a simulated store's history at the given levels and
// returns, per level, the verdict and the anomalies that rule it out.
func txnVerdicts(t *testing.T, o TxnOptions, levels ...string) map[string]checker.Result {
	t.Helper()
	h, err := Txns(o)
	if err != nil {
		t.Fatal(err)
	}
	w := elle.ListAppend
	if o.Registers {
		w = elle.RWRegister
	}
	a, err := elle.Analyze(context.Background(), h, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]checker.Result{}
	for _, l := range levels {
		r, err := a.Result(h, l)
		if err != nil {
			t.Fatal(err)
		}
		out[l] = r
	}
	return out
}

func hasAnomaly(r checker.Result, name string) bool {
	for _, v := range r.Violations {
		if v.Pattern == name {
			return true
		}
	}
	return false
}

// TestTxnStoreKeepsItsLevel checks, over many seeds and both workloads,
// with failed and crashed transactions, that each store's history holds
// the level the store implements: the store is what it says it is.
func TestTxnStoreKeepsItsLevel(t *testing.T) {
	holds := map[string]string{
		IsoSerializable:  elle.StrictSerializable,
		IsoSnapshot:      elle.SnapshotIsolation,
		IsoReadCommitted: elle.ReadCommitted,
	}
	seeds := 30
	if testing.Short() {
		seeds = 8
	}
	for iso, level := range holds {
		for _, registers := range []bool{false, true} {
			for seed := 1; seed <= seeds; seed++ {
				o := TxnOptions{Txns: 300, Clients: 2 + seed%5, Keys: 1 + seed%4, WritesPerKey: 3 + seed%6, MaxLength: 1 + seed%5,
					Isolation: iso, Registers: registers, FailRate: 0.05, CrashRate: 0.05, Seed: uint32(seed)}
				r := txnVerdicts(t, o, level)[level]
				if r.Valid != checker.True {
					t.Errorf("%+v: %s is %v, want true: %v", o, level, r.Valid, r.Violations)
				}
			}
		}
	}
}

// TestTxnScenarioLevels checks what each level of the default run shows:
// write skew (G2-item) under snapshot isolation, lost updates under read
// committed, aborted reads under the broken store.
func TestTxnScenarioLevels(t *testing.T) {
	tests := []struct {
		iso       string
		registers bool
		// held and broken levels, with an anomaly that must rule the
		// broken one out.
		held   []string
		broken map[string]string
	}{
		{IsoSerializable, false, []string{elle.StrictSerializable, elle.ReadUncommitted}, nil},
		{IsoSerializable, true, []string{elle.StrictSerializable, elle.ReadUncommitted}, nil},
		{IsoSnapshot, false, []string{elle.SnapshotIsolation, elle.ReadCommitted},
			map[string]string{elle.Serializable: "G2-item", elle.RepeatableRead: "G2-item"}},
		{IsoSnapshot, true, []string{elle.SnapshotIsolation, elle.ReadCommitted},
			map[string]string{elle.Serializable: "G2-item", elle.RepeatableRead: "G2-item"}},
		{IsoReadCommitted, false, []string{elle.ReadCommitted, elle.ReadUncommitted},
			map[string]string{elle.SnapshotIsolation: "lost-update", elle.RepeatableRead: "lost-update"}},
		{IsoReadCommitted, true, []string{elle.ReadCommitted, elle.ReadUncommitted},
			map[string]string{elle.SnapshotIsolation: "lost-update", elle.RepeatableRead: "lost-update"}},
		{IsoBroken, false, nil, map[string]string{elle.ReadCommitted: "G1a", elle.ReadUncommitted: "G0"}},
		{IsoBroken, true, []string{elle.ReadUncommitted}, map[string]string{elle.ReadCommitted: "G1a"}},
	}
	s, _ := Lookup("txn")
	for _, tc := range tests {
		workload := map[bool]string{false: "list-append", true: "rw-register"}[tc.registers]
		v, err := flagValues(s.Flags, Params{"isolation": tc.iso, "workload": workload})
		if err != nil {
			t.Fatal(err)
		}
		o, err := txnOptions(v)
		if err != nil {
			t.Fatal(err)
		}
		levels := append([]string(nil), tc.held...)
		for l := range tc.broken {
			levels = append(levels, l)
		}
		got := txnVerdicts(t, o, levels...)
		for _, l := range tc.held {
			if got[l].Valid != checker.True {
				t.Errorf("%s %s: %s is %v, want true: %v", tc.iso, workload, l, got[l].Valid, got[l].Violations)
			}
		}
		for l, anomaly := range tc.broken {
			if got[l].Valid != checker.False || !hasAnomaly(got[l], anomaly) {
				t.Errorf("%s %s: %s is %v, want false with %s: %v", tc.iso, workload, l, got[l].Valid, anomaly, got[l].Violations)
			}
		}
		out, err := s.Run(Params{"isolation": tc.iso, "workload": workload})
		if err != nil {
			t.Fatal(err)
		}
		if want := verdictOf(tc.iso == IsoSerializable); out.Expect != want || !strings.Contains(out.Table, "| "+tc.iso+" | "+workload+" |") {
			t.Errorf("%s %s: the scenario expects %s, want %s:\n%s", tc.iso, workload, out.Expect, want, out.Table)
		}
	}
}

// TestTxnDeterministic checks that a seed gives one history, and another
// seed another.
func TestTxnDeterministic(t *testing.T) {
	o := TxnOptions{Txns: 200, Clients: 4, Keys: 3, WritesPerKey: 5, MaxLength: 3, Isolation: IsoSnapshot, FailRate: 0.1, CrashRate: 0.1, Seed: 7}
	a, err := Txns(o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Txns(o)
	if !reflect.DeepEqual(a.Ops, b.Ops) {
		t.Error("one seed gave two histories")
	}
	o.Seed = 8
	c, _ := Txns(o)
	if reflect.DeepEqual(a.Ops, c.Ops) {
		t.Error("two seeds gave one history")
	}
}

func TestTxnBadFlags(t *testing.T) {
	s, _ := Lookup("txn")
	for _, p := range []Params{{"isolation": "chaos"}, {"workload": "queue"}, {"txns": "0"}, {"fail-rate": "1"}, {"crash-rate": "x"}, {"colour": "red"}} {
		if _, err := s.Run(p); err == nil {
			t.Errorf("%v: no error", p)
		}
	}
	if _, err := Txns(TxnOptions{Txns: 1, Clients: 1, Keys: 1, WritesPerKey: 1, MaxLength: 1, Isolation: "none"}); err == nil {
		t.Error("unknown isolation: no error")
	}
}
