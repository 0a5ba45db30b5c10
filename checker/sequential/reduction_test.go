package sequential

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// crashedShapes is how many histories of each model the differential test
// of the search's reductions checks (a quarter with -short).
const crashedShapes = 4000

// withCrashedClients adds to h n processes that each hold one operation of
// unknown outcome, as Jepsen's logs have after every crash: copies of h's
// operations (so that identical ones abound, and several copies of the
// same one) and, for registers, writes of a few values and, when cas is
// set, cas of them, cas that changes nothing included. Calls fall anywhere in h's span, ties
// included.
func withCrashedClients(r *rand.Rand, h *history.History, n int, register, cas bool) *history.History {
	ops := append([]history.Op(nil), h.Ops...)
	span := int64(1)
	for i := range ops {
		span = max(span, ops[i].Call+1)
	}
	var added []history.Op
	for i := 0; i < n; i++ {
		op := history.Op{Status: history.Info, Return: history.Infinity, Call: r.Int64N(span + 1)}
		switch x := r.IntN(4); {
		case x == 0 && len(added) > 0:
			src := added[r.IntN(len(added))]
			op.F, op.Value, op.Key = src.F, src.Value, src.Key
		case x == 1 && register:
			op.F, op.Value = "write", history.IntValue(int64(r.IntN(3)))
		case x == 2 && cas:
			op.F, op.Value = "cas", history.ListValue(history.IntValue(int64(r.IntN(3))), history.IntValue(int64(r.IntN(3))))
		case len(ops) > 0:
			src := ops[r.IntN(len(ops))]
			op.F, op.Value, op.Key = src.F, src.Value, src.Key
		default:
			continue
		}
		added = append(added, op)
	}
	procs := h.Processes
	for i := range added {
		added[i].Process = procs + i
		added[i].Client = fmt.Sprintf("crashed-%d", i)
	}
	ops = append(ops, added...)
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	for i := range ops {
		ops[i].Index = int64(i)
		ops[i].Times = history.Span{Call: ops[i].Call, Return: ops[i].Return}
	}
	return &history.History{Ops: ops, Processes: procs + len(added), Clients: procs + len(added), Timed: true, Meta: h.Meta}
}

// The search's reductions (interchangeable processes, optional last
// operations taken only where they matter) must not change a verdict:
// histories with many crashed single-operation processes, repeated values
// and ties are checked against the reference checker, by the search alone
// and by Check without the linearizability shortcut.
func TestReductionsAgreeWithReference(t *testing.T) {
	n := crashedShapes
	if testing.Short() {
		n /= 4
	}
	for mi, name := range []string{"register", "cas-register", "kv", "mutex"} {
		t.Run(name, func(t *testing.T) {
			counts := map[string]int{}
			for i := 0; i < n; i++ {
				seed := uint64(mi)<<32 | uint64(i)
				r := rand.New(rand.NewPCG(seed, 29))
				cfg := randhist.Default(name)
				cfg.Ops = 3 + r.IntN(6)
				cfg.Processes = 1 + r.IntN(3)
				cfg.Values = 2 + r.IntN(2)
				cfg.Keys = 1 + r.IntN(2)
				cfg.CrashRate = []float64{0, 0.2, 0.4}[r.IntN(3)]
				cfg.Ties = []int{0, 3}[r.IntN(2)]
				if r.IntN(2) == 0 {
					cfg.Init = history.IntValue(0)
				}
				base := generate(t, r, cfg)
				register := name == "register" || name == "cas-register"
				h := withCrashedClients(r, base, min(12-len(base.Ops), 2+r.IntN(5)), register, name == "cas-register")
				md := []mode{searchOnly, noLinear}[i%2]
				var v checker.Verdict
				var method string
				switch name {
				case "register", "cas-register":
					m := model.NewRegister(opts(h, false))
					if name == "cas-register" {
						m = model.NewCASRegister(opts(h, false))
					}
					v, method = agree(t, m, h, md)
				case "kv":
					v, method = agree(t, model.NewKV(opts(h, false)), h, md)
				default:
					v, method = agree(t, model.NewMutex(model.Options{}), h, md)
				}
				if t.Failed() {
					t.Fatalf("seed %d (mode %d, config %+v)", seed, md, cfg)
				}
				counts[fmt.Sprintf("%s/%s", v, method)]++
			}
			t.Logf("verdicts by method: %v", counts)
			if counts["true/search"] == 0 || counts["false/search"] == 0 {
				t.Errorf("the search did not decide both ways: %v", counts)
			}
		})
	}
}
