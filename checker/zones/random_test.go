package zones_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/checker/zones"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
	"github.com/histcheck/histcheck/sim"
)

// genUnique makes a history of n reads and writes of unique values by c
// clients on the given number of keys (0: no keys, one register) that ran
// against one copy of the store, each operation taking effect at a random
// instant of its interval. Some operations crash (outcome unknown; a
// crashed write takes effect or not) and some fail. With corrupt, one read
// is changed: to another value of its key, to the initial value, or to a
// value nobody wrote, or it is moved later in time; the result is usually,
// not always, not linearizable.
func genUnique(r *rand.Rand, n, c, keys int, corrupt bool) []history.Op {
	type genOp struct {
		op    history.Op
		point int64
		takes bool
	}
	all := make([]genOp, 0, n)
	free := make([]int64, c)
	gen := make([]int, c) // a client that crashed goes on under a new name
	next := int64(1)
	for i := 0; i < n; i++ {
		cl := r.IntN(c)
		call := free[cl] + int64(r.IntN(4))
		ret := call + int64(r.IntN(10))
		free[cl] = ret + 1
		g := genOp{point: call + r.Int64N(ret-call+1), takes: true}
		o := history.Op{Client: fmt.Sprintf("c%d.%d", cl, gen[cl]), Call: call, Return: ret, Status: history.OK}
		if keys > 0 {
			o.Key = history.StringValue(fmt.Sprintf("k%d", r.IntN(keys)))
		}
		if r.IntN(2) == 0 {
			o.F, o.Value = "write", history.IntValue(next)
			next++
		} else {
			o.F = "read"
		}
		switch x := r.IntN(100); {
		case x < 5:
			o.Status = history.Info
			g.takes = r.IntN(2) == 0
			gen[cl]++
		case x < 8:
			o.Status = history.Fail
			g.takes = false
		}
		g.op = o
		all = append(all, g)
	}
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return all[order[a]].point < all[order[b]].point })
	state := map[history.Value]history.Value{}
	var reads []int
	for _, i := range order {
		g := &all[i]
		if !g.takes {
			if g.op.F == "read" {
				g.op.Value = history.NilValue
			}
			continue
		}
		cur, ok := state[g.op.Key]
		if !ok {
			cur = history.IntValue(0)
		}
		if g.op.F == "write" {
			state[g.op.Key] = g.op.Value
			continue
		}
		g.op.Value = cur
		if g.op.Status == history.Info {
			g.op.Value = history.NilValue
		} else {
			reads = append(reads, i)
		}
	}
	if corrupt && len(reads) > 0 {
		o := &all[reads[r.IntN(len(reads))]].op
		switch r.IntN(4) {
		case 0:
			o.Value = history.IntValue(0)
		case 1:
			o.Value = history.IntValue(1 + r.Int64N(next))
		case 2:
			o.Value = history.IntValue(next + 1000) // nobody wrote it
		default:
			d := int64(1 + r.IntN(20))
			o.Call += d
			o.Return += d
			o.Client = "late"
		}
	}
	out := make([]history.Op, len(all))
	for i := range all {
		out[i] = all[i].op
		if out[i].Status == history.Info {
			out[i].Return = history.Infinity
		}
	}
	return out
}

// compare checks h with the zones algorithm and with the search (and, for
// small histories, the reference checker): the verdicts must agree, the
// witness must verify and a violation must name completed operations.
func compare(t *testing.T, name string, h *history.History, keyed bool, small bool) checker.Verdict {
	t.Helper()
	init := history.IntValue(0)
	m := model.NewRegister(model.Options{Init: init})
	if keyed {
		m = model.NewKV(model.Options{Init: init})
	}
	if !zones.Applies(h, init) {
		t.Fatalf("%s: zones do not apply", name)
	}
	got, err := zones.Check(context.Background(), h, init, false)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want, err := linear.Check(context.Background(), m, h, linear.Options{NoZones: true, Workers: 1})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got.Valid != want.Valid {
		t.Fatalf("%s: zones say %v, the search %v (%+v)", name, got.Valid, want.Valid, got.Violations)
	}
	if small {
		ref, err := reference.Linearizable(context.Background(), m, h)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ref.Valid != got.Valid {
			t.Fatalf("%s: zones say %v, the reference %v", name, got.Valid, ref.Valid)
		}
	}
	// Through linear.Check, the zones must be chosen and agree too.
	auto, err := linear.Check(context.Background(), m, h, linear.Options{Verify: true})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if auto.Valid != got.Valid || (len(h.Ops) > 0 && auto.Method != zones.Method) {
		t.Fatalf("%s: through linear.Check: %v by %s", name, auto.Valid, auto.Method)
	}
	switch got.Valid {
	case checker.True:
		if err := checker.VerifyWitness(m, h, got.Witness, checker.RealTime); err != nil {
			t.Fatalf("%s: witness: %v", name, err)
		}
	case checker.False:
		v := got.Violations[0]
		if len(v.Ops) == 0 || len(v.Ops) > 6 || report.Explain(h, checker.Linearizable, v) == "" || h.Ops[v.Ops[0]].Status != history.OK {
			t.Fatalf("%s: violation %+v", name, v)
		}
	}
	return got.Valid
}

func TestAgainstSearchSmall(t *testing.T) {
	counts := map[checker.Verdict]int{}
	for seed := uint64(0); seed < 6000; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x2043e5))
		keys := []int{0, 0, 1, 2}[r.IntN(4)]
		h, err := history.FromOps(genUnique(r, 1+r.IntN(reference.MaxOps), 1+r.IntN(4), keys, seed%2 == 1))
		if err != nil {
			t.Fatal(err)
		}
		counts[compare(t, fmt.Sprintf("seed %d", seed), h, keys > 0, true)]++
	}
	if counts[checker.True] < 300 || counts[checker.False] < 300 {
		t.Errorf("verdicts too one-sided: %v", counts)
	}
	t.Logf("%v", counts)
}

// TestAgainstSearchMedium compares verdicts with the search on 2,000
// random histories of 50 to 300 operations (500 with -short).
func TestAgainstSearchMedium(t *testing.T) {
	n := uint64(2000)
	if testing.Short() {
		n = 500
	}
	counts := map[checker.Verdict]int{}
	for seed := uint64(0); seed < n; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x3a1d))
		keys := []int{0, 0, 3}[r.IntN(3)]
		h, err := history.FromOps(genUnique(r, 50+r.IntN(250), 2+r.IntN(6), keys, seed%2 == 1))
		if err != nil {
			t.Fatal(err)
		}
		counts[compare(t, fmt.Sprintf("seed %d", seed), h, keys > 0, false)]++
	}
	if counts[checker.True] < int(n/20) || counts[checker.False] < int(n/20) {
		t.Errorf("verdicts too one-sided: %v", counts)
	}
	t.Logf("%v", counts)
}

// TestSimulatedWorkloads checks the random workloads of the simulator, with
// crashes and an injected stale read or lost update.
func TestSimulatedWorkloads(t *testing.T) {
	for seed := uint32(0); seed < 60; seed++ {
		anomaly := []string{"none", "stale-read", "lost-update"}[seed%3]
		h, err := sim.Random(sim.RandomOptions{Ops: 400, Clients: 8, Model: "register", UniqueValues: true,
			CrashRate: 0.02, Anomaly: anomaly, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		got := compare(t, fmt.Sprintf("seed %d %s", seed, anomaly), h, false, false)
		if want := map[bool]checker.Verdict{true: checker.True, false: checker.False}[anomaly == "none"]; got != want {
			t.Errorf("seed %d %s: verdict %v", seed, anomaly, got)
		}
	}
}
