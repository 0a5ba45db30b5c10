package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/examples/bank"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// family is a model with its generator of random histories: the checkers
// the command line uses (suite) and the brute-force reference.
type family struct {
	name  string
	suite suite.Model
	opts  model.Options
	ref   func(ctx context.Context, h *history.History, criterion string) (checker.Result, error)
	gen   func(r *rand.Rand, cfg randhist.Config) *history.History
}

func bind[S comparable](name string, newModel func(model.Options) model.Model[S], opts model.Options,
	gen func(r *rand.Rand, cfg randhist.Config) *history.History) family {
	return family{
		name:  name,
		suite: suite.Bind(newModel),
		opts:  opts,
		ref: func(ctx context.Context, h *history.History, criterion string) (checker.Result, error) {
			if criterion == checker.Sequential {
				return reference.Sequential(ctx, newModel(opts), h)
			}
			return reference.Linearizable(ctx, newModel(opts), h)
		},
		gen: gen,
	}
}

const leaseTTL = 10

// families are every built-in model and a model written outside histcheck
// (examples/bank).
func families() []family {
	zero := model.Options{Init: history.IntValue(0)}
	withInit := func(g func(*rand.Rand, randhist.Config) *history.History, init history.Value) func(*rand.Rand, randhist.Config) *history.History {
		return func(r *rand.Rand, cfg randhist.Config) *history.History {
			cfg.Init = init
			return g(r, cfg)
		}
	}
	return []family{
		bind("register", model.NewRegister, zero, withInit(randhist.Register, history.IntValue(0))),
		bind("cas-register", model.NewCASRegister, zero, withInit(randhist.CASRegister, history.IntValue(0))),
		bind("kv", model.NewKV, model.Options{Init: history.StringValue("")}, withInit(randhist.KV, history.StringValue(""))),
		bind("mutex", model.NewMutex, model.Options{}, randhist.Mutex),
		bind("lock", model.NewLock, model.Options{}, randhist.Lock),
		bind("lease", model.NewLease, model.Options{TTL: leaseTTL}, func(r *rand.Rand, cfg randhist.Config) *history.History {
			return randhist.Lease(r, cfg, leaseTTL)
		}),
		bind("fenced-register", model.NewFencedRegister, zero, withInit(randhist.FencedRegister, history.IntValue(0))),
		bind("set", model.NewSet, model.Options{}, randhist.Set),
		bind("fifo-queue", model.NewFIFOQueue, model.Options{}, randhist.FIFOQueue),
		bind("unordered-queue", model.NewUnorderedQueue, model.Options{}, randhist.UnorderedQueue),
		bind("counter", model.NewCounter, zero, withInit(randhist.Counter, history.IntValue(0))),
		bind("bank", bank.New, model.Options{Init: bankInit}, bankHistory),
	}
}

// TestCoresFailAlone is the promise a core makes, on every model: for
// seeded random histories (crashed and failed operations, clients that
// continue after a crash) that violate linearizability or sequential
// consistency, the core is cut out of the JSON report alone (its
// operations as they are, the weakened ones as operations of unknown
// outcome), read back as a history and checked again with the same model
// and criterion, by the command line's checkers and, when it is small
// enough, by the brute-force reference: it must be a violation. The core's text must name clients
// only as the input does.
func TestCoresFailAlone(t *testing.T) {
	perModel := 500 // violating histories per model and criterion
	if testing.Short() {
		perModel = 100
	}
	ctx := context.Background()
	var summary []string
	for k, fam := range families() {
		t.Run(fam.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(17, uint64(k)))
			found := map[string]int{}
			cores, weakened, byRef, tried := 0, 0, 0, 0
			for (found[checker.Linearizable] < perModel || found[checker.Sequential] < perModel) && tried < 60*perModel {
				tried++
				h := randomHistory(t, r, fam)
				for _, crit := range []string{checker.Linearizable, checker.Sequential} {
					if found[crit] >= perModel {
						continue
					}
					res, err := suite.Run(ctx, fam.suite, h, crit, fam.opts, suite.Options{Workers: 1})
					if err != nil {
						t.Fatal(err)
					}
					if res.Valid != checker.False {
						continue
					}
					found[crit]++
					rc, ref, err := checkCore(ctx, fam, h, crit)
					if err != nil {
						t.Fatalf("%s history %d: %v\nhistory:\n%s", crit, tried, err, dump(h))
					}
					cores++
					if len(rc.Weakened) > 0 {
						weakened++
					}
					if ref {
						byRef++
					}
				}
			}
			for _, crit := range []string{checker.Linearizable, checker.Sequential} {
				if found[crit] < perModel {
					t.Fatalf("only %d histories violate %s in %d tries", found[crit], crit, tried)
				}
			}
			summary = append(summary, fmt.Sprintf("%s: %d histories, %d cores cut out and re-checked (%d by the reference too; %d with weakened operations)",
				fam.name, tried, cores, byRef, weakened))
		})
	}
	t.Logf("\n%s", strings.Join(summary, "\n"))
}

// randomHistory generates a history of fam; in a third of them a client
// continues after an operation of unknown outcome, under the name of a
// client that crashed, so that one name has several logical processes, and
// in a third the clock is coarser, so that times tie and intervals touch,
// inside a process and across processes.
func randomHistory(t *testing.T, r *rand.Rand, fam family) *history.History {
	t.Helper()
	cfg := randhist.Default(fam.name)
	cfg.Ops = 4 + r.IntN(10)
	h := fam.gen(r, cfg)
	if r.IntN(3) == 0 {
		h = continueAfterCrash(t, r, h)
	}
	if r.IntN(3) == 0 {
		h = coarsen(t, h, int64(2+r.IntN(6)))
	}
	return h
}

// coarsen divides every time by k, as a clock k times coarser would have
// recorded them: order is kept where times differ by k or more, and
// otherwise times tie.
func coarsen(t *testing.T, h *history.History, k int64) *history.History {
	t.Helper()
	ops := append([]history.Op(nil), h.Ops...)
	for i := range ops {
		ops[i].Call /= k
		if ops[i].Return != history.Infinity {
			ops[i].Return /= k
		}
	}
	out, err := history.FromOps(ops)
	if err != nil {
		t.Fatalf("coarsening by %d: %v", k, err)
	}
	return out
}

// continueAfterCrash renames the operations of one client to the name of
// another whose last operation has unknown outcome and was called before
// the first of them.
func continueAfterCrash(t *testing.T, r *rand.Rand, h *history.History) *history.History {
	t.Helper()
	first, last := map[string]int{}, map[string]int{}
	for i := range h.Ops {
		c := h.Ops[i].Client
		if _, ok := first[c]; !ok {
			first[c] = i
		}
		last[c] = i
	}
	type pair struct{ from, to string }
	var pairs []pair
	for c, i := range last {
		if h.Ops[i].Status != history.Info {
			continue
		}
		for d, j := range first {
			if d != c && h.Ops[j].Call > h.Ops[i].Call {
				pairs = append(pairs, pair{d, c})
			}
		}
	}
	if len(pairs) == 0 {
		return h
	}
	sort.Slice(pairs, func(a, b int) bool {
		return pairs[a].from+"/"+pairs[a].to < pairs[b].from+"/"+pairs[b].to
	})
	p := pairs[r.IntN(len(pairs))]
	ops := append([]history.Op(nil), h.Ops...)
	for i := range ops {
		if ops[i].Client == p.from {
			ops[i].Client = p.to
		}
	}
	out, err := history.FromOps(ops)
	if err != nil {
		t.Fatalf("renaming %s to %s: %v", p.from, p.to, err)
	}
	return out
}

// checkCore shrinks h, which violates crit, and checks the core the way a
// user of the JSON report could. It returns the core's report, and whether
// the reference checked it too (it handles small cores only).
func checkCore(ctx context.Context, fam family, h *history.History, crit string) (*report.Core, bool, error) {
	check := func(ctx context.Context, hh *history.History) (checker.Result, error) {
		return suite.Run(ctx, fam.suite, hh, crit, fam.opts, suite.Options{Workers: 1})
	}
	core, err := shrink.Minimize(ctx, h, check, fam.suite.Info.Keyed)
	if err != nil {
		return nil, false, fmt.Errorf("shrinking: %w", err)
	}
	rc := report.NewCore(h, core)
	hr := report.NewHistory("random.json", fam.name, h)
	hr.Init, hr.TTL = report.InitJSON(fam.opts.Init), fam.opts.TTL
	cut, opts, err := cutFromReport(hr, rc)
	if err != nil {
		return nil, false, err
	}
	res, err := suite.Run(ctx, fam.suite, cut, crit, opts, suite.Options{Workers: 1})
	if err != nil {
		return nil, false, err
	}
	if res.Valid != checker.False {
		return nil, false, fmt.Errorf("the core cut from the report is %v when checked alone:\n%s\n%s", res.Valid, rc.Timeline, rc.Explanation)
	}
	small := cut.Counts().OK+cut.Counts().Info <= reference.MaxOps
	if small {
		if res, err = fam.ref(ctx, cut, crit); err != nil || res.Valid != checker.False {
			return nil, false, fmt.Errorf("the reference finds the core cut from the report %v (%v):\n%s\n%s", res.Valid, err, rc.Timeline, rc.Explanation)
		}
	}
	clients := map[string]bool{}
	for i := range h.Ops {
		clients[h.Ops[i].Client] = true
	}
	for _, o := range append(append([]report.Op(nil), rc.Ops...), rc.Weakened...) {
		if !clients[o.Process] {
			return nil, false, fmt.Errorf("core names process %q, which the history does not", o.Process)
		}
	}
	if internalName.MatchString(rc.Explanation + rc.Timeline) {
		return nil, false, fmt.Errorf("core text names an internal process:\n%s\n%s", rc.Timeline, rc.Explanation)
	}
	return rc, small, nil
}

// internalName matches the names the shrinker once gave the logical
// processes it made up ("A~1", "B#2"); the random histories name clients
// with single capital letters.
var internalName = regexp.MustCompile(`\b[A-Z][~#][0-9]`)

// cutFromReport writes a core back as a history from its JSON report form
// alone (Core.WriteHistory on the decoded report) and reads it as the
// command line would. It returns the history and the model options the
// file gives.
func cutFromReport(hr report.History, rc *report.Core) (*history.History, model.Options, error) {
	var js struct {
		History report.History `json:"history"`
		Core    report.Core    `json:"core"`
	}
	b, err := json.Marshal(struct {
		History report.History `json:"history"`
		Core    *report.Core   `json:"core"`
	}{hr, rc})
	if err != nil {
		return nil, model.Options{}, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	d.DisallowUnknownFields()
	if err := d.Decode(&js); err != nil {
		return nil, model.Options{}, err
	}
	var src bytes.Buffer
	if err := js.Core.WriteHistory(&src, &js.History, ""); err != nil {
		return nil, model.Options{}, err
	}
	cut, err := format.Read("core.json", bytes.NewReader(src.Bytes()), "")
	if err != nil {
		return nil, model.Options{}, fmt.Errorf("reading the core back: %w\n%s", err, src.String())
	}
	ttl, _ := cut.Meta["ttl"].Int()
	return cut, model.Options{Init: cut.Meta["init"], TTL: ttl}, nil
}

func dump(h *history.History) string {
	var sb strings.Builder
	for i := range h.Ops {
		o := &h.Ops[i]
		fmt.Fprintf(&sb, "  %s %s [%d, %d] token=%s extra=%v\n", o.Label(), o.Status, o.Call, o.Return, o.Token, o.Extra)
	}
	return sb.String()
}

// bankInit is the bank's initial balances in the random histories.
var bankInit = history.ListValue(history.IntValue(5), history.IntValue(5), history.IntValue(5))

// bankHistory generates transfers between three accounts and reads of
// every balance, from a real sequential execution with jittered intervals
// as randhist does; a refused transfer fails. With probability cfg.Corrupt
// one completed read is altered afterwards, or a failed transfer reported
// as completed.
func bankHistory(r *rand.Rand, cfg randhist.Config) *history.History {
	procs := 1 + r.IntN(4)
	bal := []int64{5, 5, 5}
	busy := make([]int64, procs)
	dead := make([]bool, procs)
	var ops []history.Op
	var point int64
	for len(ops) < cfg.Ops {
		p := r.IntN(procs)
		if dead[p] {
			if all(dead) {
				break
			}
			continue
		}
		point = max(point+1+int64(r.IntN(6)), busy[p]+1)
		op := history.Op{Client: string(rune('A' + p)), Call: max(busy[p]+1, point-int64(r.IntN(8))),
			Return: point + int64(r.IntN(8)), Status: history.OK}
		crash := r.Float64() < cfg.CrashRate
		takes := !crash || r.IntN(2) == 0
		if r.IntN(10) < 6 {
			from, to := r.IntN(3), r.IntN(2)
			if to >= from {
				to++
			}
			amt := int64(1 + r.IntN(4))
			op.F = "transfer"
			op.Value = history.ListValue(history.IntValue(int64(from)), history.IntValue(int64(to)), history.IntValue(amt))
			switch {
			case bal[from] < amt || r.Float64() < cfg.FailRate:
				op.Status = history.Fail
			case takes:
				bal[from] -= amt
				bal[to] += amt
			}
		} else {
			op.F = "read"
			op.Value = history.ListValue(history.IntValue(bal[0]), history.IntValue(bal[1]), history.IntValue(bal[2]))
		}
		if crash {
			op.Status, op.Return = history.Info, history.Infinity
			dead[p] = true
		}
		busy[p] = op.Return
		ops = append(ops, op)
	}
	if r.Float64() < cfg.Corrupt {
		var cand []int
		for i := range ops {
			if ops[i].F == "read" && ops[i].Status == history.OK || ops[i].F == "transfer" && ops[i].Status == history.Fail {
				cand = append(cand, i)
			}
		}
		if len(cand) > 0 {
			o := &ops[cand[r.IntN(len(cand))]]
			if o.F == "transfer" {
				o.Status = history.OK
			} else {
				es := o.Value.Elems()
				a, b := r.IntN(3), r.IntN(3)
				es2 := append([]history.Value(nil), es...)
				x, _ := es[a].Int()
				es2[a], es2[b] = history.IntValue(x-1), history.IntValue(x+1)
				if a == b {
					es2[a] = history.IntValue(x + 1)
				}
				o.Value = history.ListValue(es2...)
			}
		}
	}
	h, err := history.FromOps(ops)
	if err != nil {
		panic(err) // the generator keeps each client's operations apart
	}
	for i := range h.Ops {
		h.Ops[i].Index = int64(i) // as a reader numbers them
	}
	return h
}

func all(xs []bool) bool {
	for _, x := range xs {
		if !x {
			return false
		}
	}
	return true
}
