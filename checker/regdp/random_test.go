package regdp_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker/regdp"
	"github.com/histcheck/histcheck/report"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// registerModel is the model the other checkers are given for opts.
func registerModel(opts regdp.Options) model.Model[int64] { return modelFor(opts, model.NewRegister) }

// modelFor builds the model mk makes with the options opts stands for.
func modelFor(opts regdp.Options, mk func(model.Options) model.Model[int64]) model.Model[int64] {
	mo := model.Options{Init: opts.Init}
	if opts.NilAny {
		mo.NilRead = model.NilIsAny
	}
	return mk(mo)
}

// checkAgainst runs regdp on h, verifies its witness or violation prefix,
// and compares the verdict with want.
func checkAgainst(t *testing.T, name string, h *history.History, opts regdp.Options, want checker.Verdict) checker.Result {
	t.Helper()
	got, err := regdp.Check(context.Background(), h, opts)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got.Valid != want {
		t.Fatalf("%s: regdp says %v, want %v\n%s", name, got.Valid, want, dump(h))
	}
	m := registerModel(opts)
	switch got.Valid {
	case checker.True:
		if err := checker.VerifyWitness(m, h, got.Witness, checker.RealTime); err != nil {
			t.Fatalf("%s: witness %v: %v\n%s", name, got.Witness, err, dump(h))
		}
	case checker.False:
		if len(got.Violations) != 1 || len(got.Violations[0].Ops) == 0 || report.Explain(h, checker.Linearizable, got.Violations[0]) == "" {
			t.Fatalf("%s: violation without operations or explanation: %+v", name, got.Violations)
		}
		v := got.Violations[0]
		if op := &h.Ops[v.Ops[0]]; op.Status != history.OK || (op.F != "read" && op.F != "r" && op.F != "get") {
			t.Fatalf("%s: violation names %s, not a completed read", name, op.Label())
		}
		if err := verifyPrefix(m, h, v.Prefix); err != nil {
			t.Fatalf("%s: prefix %v: %v\n%s", name, v.Prefix, err, dump(h))
		}
	}
	return got
}

// verifyPrefix checks that a violation's prefix is a legal order of some of
// the operations: a witness of the history cut down to them, with every
// operation of unknown outcome made optional as usual.
func verifyPrefix(m model.Model[int64], h *history.History, prefix []int) error {
	in := make(map[int]bool, len(prefix))
	for _, i := range prefix {
		in[i] = true
	}
	sub := &history.History{Processes: h.Processes, Clients: h.Clients}
	remap := make(map[int]int)
	for i := range h.Ops {
		if in[i] {
			remap[i] = len(sub.Ops)
			sub.Ops = append(sub.Ops, h.Ops[i])
		}
	}
	order := make([]int, len(prefix))
	for n, i := range prefix {
		order[n] = remap[i]
	}
	return checker.VerifyWitness(m, sub, order, checker.RealTime)
}

func dump(h *history.History) string {
	s := ""
	for i := range h.Ops {
		o := &h.Ops[i]
		ret := fmt.Sprint(o.Return)
		if o.Return == history.Infinity {
			ret = "inf"
		}
		s += fmt.Sprintf("  %d %s [%d,%s] %s\n", i, o.Label(), o.Call, ret, o.Status)
	}
	return s
}

// TestAgainstReference compares regdp with the exact reference checker on
// small random register histories: the generator's default mix, and
// variants with more processes, more crashes, an initial value, and
// Knossos's rule for reads of nil.
func TestAgainstReference(t *testing.T) {
	variants := []struct {
		name string
		cfg  randhist.Config
		opts regdp.Options
		n    int
	}{
		{"default", randhist.Default("register"), regdp.Options{}, 4000},
		{"more-processes", randhist.Config{Model: "register", Ops: 10, Processes: 6, Values: 3, CrashRate: 0.1, FailRate: 0.05, Corrupt: 0.6}, regdp.Options{}, 2500},
		{"crashes", randhist.Config{Model: "register", Ops: 11, Processes: 5, Values: 2, CrashRate: 0.3, Corrupt: 0.6}, regdp.Options{}, 2000},
		{"init", randhist.Config{Model: "register", Ops: 9, Processes: 4, Values: 3, Init: history.IntValue(1), CrashRate: 0.15, Corrupt: 0.6}, regdp.Options{Init: history.IntValue(1)}, 1000},
		{"nil-any", randhist.Config{Model: "register", Ops: 9, Processes: 4, Values: 2, CrashRate: 0.15, FailRate: 0.1, Corrupt: 0.6}, regdp.Options{NilAny: true}, 1000},
	}
	total := 0
	for vi, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			counts := map[checker.Verdict]int{}
			for seed := 0; seed < v.n; seed++ {
				r := rand.New(rand.NewPCG(uint64(seed), uint64(vi)+11))
				cfg := v.cfg
				if cfg.Ops == 0 {
					cfg.Ops = 3 + r.IntN(10)
				}
				h := randhist.Register(r, cfg)
				if v.opts.NilAny && r.IntN(2) == 0 {
					nilReads(r, h)
				}
				ref, err := reference.Linearizable(context.Background(), registerModel(v.opts), h)
				if err != nil {
					t.Fatalf("seed %d: reference: %v", seed, err)
				}
				checkAgainst(t, fmt.Sprintf("seed %d", seed), h, v.opts, ref.Valid)
				counts[ref.Valid]++
			}
			if counts[checker.True] < v.n/10 || counts[checker.False] < v.n/10 {
				t.Errorf("verdicts too one-sided: %v", counts)
			}
			total += v.n
			t.Logf("%v", counts)
		})
	}
	if total < 10000 {
		t.Errorf("only %d histories compared", total)
	}
}

// nilReads turns some completed reads into reads of nil, which NilAny
// accepts in every state.
func nilReads(r *rand.Rand, h *history.History) {
	for i := range h.Ops {
		if h.Ops[i].F == "read" && h.Ops[i].Status == history.OK && r.IntN(3) == 0 {
			h.Ops[i].Value = history.NilValue
		}
	}
}

// TestAgainstLinear compares regdp with the Wing–Gong engine on medium
// histories (50–300 operations, 2–8 clients) with few values, crashed
// writes and, three times in four, one read altered to return another value.
func TestAgainstLinear(t *testing.T) {
	const n = 600
	counts := map[checker.Verdict]int{}
	m := model.NewRegister(model.Options{Init: history.IntValue(0)})
	for seed := 0; seed < n; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 77))
		h := medium(r, 50+r.IntN(251), 2+r.IntN(7))
		want, err := linear.Check(context.Background(), m, h, linear.Options{Workers: 1, NoZones: true})
		if err != nil {
			t.Fatalf("seed %d: linear: %v", seed, err)
		}
		if want.Valid == checker.Unknown {
			t.Fatalf("seed %d: linear gave no verdict: %s", seed, want.Reason)
		}
		checkAgainst(t, fmt.Sprintf("seed %d", seed), h, regdp.Options{Init: history.IntValue(0)}, want.Valid)
		counts[want.Valid]++
	}
	if counts[checker.True] < n/5 || counts[checker.False] < n/5 {
		t.Errorf("verdicts too one-sided: %v", counts)
	}
	t.Logf("%v", counts)
}

// TestInitRewrites compares regdp with the exact reference (small
// histories) and the Wing–Gong engine (medium ones) on registers whose
// values are distinct but for writes of the initial value, with long
// operations: the histories where the sweep forgets values nobody reads
// again and compares obligations by inclusion.
func TestInitRewrites(t *testing.T) {
	m := model.NewRegister(model.Options{Init: history.IntValue(0)})
	opts := regdp.Options{Init: history.IntValue(0)}
	counts := map[checker.Verdict]int{}
	for seed := 0; seed < 3000; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 91))
		h := shaped(r, 2+r.IntN(reference.MaxOps-1), 2+r.IntN(5), initRewrites)
		ref, err := reference.Linearizable(context.Background(), m, h)
		if err != nil {
			t.Fatalf("seed %d: reference: %v", seed, err)
		}
		checkAgainst(t, fmt.Sprintf("small seed %d", seed), h, opts, ref.Valid)
		counts[ref.Valid]++
	}
	for seed := 0; seed < 300; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 92))
		h := shaped(r, 50+r.IntN(251), 2+r.IntN(15), initRewrites)
		want, err := linear.Check(context.Background(), m, h, linear.Options{Workers: 1, NoZones: true})
		if err != nil || want.Valid == checker.Unknown {
			t.Fatalf("seed %d: linear: %v %s", seed, err, want.Reason)
		}
		checkAgainst(t, fmt.Sprintf("medium seed %d", seed), h, opts, want.Valid)
		counts[want.Valid]++
	}
	if counts[checker.True] < 500 || counts[checker.False] < 500 {
		t.Errorf("verdicts too one-sided: %v", counts)
	}
	t.Logf("%v", counts)
}

// shape is what a generated execution looks like: how long operations
// last (up to span time units) and which values writes write and
// corrupted reads return.
type shape struct {
	span int
	// value draws the value of the i-th operation when it is a write.
	value func(r *rand.Rand, i int) history.Value
	// corrupt draws another value for a read that returned old.
	corrupt func(r *rand.Rand, old int64) history.Value
}

// fewValues is medium's shape: short operations, values from 0 to 3.
var fewValues = shape{
	span:    12,
	value:   func(r *rand.Rand, _ int) history.Value { return history.IntValue(int64(r.IntN(4))) },
	corrupt: func(r *rand.Rand, old int64) history.Value { return history.IntValue((old + 1 + int64(r.IntN(3))) % 4) },
}

// initRewrites is the shape of a register whose values are all distinct
// except that one write in eight writes the initial value 0 again, and
// whose operations are long, so that many writes overlap: values that
// nobody reads again, and writes pending many at a time.
var initRewrites = shape{
	span: 40,
	value: func(r *rand.Rand, i int) history.Value {
		if r.IntN(8) == 0 {
			return history.IntValue(0)
		}
		return history.IntValue(int64(i + 1))
	},
	corrupt: func(r *rand.Rand, old int64) history.Value {
		if r.IntN(3) == 0 {
			return history.IntValue(0)
		}
		return history.IntValue(old + 1 + int64(r.IntN(3)))
	},
}

// medium makes a history of n operations by c clients that ran against one
// register starting at 0 (each operation takes effect at a random point of
// its interval; values from 0 to 3), with about one operation in 25 crashed
// and one in 30 failed, and three times in four one read altered.
func medium(r *rand.Rand, n, c int) *history.History { return shaped(r, n, c, fewValues) }

// shaped is medium for any shape.
func shaped(r *rand.Rand, n, c int, sh shape) *history.History {
	type pend struct {
		op    history.Op
		point int64
		takes bool
	}
	all := make([]pend, 0, n)
	free := make([]int64, c)
	for i := 0; i < n; i++ {
		cl := r.IntN(c)
		call := free[cl] + int64(r.IntN(4))
		ret := call + int64(r.IntN(sh.span))
		free[cl] = ret + 1
		p := pend{point: call + r.Int64N(ret-call+1), takes: true}
		o := history.Op{Client: fmt.Sprintf("c%d", cl), Call: call, Return: ret, Status: history.OK, F: "read"}
		if r.IntN(2) == 0 {
			o.F, o.Value = "write", sh.value(r, i)
		}
		switch x := r.IntN(150); {
		case x < 6:
			o.Status = history.Info
			p.takes = r.IntN(2) == 0
		case x < 11:
			o.Status = history.Fail
			p.takes = false
		}
		p.op = o
		all = append(all, p)
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	sortStable(idx, func(a, b int) bool { return all[a].point < all[b].point })
	cur := history.IntValue(0)
	var reads []int
	for _, i := range idx {
		p := &all[i]
		if !p.takes {
			if p.op.F == "read" {
				p.op.Value = history.NilValue
			}
			continue
		}
		if p.op.F == "read" {
			p.op.Value = cur
			if p.op.Status == history.OK {
				reads = append(reads, i)
			} else {
				p.op.Value = history.NilValue
			}
		} else {
			cur = p.op.Value
		}
	}
	if len(reads) > 0 && r.IntN(4) != 0 {
		o := &all[reads[r.IntN(len(reads))]].op
		old, _ := o.Value.Int()
		o.Value = sh.corrupt(r, old)
	}
	ops := make([]history.Op, len(all))
	for i := range all {
		ops[i] = all[i].op
		if ops[i].Status == history.Info {
			ops[i].Return = history.Infinity
		}
	}
	h, err := history.FromOps(ops)
	if err != nil {
		panic(err)
	}
	return h
}

func sortStable(xs []int, less func(a, b int) bool) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && less(xs[j], xs[j-1]); j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
