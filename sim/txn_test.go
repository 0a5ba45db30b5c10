package sim

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/history"
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

// TestTxnBrokenStores checks that each store that breaks a level on
// purpose has its history flagged by the Elle-style checks at the level
// the anomaly breaks, with the anomaly Elle names, and that the levels
// the anomaly keeps still hold: the rest of the history is serializable.
func TestTxnBrokenStores(t *testing.T) {
	tests := []struct {
		iso             string
		held            []string
		broken, anomaly string
	}{
		{IsoLostUpdate, []string{elle.MonotonicAtomicView, elle.ReadCommitted}, elle.SnapshotIsolation, "lost-update"},
		{IsoWriteSkew, []string{elle.StrongSnapshotIsolation, elle.SnapshotIsolation}, elle.Serializable, "G2-item"},
		{IsoFracturedRead, []string{elle.CursorStability, elle.ReadCommitted}, elle.MonotonicAtomicView, "fractured-read"},
		{IsoCausalViolation, []string{elle.MonotonicAtomicView, elle.ReadCommitted}, elle.SnapshotIsolation, "G-single-item"},
		{IsoLongFork, []string{elle.MonotonicAtomicView, elle.ReadCommitted}, elle.SnapshotIsolation, "G-nonadjacent-item"},
	}
	for _, tc := range tests {
		for _, registers := range []bool{false, true} {
			for _, anomalies := range []int{1, 3} {
				o := TxnOptions{Txns: 400, Clients: 5, Keys: 4, WritesPerKey: 6, MaxLength: 4, Isolation: tc.iso, Registers: registers,
					FailRate: 0.05, CrashRate: 0.02, Anomalies: anomalies, Seed: 3}
				got := txnVerdicts(t, o, append([]string{tc.broken}, tc.held...)...)
				for _, l := range tc.held {
					if got[l].Valid != checker.True {
						t.Errorf("%s registers=%v: %s is %v, want true: %v", tc.iso, registers, l, got[l].Valid, got[l].Violations)
					}
				}
				if r := got[tc.broken]; r.Valid != checker.False || !hasAnomaly(r, tc.anomaly) {
					t.Errorf("%s registers=%v: %s is %v, want false with %s: %v", tc.iso, registers, tc.broken, r.Valid, tc.anomaly, r.Violations)
				}
			}
			// Without anomalies the store is the serializable one.
			o := TxnOptions{Txns: 400, Clients: 5, Keys: 4, WritesPerKey: 6, MaxLength: 4, Isolation: tc.iso, Registers: registers, Seed: 3}
			if r := txnVerdicts(t, o, elle.StrictSerializable)[elle.StrictSerializable]; r.Valid != checker.True {
				t.Errorf("%s with no anomalies: strict-serializable is %v: %v", tc.iso, r.Valid, r.Violations)
			}
		}
	}
}

// TestTxnWorkloads checks the workload settings: every transaction has
// --ops micro-operations, reads come at --read-ratio, Zipf keys are
// skewed towards the first, the TPC-C-like mix has TPC-C's shares; and
// each store keeps its level under them.
func TestTxnWorkloads(t *testing.T) {
	base := TxnOptions{Txns: 2000, Clients: 20, Keys: 50, WritesPerKey: 0, MaxLength: 4, Registers: true, Isolation: IsoSerializable, Seed: 5}
	tests := []struct {
		name string
		set  func(*TxnOptions)
		want func(t *testing.T, ops [][]txnMop)
	}{
		{"ops", func(o *TxnOptions) { o.Ops = 8 }, func(t *testing.T, ops [][]txnMop) {
			for _, m := range ops {
				if len(m) != 8 {
					t.Fatalf("a transaction of %d micro-operations, want 8", len(m))
				}
			}
		}},
		{"read-ratio", func(o *TxnOptions) { o.Ops, o.ReadRatio = 8, 0.9 }, func(t *testing.T, ops [][]txnMop) {
			if r := share(ops, func(m txnMop) bool { return m.f == "r" }); r < 0.87 || r > 0.93 {
				t.Errorf("reads are %.3f of micro-operations, want 0.9", r)
			}
		}},
		{"uniform", func(o *TxnOptions) { o.Ops = 8 }, func(t *testing.T, ops [][]txnMop) {
			if r := share(ops, func(m txnMop) bool { return m.key < 5 }); r > 0.13 {
				t.Errorf("the first 5 of 50 keys take %.3f of micro-operations, want about 0.1", r)
			}
		}},
		{"zipf", func(o *TxnOptions) { o.Ops, o.Zipf = 8, 1 }, func(t *testing.T, ops [][]txnMop) {
			// Zipf(1) over 50 keys gives the first 5 about 0.51.
			if r := share(ops, func(m txnMop) bool { return m.key < 5 }); r < 0.45 || r > 0.57 {
				t.Errorf("the first 5 of 50 keys take %.3f of micro-operations, want about 0.51", r)
			}
		}},
		{"tpcc", func(o *TxnOptions) { o.TPCC, o.Warehouses = true, 2 }, func(t *testing.T, ops [][]txnMop) {
			// New orders, and only they, have 14 micro-operations; payments 6
			// with 3 writes.
			n, p := 0, 0
			for _, m := range ops {
				writes := 0
				for _, x := range m {
					if x.f == "w" {
						writes++
					}
				}
				switch {
				case len(m) == 14:
					n++
				case len(m) == 6 && writes == 3:
					p++
				}
			}
			if f := float64(n) / float64(len(ops)); f < 0.41 || f > 0.49 {
				t.Errorf("new orders are %.3f of transactions, want 0.45", f)
			}
			if f := float64(p) / float64(len(ops)); f < 0.39 || f > 0.47 {
				t.Errorf("payments are %.3f of transactions, want 0.43", f)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := base
			tc.set(&o)
			h, err := Txns(o)
			if err != nil {
				t.Fatal(err)
			}
			tc.want(t, txnMops(t, h))
			for iso, level := range map[string]string{IsoSerializable: elle.StrictSerializable, IsoSnapshot: elle.SnapshotIsolation, IsoReadCommitted: elle.ReadCommitted} {
				o.Isolation, o.Txns = iso, 500
				if r := txnVerdicts(t, o, level)[level]; r.Valid != checker.True {
					t.Errorf("%s: %s is %v, want true: %v", iso, level, r.Valid, r.Violations)
				}
			}
		})
	}
}

// txnMop is a micro-operation as the tests look at it.
type txnMop struct {
	f   string
	key int64
}

func txnMops(t *testing.T, h *history.History) [][]txnMop {
	t.Helper()
	var out [][]txnMop
	for _, o := range h.Ops {
		var ms []txnMop
		for _, m := range o.Value.Elems() {
			e := m.Elems()
			f, _ := e[0].Str()
			k, _ := e[1].Int()
			ms = append(ms, txnMop{f, k})
		}
		out = append(out, ms)
	}
	return out
}

// share is the fraction of micro-operations for which pred holds.
func share(ops [][]txnMop, pred func(txnMop) bool) float64 {
	n, yes := 0, 0
	for _, ms := range ops {
		for _, m := range ms {
			n++
			if pred(m) {
				yes++
			}
		}
	}
	return float64(yes) / float64(n)
}
