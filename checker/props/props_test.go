package props

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"pgregory.net/rapid"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/checker/session"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// genHistory draws a small read/write history over a few keys. Values are
// unique per key when unique is set (a differentiated history, which the
// causal and session checkers need), else drawn from a small domain.
// Each process runs its operations one after another; intervals of
// different processes overlap at random.
func genHistory(t *rapid.T, unique bool) *history.History {
	procs := rapid.IntRange(1, 3).Draw(t, "procs")
	keys := rapid.IntRange(1, 2).Draw(t, "keys")
	var ops []history.Op
	next := map[int]int64{}
	for p := 0; p < procs; p++ {
		n := rapid.IntRange(1, 3).Draw(t, fmt.Sprintf("ops%d", p))
		now := rapid.Int64Range(0, 5).Draw(t, "start")
		for i := 0; i < n; i++ {
			k := rapid.IntRange(0, keys-1).Draw(t, "key")
			call := now + rapid.Int64Range(0, 3).Draw(t, "gap")
			ret := call + rapid.Int64Range(0, 6).Draw(t, "len")
			now = ret + 1
			op := history.Op{Client: string(rune('A' + p)), Key: history.StringValue(string(rune('x' + k))),
				Call: call, Return: ret, Status: history.OK}
			if rapid.Bool().Draw(t, "write") {
				op.F = "write"
				if unique {
					next[k]++
					op.Value = history.IntValue(next[k])
				} else {
					op.Value = history.IntValue(rapid.Int64Range(1, 2).Draw(t, "v"))
				}
			} else {
				op.F = "read"
				op.Value = history.IntValue(rapid.Int64Range(0, 3).Draw(t, "r"))
			}
			ops = append(ops, op)
		}
	}
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatalf("generated history is invalid: %v", err)
	}
	return h
}

var kvOpts = model.Options{Init: history.IntValue(0)}

func lin(t fataler, h *history.History) checker.Verdict {
	r, err := linear.Check(context.Background(), model.NewKV(kvOpts), h, linear.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r.Valid
}

func seq(t fataler, h *history.History) checker.Verdict {
	r, err := sequential.Check(context.Background(), model.NewKV(kvOpts), h, sequential.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r.Valid
}

func weak(t fataler, h *history.History, criterion string) checker.Verdict {
	var r checker.Result
	var err error
	switch criterion {
	case checker.Causal, checker.CausalMemory, checker.CausalConvergence:
		r, err = causal.Check(context.Background(), h, criterion, causal.Options{Init: kvOpts.Init})
	default:
		r, err = session.Check(context.Background(), h, criterion, session.Options{Init: kvOpts.Init})
	}
	if err != nil {
		t.Fatal(err)
	}
	return r.Valid
}

// TestImplications: linearizable ⇒ sequential ⇒ causal-memory and
// causal-convergence ⇒ causal, on differentiated histories.
func TestImplications(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := genHistory(t, true)
		l, s := lin(t, h), seq(t, h)
		if l == checker.True && s != checker.True {
			t.Fatalf("linearizable but sequential is %v", s)
		}
		cm, ccv, cc := weak(t, h, checker.CausalMemory), weak(t, h, checker.CausalConvergence), weak(t, h, checker.Causal)
		if s == checker.True && (cm != checker.True || ccv != checker.True) {
			t.Fatalf("sequential but causal-memory %v, causal-convergence %v", cm, ccv)
		}
		if (cm == checker.True || ccv == checker.True) && cc != checker.True {
			t.Fatalf("causal-memory %v / causal-convergence %v but causal %v", cm, ccv, cc)
		}
		if s == checker.True && weak(t, h, checker.PRAM) != checker.True {
			t.Fatal("sequential but not PRAM")
		}
	})
}

// rename maps processes, keys and values through bijections.
func rename(h *history.History, perm []int) *history.History {
	ops := make([]history.Op, len(h.Ops))
	for i, o := range h.Ops {
		o.Client = "p" + o.Client + "'"
		if k, ok := o.Key.Str(); ok {
			o.Key = history.StringValue("key-" + k)
		}
		if n, ok := o.Value.Int(); ok && n != 0 {
			o.Value = history.StringValue(fmt.Sprintf("v%d", perm[int(n)%len(perm)]))
		} else if ok {
			o.Value = history.StringValue("zero")
		}
		ops[i] = o
	}
	out, err := history.FromOps(ops)
	if err != nil {
		panic(err)
	}
	return out
}

// TestRenaming: verdicts do not change when processes, keys and values are
// renamed consistently (values through a bijection; 0, the initial value,
// to the new initial value).
func TestRenaming(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		unique := rapid.Bool().Draw(t, "unique")
		h := genHistory(t, unique)
		perm := rapid.Permutation([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}).Draw(t, "perm")
		r := rename(h, perm)
		opts := model.Options{Init: history.StringValue("zero")}
		rl, err := linear.Check(context.Background(), model.NewKV(opts), r, linear.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if l := lin(t, h); rl.Valid != l {
			t.Fatalf("linearizable: %v before renaming, %v after", l, rl.Valid)
		}
		rs, err := sequential.Check(context.Background(), model.NewKV(opts), r, sequential.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if s := seq(t, h); rs.Valid != s {
			t.Fatalf("sequential: %v before renaming, %v after", s, rs.Valid)
		}
		if unique {
			for _, c := range []string{checker.Causal, checker.ReadYourWrites, checker.MonotonicReads, checker.PRAM} {
				var rv checker.Result
				if c == checker.Causal {
					rv, err = causal.Check(context.Background(), r, c, causal.Options{Init: opts.Init})
				} else {
					rv, err = session.Check(context.Background(), r, c, session.Options{Init: opts.Init})
				}
				if err != nil {
					t.Fatal(err)
				}
				if v := weak(t, h, c); rv.Valid != v {
					t.Fatalf("%s: %v before renaming, %v after", c, v, rv.Valid)
				}
			}
		}
	})
}

// TestReordering: the order in which a file lists operations of different
// processes does not matter, only their times.
func TestReordering(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := genHistory(t, false)
		perm := rapid.Permutation(seqInts(len(h.Ops))).Draw(t, "order")
		ops := make([]history.Op, len(h.Ops))
		for i, j := range perm {
			ops[i] = h.Ops[j]
		}
		r, err := history.FromOps(ops)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := lin(t, h), lin(t, r); a != b {
			t.Fatalf("linearizable: %v in one order, %v in another", a, b)
		}
		if a, b := seq(t, h), seq(t, r); a != b {
			t.Fatalf("sequential: %v in one order, %v in another", a, b)
		}
	})
}

// TestWeakeningIsMonotone: weakening an operation (making it optional, at
// any time, with any result) never turns a satisfied criterion into a
// violated one.
func TestWeakeningIsMonotone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		h := genHistory(t, false)
		i := rapid.IntRange(0, len(h.Ops)-1).Draw(t, "op")
		w := shrink.Weaken(h, []int{i})
		if w == nil {
			t.Skip("weakening broke the pairing rules")
		}
		if lin(t, h) == checker.True && lin(t, w) != checker.True {
			t.Fatalf("linearizable, but not after weakening %s", h.Ops[i].Label())
		}
		if seq(t, h) == checker.True && seq(t, w) != checker.True {
			t.Fatalf("sequential, but not after weakening %s", h.Ops[i].Label())
		}
	})
}

func seqInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	sort.Ints(s)
	return s
}

// fataler is what the helpers need of *testing.T and *rapid.T alike.
type fataler interface {
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}
