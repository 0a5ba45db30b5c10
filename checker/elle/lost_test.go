package elle

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// TestLostUpdatesAgainstReference compares the lost updates with those
// of a plain reading of their definition, on random transactions of one
// to twenty micro-operations (past the keys searched in turn), with
// reads after writes, repeated keys, nil reads, and failed and crashed
// transactions.
func TestLostUpdatesAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(34, 1))
	statuses := []history.Type{history.OK, history.OK, history.OK, history.Fail, history.Info}
	found := 0
	for round := range 2000 {
		txns := make([]txn.Txn, 1+rng.IntN(12))
		keys := 1 + rng.IntN(12)
		for i := range txns {
			mops := make([]txn.Mop, 1+rng.IntN(20))
			for j := range mops {
				m := &mops[j]
				m.Kind = txn.Kind(rng.IntN(3))
				m.Key = history.IntValue(int64(rng.IntN(keys)))
				m.Value = history.IntValue(int64(rng.IntN(3)))
				if m.Kind == txn.Read && rng.IntN(3) == 0 {
					m.Value = history.NilValue
				}
			}
			txns[i] = txn.Txn{Op: i, Status: statuses[rng.IntN(len(statuses))], Mops: mops}
		}
		for _, w := range []Workload{ListAppend, RWRegister} {
			got, want := lostUpdates(txns, w), lostUpdatesReference(txns, w)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d: lost updates %v, want %v (transactions %v)", round, got, want, txns)
			}
			found += len(got)
		}
	}
	if found == 0 {
		t.Fatal("no lost update in any history: the comparison shows nothing")
	}
}

// lostUpdatesReference finds, for each key and value, the committed
// transactions that read that value first and wrote the key after, with
// a map per transaction of its first reads and of the keys it wrote.
func lostUpdatesReference(txns []txn.Txn, w Workload) []Case {
	type rv struct{ k, v history.Value }
	by := map[rv][]int{}
	var order []rv
	for ti, t := range txns {
		if !t.Committed() {
			continue
		}
		read := map[history.Value]history.Value{}
		wrote := map[history.Value]bool{}
		for _, m := range t.Mops {
			switch {
			case m.Kind == txn.Read && !wrote[m.Key]:
				if _, ok := read[m.Key]; !ok {
					read[m.Key] = emptyAsList(m.Value, w)
				}
			case m.Kind != txn.Read:
				if v, ok := read[m.Key]; ok && !wrote[m.Key] {
					k := rv{m.Key, v}
					if len(by[k]) == 0 {
						order = append(order, k)
					}
					by[k] = append(by[k], ti)
				}
				wrote[m.Key] = true
			}
		}
	}
	var out []Case
	for _, k := range order {
		if ts := by[k]; len(ts) > 1 {
			out = append(out, Case{Name: "lost-update", Txns: ts, Key: k.k, Mop: -1, Values: []history.Value{k.v}})
		}
	}
	return out
}
