package causal_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
)

func op(proc int, f string, key string, v int64, call int64, st history.Type) history.Op {
	o := history.Op{Process: proc, Client: string(rune('A' + proc)), F: f, Value: history.IntValue(v),
		Call: call, Return: call + 1, Status: st}
	if key != "" {
		o.Key = history.StringValue(key)
	}
	if st == history.Info {
		o.Return = history.Infinity
	}
	return o
}

var ok = history.OK

func TestPatterns(t *testing.T) {
	tests := []struct {
		name    string
		ops     []history.Op
		crit    string
		pattern string // "" for a valid history
		ops2    []int  // expected witness positions of the first violation
		words   []string
	}{
		{"reply before question", []history.Op{op(0, "write", "x", 1, 0, ok), op(1, "read", "x", 1, 2, ok),
			op(1, "write", "y", 1, 4, ok), op(2, "read", "y", 1, 6, ok), op(2, "read", "x", 0, 8, ok)},
			checker.Causal, causal.WriteCOInitRead, []int{0, 4}, []string{"B:r(x, 1) read the value A:w(x, 1) wrote", "C:r(y, 1) precedes C:r(x, 0)"}},
		{"thin air", []history.Op{op(0, "read", "x", 5, 0, ok)}, checker.Causal, causal.ThinAirRead, []int{0}, []string{"no write of x"}},
		{"overwritten", []history.Op{op(0, "write", "x", 1, 0, ok), op(0, "write", "x", 2, 2, ok), op(0, "read", "x", 1, 4, ok)},
			checker.CausalMemory, causal.WriteCORead, []int{0, 1, 2}, []string{"overwrote"}},
		{"load buffering", []history.Op{op(0, "read", "x", 1, 0, ok), op(0, "write", "y", 1, 2, ok),
			op(1, "read", "y", 1, 0, ok), op(1, "write", "x", 1, 2, ok)}, checker.CausalConvergence, causal.CyclicCO, []int{0, 1, 2, 3}, []string{"cycle"}},
		{"diverging replicas", []history.Op{op(0, "write", "x", 1, 0, ok), op(1, "write", "x", 2, 0, ok),
			op(0, "read", "x", 2, 2, ok), op(1, "read", "x", 1, 2, ok)}, checker.CausalConvergence, causal.CyclicCF, []int{0, 1, 2, 3}, []string{"must be ordered before"}},
		{"diverging replicas are causal memory", []history.Op{op(0, "write", "x", 1, 0, ok), op(1, "write", "x", 2, 0, ok),
			op(0, "read", "x", 2, 2, ok), op(1, "read", "x", 1, 2, ok)}, checker.CausalMemory, "", nil, nil},
		{"own write read back after another", []history.Op{op(0, "write", "x", 1, 0, ok), op(1, "write", "x", 2, 0, ok),
			op(0, "read", "x", 2, 2, ok), op(0, "read", "x", 1, 4, ok)}, checker.CausalMemory, causal.CyclicHB, []int{0, 1, 2, 3}, []string{"A's view"}},
		{"failed write ignored", []history.Op{op(0, "write", "x", 1, 0, history.Fail), op(0, "read", "x", 0, 2, ok)}, checker.Causal, "", nil, nil},
		{"observed info write kept", []history.Op{op(0, "write", "x", 1, 0, history.Info), op(1, "read", "x", 1, 2, ok),
			op(1, "write", "y", 1, 4, ok), op(2, "read", "y", 1, 6, ok), op(2, "read", "x", 0, 8, ok)}, checker.Causal, causal.WriteCOInitRead, []int{0, 4}, nil},
		{"info read ignored", []history.Op{op(0, "read", "x", 7, 0, history.Info)}, checker.Causal, "", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &history.History{Ops: tc.ops, Processes: 3}
			res, err := causal.Check(context.Background(), h, tc.crit, causal.Options{Init: history.IntValue(0)})
			if err != nil {
				t.Fatal(err)
			}
			if tc.pattern == "" {
				if res.Valid != checker.True {
					t.Fatalf("got %s: %+v", res.Valid, res.Violations)
				}
				return
			}
			if res.Valid != checker.False || len(res.Violations) == 0 {
				t.Fatalf("got %s, want a %s violation", res.Valid, tc.pattern)
			}
			v := res.Violations[0]
			explanation := report.Explain(h, tc.crit, v)
			if v.Pattern != tc.pattern || fmt.Sprint(v.Ops) != fmt.Sprint(tc.ops2) {
				t.Fatalf("got %s %v, want %s %v: %s", v.Pattern, v.Ops, tc.pattern, tc.ops2, explanation)
			}
			for _, w := range tc.words {
				if !strings.Contains(explanation, w) {
					t.Errorf("explanation %q lacks %q", explanation, w)
				}
			}
		})
	}
}

func TestIdentity(t *testing.T) {
	// Duplicate values without versions: decided by choosing which write
	// the read read, the choice given as the witness.
	dup := []history.Op{op(0, "write", "x", 1, 0, ok), op(1, "write", "x", 1, 0, ok), op(2, "read", "x", 1, 2, ok)}
	res, err := causal.Check(context.Background(), &history.History{Ops: dup, Processes: 3}, checker.Causal, causal.Options{Init: history.IntValue(0)})
	if err != nil || res.Valid != checker.True || len(res.ReadsFrom) != 1 || res.ReadsFrom[0].Read != 2 || res.ReadsFrom[0].Write > 1 {
		t.Fatalf("got %v %s %q %+v", err, res.Valid, res.Reason, res.ReadsFrom)
	}
	// Past its budget the search says so.
	res, err = causal.Check(context.Background(), &history.History{Ops: dup, Processes: 3}, checker.Causal, causal.Options{Init: history.IntValue(0), SearchWork: 1})
	if err != nil || res.Valid != checker.Unknown || !strings.Contains(res.Reason, "ran out of its budget") {
		t.Fatalf("budget 1: got %v %s %q", err, res.Valid, res.Reason)
	}
	// A read of a value nobody wrote fails whatever the others read.
	thin := append(append([]history.Op(nil), dup...), op(2, "read", "x", 5, 4, ok))
	res, err = causal.Check(context.Background(), &history.History{Ops: thin, Processes: 3}, checker.Causal, causal.Options{Init: history.IntValue(0)})
	if err != nil || res.Valid != checker.False || res.Violations[0].Pattern != causal.ThinAirRead {
		t.Fatalf("got %v %s %+v", err, res.Valid, res.Violations)
	}
	// With versions the reads-from is known: the read of version 1 after
	// version 2 in the same process is overwritten.
	withV := []history.Op{op(0, "write", "x", 1, 0, ok), op(0, "write", "x", 1, 2, ok), op(0, "read", "x", 1, 4, ok)}
	for i, v := range []int64{1, 2, 1} {
		withV[i].Version = history.IntValue(v)
	}
	res, err = causal.Check(context.Background(), &history.History{Ops: withV, Processes: 1}, checker.Causal, causal.Options{Init: history.IntValue(0)})
	if err != nil || res.Valid != checker.False || res.Violations[0].Pattern != causal.WriteCORead {
		t.Fatalf("got %v %s %+v", err, res.Valid, res.Violations)
	}
	cas := []history.Op{op(0, "cas", "x", 1, 0, ok)}
	if _, err := causal.Check(context.Background(), &history.History{Ops: cas, Processes: 1}, checker.Causal, causal.Options{}); !errors.Is(err, causal.ErrUnsupportedOp) {
		t.Fatalf("cas: %v", err)
	}
	if _, err := causal.Check(context.Background(), &history.History{}, "pram", causal.Options{}); err == nil {
		t.Fatal("criterion pram accepted")
	}
}

func TestMaxViolations(t *testing.T) {
	var ops []history.Op
	for i := 0; i < 25; i++ {
		ops = append(ops, op(0, "read", fmt.Sprintf("k%d", i), 9, int64(2*i), ok))
	}
	res, err := causal.Check(context.Background(), &history.History{Ops: ops, Processes: 1}, checker.Causal, causal.Options{Init: history.IntValue(0)})
	if err != nil || res.Valid != checker.False || len(res.Violations) != 10 || !strings.Contains(res.Reason, "25 violation") {
		t.Fatalf("got %v %s %d %q", err, res.Valid, len(res.Violations), res.Reason)
	}
}

// bigHistory generates a differentiated history of n operations by procs
// processes over keys keys: a random interleaving against one store (so
// every criterion holds and the checkers do all their work), a fraction
// stale of the reads returning the key's previous value instead.
func bigHistory(n, procs, keys int, stale float64) *history.History {
	rng := rand.New(rand.NewSource(1))
	h := &history.History{Processes: procs, Clients: procs}
	cur := make([]int64, keys)
	prev := make([]int64, keys)
	val := int64(0)
	for i := 0; i < n; i++ {
		p, k := rng.Intn(procs), rng.Intn(keys)
		o := history.Op{Index: int64(i), Process: p, Client: fmt.Sprintf("p%d", p), Key: history.IntValue(int64(k)),
			Call: int64(2 * i), Return: int64(2*i + 1), Status: history.OK}
		if rng.Intn(2) == 0 {
			val++
			prev[k], cur[k] = cur[k], val
			o.F, o.Value = "write", history.IntValue(val)
		} else {
			v := cur[k]
			if rng.Float64() < stale {
				v = prev[k]
			}
			o.F, o.Value = "read", history.IntValue(v)
		}
		h.Ops = append(h.Ops, o)
	}
	return h
}

func BenchmarkCausal(b *testing.B) {
	for _, stale := range []float64{0, 0.01} {
		h := bigHistory(100000, 10, 100, stale)
		want := checker.True
		if stale > 0 {
			want = checker.False
		}
		for _, c := range []string{checker.Causal, checker.CausalMemory, checker.CausalConvergence} {
			b.Run(fmt.Sprintf("%s/stale=%v", c, stale), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					res, err := causal.Check(context.Background(), h, c, causal.Options{Init: history.IntValue(0)})
					if err != nil || res.Valid != want {
						b.Fatalf("%v %s %s", err, res.Valid, res.Reason)
					}
				}
			})
		}
	}
}
