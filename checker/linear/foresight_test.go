package linear

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// blind hides every optional interface of a model but Model itself, so the
// search runs without foresight.
type blind struct{ model.Model[int64] }

// genAppends makes a key-value history of appends of unique pieces, puts
// and gets by c clients on 2 keys, run against one copy of the store. With
// corrupt, one get's string is changed the way a faulty store changes it:
// two pieces swapped, the last piece dropped, or a piece of another key's
// added; the result is usually, not always, not linearizable.
func genAppends(r *rand.Rand, n, c int, corrupt bool) []history.Op {
	type genOp struct {
		op     history.Op
		point  int64
		pieces []string // the pieces a get saw
	}
	all := make([]genOp, 0, n)
	free := make([]int64, c)
	for i := 0; i < n; i++ {
		cl := r.IntN(c)
		call := free[cl] + int64(r.IntN(3))
		ret := call + int64(r.IntN(8))
		free[cl] = ret + 1
		o := history.Op{Client: fmt.Sprintf("c%d", cl), Call: call, Return: ret, Status: history.OK,
			Key: history.StringValue(fmt.Sprintf("k%d", r.IntN(2)))}
		switch x := r.IntN(20); {
		case x < 9:
			o.F = "append"
			o.Value = history.StringValue(fmt.Sprintf("(%d)", i))
		case x < 10:
			o.F = "put"
			o.Value = history.StringValue(fmt.Sprintf("<%d>", i))
		default:
			o.F = "get"
		}
		all = append(all, genOp{op: o, point: call + r.Int64N(ret-call+1)})
	}
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return all[order[a]].point < all[order[b]].point })
	state := map[history.Value][]string{}
	var gets []int
	for _, i := range order {
		g := &all[i]
		switch g.op.F {
		case "append":
			state[g.op.Key] = append(append([]string(nil), state[g.op.Key]...), g.op.Value.Text())
		case "put":
			state[g.op.Key] = []string{g.op.Value.Text()}
		default:
			g.pieces = state[g.op.Key]
			gets = append(gets, i)
		}
	}
	if corrupt && len(gets) > 0 {
		g := &all[gets[r.IntN(len(gets))]]
		p := append([]string(nil), g.pieces...)
		switch k := r.IntN(3); {
		case k == 0 && len(p) >= 2:
			a := r.IntN(len(p) - 1)
			p[a], p[a+1] = p[a+1], p[a]
		case k == 1 && len(p) >= 1:
			p = p[:len(p)-1]
		default:
			p = append(p, "(x)")
		}
		g.pieces = p
	}
	out := make([]history.Op, len(all))
	for i := range all {
		out[i] = all[i].op
		if out[i].F == "get" {
			out[i].Value = history.StringValue(strings.Join(all[i].pieces, ""))
		}
	}
	return out
}

// TestForesight compares the search with the kv model's foresight against
// the search without it and against Porcupine, on append histories whose
// gets were corrupted so that foresight has orders to cut.
func TestForesight(t *testing.T) {
	counts := map[checker.Verdict]int{}
	var with, without int64
	for seed := uint64(0); seed < 400; seed++ {
		r := rand.New(rand.NewPCG(seed, 0xf0e5))
		h, err := history.FromOps(genAppends(r, 20+r.IntN(100), 2+r.IntN(5), seed%3 != 0))
		if err != nil {
			t.Fatal(err)
		}
		m := model.NewKV(model.Options{Init: history.StringValue("")})
		got, err := Check(context.Background(), m, h, Options{Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		plain, err := Check(context.Background(), blind{model.NewKV(model.Options{Init: history.StringValue("")})}, h, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := porcupineVerdict(porcupine.CheckOperationsTimeout(porcupineModel(history.StringValue(""), true), porcupineOps(h), 0))
		if got.Valid != want || plain.Valid != want {
			t.Fatalf("seed %d: with foresight %v, without %v, porcupine %v", seed, got.Valid, plain.Valid, want)
		}
		if got.Valid == checker.False && h.Ops[got.Violations[0].Ops[0]].Status != history.OK {
			t.Fatalf("seed %d: violation %+v", seed, got.Violations[0])
		}
		counts[want]++
		with += got.Stats.States
		without += plain.Stats.States
	}
	if counts[checker.True] < 60 || counts[checker.False] < 60 {
		t.Errorf("verdicts too one-sided: %v", counts)
	}
	// Foresight must cut the search, or it is not working.
	if with >= without {
		t.Errorf("foresight explored %d states, the plain search %d", with, without)
	}
	t.Logf("%v; states with foresight %d, without %d", counts, with, without)
}
