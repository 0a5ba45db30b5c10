package isolation_test

import (
	"context"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/isolation"
	"github.com/histcheck/histcheck/sim"
)

// TestConcurrentStore decides the searched levels on histories of 10,000
// transactions from the simulated store, whose clients run concurrently
// (20 sessions, 8 micro-operations per transaction, half reads, 1,000
// keys): unlike a store that runs them one after another, the history's
// order is not a commit order, and some writers' orders chosen first are
// wrong. The search must undo them where they are: taking the choices
// key by key, it gave up on the serializable store's history after
// 200,000,000 steps; sweeping the history it takes about 16,500,000.
// Each verdict is checked against what the store does by construction.
func TestConcurrentStore(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 transactions per store")
	}
	for _, tc := range []struct {
		store string
		want  map[string]bool
	}{
		{sim.IsoSerializable, map[string]bool{isolation.Serializable: true, isolation.SnapshotIsolation: true, isolation.Prefix: true}},
		{sim.IsoSnapshot, map[string]bool{isolation.Serializable: false, isolation.SnapshotIsolation: true}},
		{"write-skew", map[string]bool{isolation.Serializable: false, isolation.SnapshotIsolation: true}},
		{"lost-update", map[string]bool{isolation.SnapshotIsolation: false, isolation.Prefix: true}},
		// A long fork, on keys and in sessions of its own: parallel
		// snapshot isolation holds, decided part by part.
		{sim.IsoLongFork, map[string]bool{isolation.ParallelSnapshot: true, isolation.SnapshotIsolation: false, isolation.Prefix: false}},
	} {
		h, err := sim.Txns(sim.TxnOptions{Txns: 10_000, Clients: 20, Keys: 1000, MaxLength: 8, Ops: 8, ReadRatio: 0.5,
			Registers: true, Isolation: tc.store, Anomalies: 1, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for level, want := range tc.want {
			res, err := isolation.Check(context.Background(), h, level, isolation.Options{Steps: 60_000_000, Verify: true})
			if err != nil {
				t.Fatalf("%s store, %s: %v", tc.store, level, err)
			}
			if got := res.Valid == checker.True; res.Valid == checker.Unknown || got != want {
				t.Errorf("%s store, %s: %s (%s), want %v", tc.store, level, res.Valid, res.Reason, want)
			}
		}
	}
}
