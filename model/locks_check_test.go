package model_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

var locksDir = filepath.Join("..", "testdata", "histories", "locks")

// keyOnly returns the sub-history of the operations on one key, as a
// per-key check sees it.
func keyOnly(t *testing.T, h *history.History, key string) *history.History {
	t.Helper()
	var ops []history.Op
	for _, o := range h.Ops {
		if k, _ := o.Key.Str(); k == key {
			ops = append(ops, o)
		}
	}
	sub, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// checkWith runs the reference checker on h with the named model.
func checkWith(t *testing.T, name string, opts model.Options, h *history.History) checker.Result {
	t.Helper()
	ctx := context.Background()
	var res checker.Result
	var err error
	switch name {
	case "register":
		res, err = reference.Linearizable(ctx, model.NewRegister(opts), h)
	case "fenced-register":
		res, err = reference.Linearizable(ctx, model.NewFencedRegister(opts), h)
	case "mutex":
		res, err = reference.Linearizable(ctx, model.NewMutex(opts), h)
	case "lock":
		res, err = reference.Linearizable(ctx, model.NewLock(opts), h)
	case "lease":
		res, err = reference.Linearizable(ctx, model.NewLease(opts), h)
	default:
		t.Fatalf("no model %q", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestLockScenarios checks the verdicts listed in the README of
// testdata/histories/locks: each file's operations on one key, against one
// model.
func TestLockScenarios(t *testing.T) {
	tests := []struct {
		file, key, model string
		ttl              int64
		valid            bool
		why              []string // phrases the explanation must contain
		ops              []string // labels the violation must name
	}{
		{file: "stock-nofencing.json", key: "stock", model: "register", valid: true},
		{file: "stock-fencing.json", key: "stock", model: "register", valid: true},
		{file: "stock-nofencing.json", key: "stock", model: "fenced-register",
			why: []string{"write of 9 with token 33 was acknowledged", "already accepted token 34", "stale write"},
			ops: []string{"B:w(stock, 8)", "A:w(stock, 9)"}},
		{file: "stock-fencing.json", key: "stock", model: "fenced-register", valid: true},
		{file: "stock-nofencing.json", key: "lock", model: "mutex", why: []string{"acquire but the lock is already held"},
			ops: []string{"A:acquire(lock)", "B:acquire(lock)"}},
		{file: "stock-fencing.json", key: "lock", model: "mutex", why: []string{"acquire but the lock is already held"},
			ops: []string{"A:acquire(lock)", "B:acquire(lock)"}},
		{file: "stock-nofencing.json", key: "lock", model: "lock", why: []string{"B acquired the lock while A still holds it", "two holders"}},
		{file: "stock-fencing.json", key: "lock", model: "lock", why: []string{"B acquired the lock while A still holds it", "two holders"}},
		{file: "stock-nofencing.json", key: "lock", model: "lease", ttl: 10000, valid: true},
		{file: "stock-fencing.json", key: "lock", model: "lease", ttl: 10000, valid: true},
		// Eleven seconds are not enough for a lease of twenty.
		{file: "stock-fencing.json", key: "lock", model: "lease", ttl: 20000, why: []string{"A's lease was still in force", "two holders"}},
		{file: "redis-unsafe.json", key: "lock", model: "lease", ttl: 5000,
			why: []string{"a release by A succeeded but B holds the lock", "not the holder"},
			ops: []string{"A:acquire(lock, a7f3)", "B:acquire(lock, 9c2e)", "A:release(lock, a7f3)"}},
		{file: "redis-safe.json", key: "lock", model: "lease", ttl: 5000, valid: true},
		{file: "redis-unsafe.json", key: "lock", model: "lock", why: []string{"B acquired the lock while A still holds it"}},
		{file: "redis-safe.json", key: "lock", model: "lock", why: []string{"B acquired the lock while A still holds it"}},
		{file: "lockqueue.json", key: "lock", model: "lock", valid: true},
		{file: "lockqueue.json", key: "lock", model: "mutex", valid: true},
		{file: "lockqueue.json", key: "lock", model: "lease", ttl: 100, valid: true},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".json")+"/"+tt.key+"="+tt.model, func(t *testing.T) {
			h, err := format.ReadFile(filepath.Join(locksDir, tt.file), "")
			if err != nil {
				t.Fatal(err)
			}
			opts := model.Options{Init: h.Meta["init"], TTL: tt.ttl}
			sub := keyOnly(t, h, tt.key)
			res := checkWith(t, tt.model, opts, sub)
			if got := res.Valid == checker.True; got != tt.valid || res.Valid == checker.Unknown {
				t.Fatalf("verdict %v, want %v; %+v", res.Valid, tt.valid, res.Violations)
			}
			if tt.valid {
				return
			}
			v := res.Violations[0]
			explanation := report.Explain(sub, res.Criterion, v)
			for _, w := range tt.why {
				if !strings.Contains(explanation, w) {
					t.Errorf("explanation %q does not say %q", explanation, w)
				}
			}
			var named []string
			for _, i := range v.Ops {
				named = append(named, sub.Ops[i].Label())
			}
			for _, l := range tt.ops {
				if !slices.Contains(named, l) {
					t.Errorf("violation names %v, not %s", named, l)
				}
			}
		})
	}
}

// TestRedisTwoHolders shows the second half of the unsafe run: even if A's
// release is left out, C's acquire makes two holders while B's lease runs.
func TestRedisTwoHolders(t *testing.T) {
	h, err := format.ReadFile(filepath.Join(locksDir, "redis-unsafe.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	var ops []history.Op
	for _, o := range h.Ops {
		if o.F != "release" {
			ops = append(ops, o)
		}
	}
	sub, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	res := checkWith(t, "lease", model.Options{TTL: 5000}, sub)
	want := "C acquired the lock while B's lease was still in force (it lasts until at least 10500, and the acquire returned at 7505): two holders at once"
	if res.Valid != checker.False || !strings.Contains(report.Explain(sub, res.Criterion, res.Violations[0]), want) {
		t.Fatalf("verdict %v %+v, want a violation saying %q", res.Valid, res.Violations, want)
	}
}

// TestLockQueueTokens checks that the lock queue's tokens matter: with C5
// handed C2's token the run fails, while TestLockScenarios passes it as
// recorded. (Which operation the explanation names depends on the orders
// the search tried, since C4's acquire may be placed anywhere.)
func TestLockQueueTokens(t *testing.T) {
	h, err := format.ReadFile(filepath.Join(locksDir, "lockqueue.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	if c := h.Counts(); c.Info != 1 || c.OK != 8 {
		t.Fatalf("counts %+v, want C4's acquire unknown and 8 completed", c)
	}
	for i := range h.Ops {
		if h.Ops[i].Client == "C5" && h.Ops[i].F == "acquire" {
			h.Ops[i].Token = history.IntValue(3)
		}
	}
	res := checkWith(t, "lock", model.Options{}, h)
	if res.Valid != checker.False {
		t.Fatalf("verdict %v, want false", res.Valid)
	}
}

// naive holds the rules of the lock, lease and fenced-register models,
// written again from their documentation over history operations, so that
// the differential test checks the models and not only the search.
type naive struct {
	kind string // "lock", "lease" or "fenced-register"
	ttl  int64
	init history.Value
}

type naiveState struct {
	holder  string
	expires int64
	token   int64
	tokened bool // some token was handed out or accepted
	value   history.Value
}

func intOf(v history.Value) (int64, bool) { return v.Int() }

func (n naive) ttlOf(o *history.Op) int64 {
	for _, f := range o.Extra {
		if f.Name == "ttl" {
			d, _ := f.Value.Int()
			return d
		}
	}
	return n.ttl
}

func (n naive) step(s naiveState, o *history.Op) (naiveState, bool) {
	if n.kind == "fenced-register" {
		switch o.F {
		case "read":
			v := o.Value
			if v.IsNone() {
				v = history.NilValue
			}
			return s, o.Status == history.Info || v == s.value
		case "write":
			tk, has := intOf(o.Token)
			if has && s.tokened && tk < s.token {
				return s, false
			}
			s.value = o.Value
			if has {
				s.token, s.tokened = tk, true
			}
			return s, true
		}
		panic("fenced-register: " + o.F)
	}
	switch o.F {
	case "acquire":
		if s.holder != "" {
			// Under a lease the holder's grant may be over: the acquire's
			// latest possible point is its return (never, if unknown).
			if n.kind == "lock" || o.Status != history.Info && o.Return < s.expires {
				return s, false
			}
		}
		tk, has := intOf(o.Token)
		if !has {
			tk, has = intOf(o.Value)
		}
		if has && s.tokened && tk <= s.token {
			return s, false
		}
		s.holder, s.expires = o.Client, o.Call+n.ttlOf(o)
		if has {
			s.token, s.tokened = tk, true
		}
		return s, true
	case "renew":
		if s.holder != o.Client {
			return s, false
		}
		s.expires = o.Call + n.ttlOf(o)
		return s, true
	case "release":
		if s.holder != o.Client {
			return s, false
		}
		s.holder = ""
		return s, true
	}
	panic(n.kind + ": " + o.F)
}

// linearizable tries every sequence of distinct operations that did not
// fail, extending only legal prefixes, and accepts when one holds every
// completed operation: a sequence is legal when no operation in it returned
// before an earlier one in it was called and the rules accept it step by
// step.
func (n naive) linearizable(h *history.History) bool {
	var ops []*history.Op
	required := 0
	for i := range h.Ops {
		if h.Ops[i].Status != history.Fail {
			ops = append(ops, &h.Ops[i])
			if h.Ops[i].Status == history.OK {
				required++
			}
		}
	}
	used := make([]bool, len(ops))
	var seq []*history.Op
	var try func(s naiveState, done int) bool
	try = func(s naiveState, done int) bool {
		if done == required {
			return true
		}
		for i, o := range ops {
			if used[i] {
				continue
			}
			ok := true
			for _, x := range seq {
				if o.Return < x.Call {
					ok = false
				}
			}
			if !ok {
				continue
			}
			next, ok := n.step(s, o)
			if !ok {
				continue
			}
			used[i] = true
			seq = append(seq, o)
			d := done
			if o.Status == history.OK {
				d++
			}
			if try(next, d) {
				return true
			}
			seq = seq[:len(seq)-1]
			used[i] = false
		}
		return false
	}
	return try(naiveState{value: n.init}, 0)
}

// genLocks draws a small history of the given kind with its naive checker
// and model options.
func genLocks(r *rand.Rand, kind string, corrupt float64) (*history.History, naive, model.Options) {
	cfg := randhist.Config{
		Ops:       1 + r.IntN(7),
		Processes: 2 + r.IntN(2),
		Values:    1 + r.IntN(3),
		CrashRate: 0.12,
		FailRate:  0.1,
		Corrupt:   corrupt,
	}
	nv := naive{kind: kind, init: history.NilValue}
	var opts model.Options
	switch kind {
	case "lock":
		return randhist.Lock(r, cfg), nv, opts
	case "lease":
		nv.ttl = int64(3 + r.IntN(12))
		opts.TTL = nv.ttl
		return randhist.Lease(r, cfg, nv.ttl), nv, opts
	}
	if r.IntN(2) == 0 {
		cfg.Init = history.IntValue(0)
		nv.init, opts.Init = cfg.Init, cfg.Init
	}
	return randhist.FencedRegister(r, cfg), nv, opts
}

func referenceCheck(t *testing.T, kind string, opts model.Options, h *history.History) checker.Result {
	t.Helper()
	res := checkWith(t, kind, opts, h)
	if res.Valid == checker.True {
		var err error
		switch kind {
		case "lock":
			err = checker.VerifyWitness(model.NewLock(opts), h, res.Witness, checker.RealTime)
		case "lease":
			err = checker.VerifyWitness(model.NewLease(opts), h, res.Witness, checker.RealTime)
		default:
			err = checker.VerifyWitness(model.NewFencedRegister(opts), h, res.Witness, checker.RealTime)
		}
		if err != nil {
			t.Errorf("witness rejected: %v", err)
		}
	}
	return res
}

// TestLocksAgainstNaive cross-checks the models, through the reference
// checker, with the naive enumeration over the rules restated above, on
// random small histories; violations must name what went wrong.
func TestLocksAgainstNaive(t *testing.T) {
	const perModel = 10000
	phrases := []string{"two holders at once", "not the holder", "fencing token", "stale write", "but the register holds"}
	for ki, kind := range []string{"lock", "lease", "fenced-register"} {
		t.Run(kind, func(t *testing.T) {
			r := rand.New(rand.NewPCG(17, uint64(ki)))
			var valid, invalid int
			for n := 0; n < perModel; n++ {
				h, nv, opts := genLocks(r, kind, 0.6)
				res := referenceCheck(t, kind, opts, h)
				want := nv.linearizable(h)
				if got := res.Valid == checker.True; got != want || res.Valid == checker.Unknown {
					t.Fatalf("history %d: reference says %v, naive says %v:\n%s", n, res.Valid, want, dump(h))
				}
				if want {
					valid++
					continue
				}
				invalid++
				if e := report.Explain(h, res.Criterion, res.Violations[0]); !slices.ContainsFunc(phrases, func(p string) bool { return strings.Contains(e, p) }) &&
					!strings.HasSuffix(e, "model.") {
					t.Fatalf("history %d: explanation %q names no violation:\n%s", n, e, dump(h))
				}
			}
			t.Logf("%d linearizable, %d not", valid, invalid)
			if valid < perModel/5 || invalid < perModel/5 {
				t.Errorf("%d linearizable and %d not: too lopsided to test much", valid, invalid)
			}
		})
	}
}

// TestLocksSound checks that no correct run is flagged: every history of a
// real execution (each operation taking effect inside its interval, leases
// expiring exactly TTL after their grant or renew) is linearizable.
func TestLocksSound(t *testing.T) {
	for ki, kind := range []string{"lock", "lease", "fenced-register"} {
		r := rand.New(rand.NewPCG(19, uint64(ki)))
		for n := 0; n < 2000; n++ {
			h, _, opts := genLocks(r, kind, 0)
			if res := referenceCheck(t, kind, opts, h); res.Valid != checker.True {
				t.Fatalf("%s: correct history %d flagged: %+v\n%s", kind, n, res.Violations, dump(h))
			}
		}
	}
}

// TestFencedPruning checks the fenced register's Pruner: the reference
// gives the same verdict with and without the operations it drops.
func TestFencedPruning(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 1))
	dropped := 0
	for n := 0; n < 3000; n++ {
		cfg := randhist.Config{Ops: 1 + r.IntN(8), Processes: 2 + r.IntN(3), Values: 1 + r.IntN(3), CrashRate: 0.3, FailRate: 0.1, Corrupt: 0.6}
		h := randhist.FencedRegister(r, cfg)
		m := model.NewFencedRegister(model.Options{})
		c, err := checker.Compile(m, h, nil, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Dropped) == 0 {
			continue
		}
		dropped += len(c.Dropped)
		var kept []history.Op
		for i, o := range h.Ops {
			if !slices.Contains(c.Dropped, i) {
				kept = append(kept, o)
			}
		}
		full := checkWith(t, "fenced-register", model.Options{}, h)
		part := checkWith(t, "fenced-register", model.Options{}, &history.History{Ops: kept})
		if full.Valid != part.Valid {
			t.Fatalf("history %d: %v, but %v after pruning %v:\n%s", n, full.Valid, part.Valid, c.Dropped, dump(h))
		}
	}
	if dropped < 300 {
		t.Errorf("only %d operations pruned: the test has no bite", dropped)
	}
}

func dump(h *history.History) string {
	var sb strings.Builder
	for _, o := range h.Ops {
		sb.WriteString("  " + o.Label())
		if !o.Token.IsNone() {
			sb.WriteString(" token " + o.Token.String())
		}
		for _, f := range o.Extra {
			sb.WriteString(" " + f.Name + " " + f.Value.String())
		}
		sb.WriteString(" [" + itoa(o.Call) + ", " + itoa(o.Return) + "] " + o.Status.String() + "\n")
	}
	return sb.String()
}

func itoa(n int64) string {
	if n == history.Infinity {
		return "∞"
	}
	return history.IntValue(n).String()
}
