package linear

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/corpus"
	"github.com/histcheck/histcheck/model"
)

// The tests below guard the search's reductions by the number of states
// explored, which is deterministic with one worker: a reduction that stops
// applying makes these searches exponential. Their verdicts are checked
// against the reference checker elsewhere; here they are asserted too.

// TestOptionalWritesBeforeObserver: twenty writes of unknown outcome, all
// pending from the start, and a read of a value nobody wrote. Without the
// reduction the search tries every subset of the writes in every order
// before the read; with it, a write of unknown outcome is taken only right
// before an operation that observes the state.
func TestOptionalWritesBeforeObserver(t *testing.T) {
	var ops []history.Op
	for i := range 20 {
		ops = append(ops, history.Op{Client: fmt.Sprintf("W%d", i), F: "write", Value: history.IntValue(int64(10 + i)),
			Status: history.Info, Call: 0, Return: history.Infinity})
	}
	ops = append(ops,
		history.Op{Client: "A", F: "write", Value: history.IntValue(1), Status: history.OK, Call: 1, Return: 2},
		history.Op{Client: "B", F: "read", Value: history.IntValue(2), Status: history.OK, Call: 3, Return: 4})
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []model.Model[int64]{
		model.NewRegister(model.Options{Init: history.IntValue(0)}),
		model.NewCASRegister(model.Options{Init: history.IntValue(0)}),
	} {
		// NoZones and NoPrune keep the search itself on this history: the
		// pruner would drop the writes nothing reads, and zones would decide
		// it without searching. The deadline only guards against a hang
		// when the reduction is lost (the search then takes minutes).
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := Check(ctx, m, h, Options{Workers: 1, NoZones: true, NoPrune: true})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid != checker.False {
			t.Fatalf("%s: verdict %v, want false", m.Info().Name, res.Valid)
		}
		if res.Stats.States > 200 {
			t.Errorf("%s: %d states explored, want at most 200", m.Info().Name, res.Stats.States)
		}
	}
}

// TestLaterReadsDoomEarly: c50-bad, whose keys all fail, is refuted after
// a few dozen states because every read recorded later is asked whether the
// order so far rules it out; asking only reads already called took about
// 18,000.
func TestLaterReadsDoomEarly(t *testing.T) {
	dir := corpus.Dir(t)
	h, err := format.ReadFile(dir+"/porcupine-kv/c50-bad.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(context.Background(), model.NewKV(model.Options{Init: history.StringValue("")}), h, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != checker.False {
		t.Fatalf("verdict %v, want false", res.Valid)
	}
	if res.Stats.States > 1000 {
		t.Errorf("%d states explored, want at most 1000", res.Stats.States)
	}
}

// TestLegalReadsTakenAtOnce: sixteen reads of the initial value, each
// with its own interval, overlap a write; a last read returns a value
// nobody wrote. Without taking a legal read at once, the search tries
// every subset of the reads before the write, and fails only at the end.
func TestLegalReadsTakenAtOnce(t *testing.T) {
	ops := []history.Op{{Client: "W", F: "write", Value: history.IntValue(1), Status: history.OK, Call: 0, Return: 100}}
	for i := range 16 {
		ops = append(ops, history.Op{Client: fmt.Sprintf("R%d", i), F: "read", Value: history.IntValue(0),
			Status: history.OK, Call: int64(1 + i), Return: int64(200 + i)})
	}
	ops = append(ops, history.Op{Client: "Z", F: "read", Value: history.IntValue(5), Status: history.OK, Call: 300, Return: 301})
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	// NoZones keeps the register sweep, which would decide it at once,
	// out of the way.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Check(ctx, model.NewRegister(model.Options{Init: history.IntValue(0)}), h, Options{Workers: 1, NoZones: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != checker.False {
		t.Fatalf("verdict %v, want false", res.Valid)
	}
	if res.Stats.States > 200 {
		t.Errorf("%d states explored, want at most 200", res.Stats.States)
	}
}
