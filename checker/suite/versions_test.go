package suite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/checker/regdp"
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/checker/zones"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// TestVersionedEnginesAgainstReference compares the linearizability and
// sequential consistency engines, called directly (linearizability also
// by its search alone) and through the suite, with the reference checker on random register and key-value histories
// of reads and writes: most carry versions (some altered afterwards), with
// crashed and failed operations, often repeated values and times that tie
// within and across processes, so that the
// engines that assume values identify writes must step aside.
func TestVersionedEnginesAgainstReference(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 2000
	}
	r := rand.New(rand.NewPCG(5, 17))
	ctx := context.Background()
	builtin := map[string]suite.Model{}
	for _, m := range suite.Builtin() {
		builtin[m.Info.Name] = m
	}
	versioned, byVersions := 0, 0
	counts := map[string][2]int{}
	for i := 0; i < n; i++ {
		cfg := randhist.Config{
			Ops:       1 + r.IntN(8),
			Processes: 1 + r.IntN(4),
			Values:    1 + r.IntN(6),
			Keys:      1 + r.IntN(3),
			CrashRate: 0.15,
			FailRate:  0.1,
			Corrupt:   0.7,
			Versions:  0.8,
			Ties:      1 + r.IntN(3),
		}
		var opts model.Options
		switch r.IntN(3) {
		case 1:
			cfg.Init = history.IntValue(0)
			opts.Init = cfg.Init
		case 2:
			opts.NilRead = model.NilIsAny
		}
		name, newModel := "register", model.NewRegister
		h := (*history.History)(nil)
		if r.IntN(2) == 0 {
			h = randhist.Register(r, cfg)
		} else {
			name, newModel = "kv", model.NewKV
			h = randhist.KVReadWrite(r, cfg)
		}
		opts.Versions = model.UsesVersions(h)
		if opts.Versions {
			versioned++
		}
		what := fmt.Sprintf("history %d (%s, versions %v)", i, name, opts.Versions)
		for _, c := range []string{checker.Linearizable, checker.Sequential} {
			var ref, fast checker.Result
			var err error
			if c == checker.Linearizable {
				ref, err = reference.Linearizable(ctx, newModel(opts), h)
				if err == nil {
					fast, err = linear.Check(ctx, newModel(opts), h, linear.Options{Workers: 1, Verify: true})
				}
			} else {
				ref, err = reference.Sequential(ctx, newModel(opts), h)
				if err == nil {
					fast, err = sequential.Check(ctx, newModel(opts), h, sequential.Options{Workers: 1})
				}
			}
			if err != nil {
				t.Fatalf("%s, %s: %v\n%s", what, c, err, dump(h))
			}
			if opts.Versions {
				if want := byDefinition(h, c, opts); ref.Valid != want {
					t.Fatalf("%s, %s: the reference says %s, the definition %s\n%s", what, c, ref.Valid, want, dump(h))
				}
			}
			if c == checker.Linearizable {
				// The search alone, from the model, must agree too.
				slow, err := linear.Check(ctx, newModel(opts), h, linear.Options{Workers: 1, Verify: true, NoZones: true})
				if err != nil || slow.Valid != ref.Valid {
					t.Fatalf("%s: the search alone says %s (%v), the reference %s\n%s", what, slow.Valid, err, ref.Valid, dump(h))
				}
			}
			if fast.Method == sequential.MethodVersions || fast.Method == linear.MethodVersions {
				byVersions++
			}
			if fast.Valid != ref.Valid {
				t.Fatalf("%s, %s: the engine says %s (%s), the reference %s\n%s", what, c, fast.Valid, fast.Method, ref.Valid, dump(h))
			}
			viaSuite, err := suite.Run(ctx, builtin[name], h, c, opts, suite.Options{Workers: 1, Verify: true})
			if err != nil {
				t.Fatalf("%s, %s through the suite: %v\n%s", what, c, err, dump(h))
			}
			if viaSuite.Valid != ref.Valid {
				t.Fatalf("%s, %s: the suite says %s, the reference %s\n%s", what, c, viaSuite.Valid, ref.Valid, dump(h))
			}
			if opts.Versions {
				k := counts[c]
				if ref.Valid == checker.True {
					k[0]++
				} else {
					k[1]++
				}
				counts[c] = k
			}
		}
	}
	t.Logf("%d histories, %d with versions; %d verdicts decided from the version graph", n, versioned, byVersions)
	if versioned < n/3 || byVersions < versioned {
		t.Errorf("only %d of %d histories use versions, %d decided from them", versioned, n, byVersions)
	}
	for c, k := range counts {
		t.Logf("%s with versions: %d true, %d false", c, k[0], k[1])
		if k[0] < n/20 || k[1] < n/20 {
			t.Errorf("%s: versioned histories are unbalanced (%d true, %d false)", c, k[0], k[1])
		}
	}
}

// dump renders a history with versions for a failure message.
func dump(h *history.History) string {
	s := ""
	for i := range h.Ops {
		o := &h.Ops[i]
		s += fmt.Sprintf("  %s key=%s version=%s [%d, %d] %s\n", o.Label(), o.Key, o.Version, o.Call, o.Return, o.Status)
	}
	return s
}

// byDefinition decides linearizability or sequential consistency of a
// versioned read/write history straight from the definition of versions,
// without the models: it tries every order of the operations that took
// effect (all completed ones, any of those of unknown outcome) that
// respects the criterion's order, replaying per key a value and a version.
// A write needs an older version than the key holds (the initial value is
// older than all); a read with version v needs the key to hold exactly what
// the write of its key with version v wrote, or, when no write has v, the
// initial value, unwritten. Under NilIsAny a read of nil observes nothing.
func byDefinition(h *history.History, criterion string, opts model.Options) checker.Verdict {
	init := opts.Init
	if init.IsNone() {
		init = history.NilValue
	}
	type cell struct {
		val     history.Value
		ver     int64
		written bool
	}
	type keyVer struct {
		key history.Value
		ver int64
	}
	var ops []int
	writer := map[keyVer]history.Value{}
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Status == history.Fail {
			continue
		}
		ops = append(ops, i)
		if v, ok := o.Version.Int(); ok && (o.F == "write" || o.F == "put") {
			writer[keyVer{o.Key, v}] = o.Value
		}
	}
	// A process's operations are in its order in h.Ops, whatever their
	// times say; linearizability adds real time.
	before := func(i, j int) bool {
		a, b := &h.Ops[i], &h.Ops[j]
		if a.Process == b.Process && i < j {
			return true
		}
		return criterion == checker.Linearizable && a.Return < b.Call
	}
	step := func(st map[history.Value]cell, o *history.Op) bool {
		c := st[o.Key]
		v, hasV := o.Version.Int()
		switch {
		case o.F == "write" || o.F == "put":
			if c.written && v <= c.ver {
				return false
			}
			st[o.Key] = cell{val: o.Value, ver: v, written: true}
			return true
		case o.Status == history.Info || !hasV:
			return true // observed nothing (or nil under NilIsAny)
		}
		x := o.Value
		if x.IsNone() {
			x = history.NilValue
		}
		if x.IsNil() && opts.NilRead == model.NilIsAny {
			return true // Knossos's rule: nil says nothing, whatever its version
		}
		if w, ok := writer[keyVer{o.Key, v}]; ok {
			return c.written && c.ver == v && c.val == x && w == x
		}
		return !c.written && x == init
	}
	placed := make([]bool, len(ops))
	var try func(st map[history.Value]cell) bool
	try = func(st map[history.Value]cell) bool {
		done := true
		for j, i := range ops {
			if !placed[j] && h.Ops[i].Status == history.OK {
				done = false
			}
		}
		if done {
			return true
		}
		for j, i := range ops {
			if placed[j] {
				continue
			}
			ready := true
			for k, i2 := range ops {
				if !placed[k] && k != j && h.Ops[i2].Status == history.OK && before(i2, i) {
					ready = false
					break
				}
			}
			if !ready {
				continue
			}
			next := make(map[history.Value]cell, len(st)+1)
			for k, v := range st {
				next[k] = v
			}
			if !step(next, &h.Ops[i]) {
				continue
			}
			placed[j] = true
			ok := try(next)
			placed[j] = false
			if ok {
				return true
			}
		}
		return false
	}
	if try(map[history.Value]cell{}) {
		return checker.True
	}
	return checker.False
}

// TestVersionsStayOutOfValueEngines checks that the engines which assume
// values identify writes (zones, the register sweep) never decide a history
// whose versions say more: A's write of 1 carries version 2 and B's later
// write of 2 version 1, so A's write must take effect after B's although it
// returned before B's was called. The values alone are linearizable.
func TestVersionsStayOutOfValueEngines(t *testing.T) {
	op := func(c, f string, v, ver, call int64) history.Op {
		return history.Op{Client: c, F: f, Value: history.IntValue(v), Version: history.IntValue(ver),
			Call: call, Return: call + 1, Status: history.OK}
	}
	h, err := history.FromOps([]history.Op{op("A", "write", 1, 2, 0), op("B", "write", 2, 1, 2), op("C", "read", 2, 1, 4)})
	if err != nil {
		t.Fatal(err)
	}
	init := history.IntValue(0)
	if zones.Applies(h, init) {
		t.Error("zones claims a versioned history")
	}
	if _, err := regdp.Check(context.Background(), h, regdp.Options{Init: init}); err == nil {
		t.Error("the register sweep checked a versioned history")
	}
	res, err := linear.Check(context.Background(), model.NewRegister(model.Options{Init: init, Versions: true}), h, linear.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != checker.False || res.Method == zones.Method || res.Method == regdp.Method {
		t.Errorf("linearizable: %s by %s, want false by the search", res.Valid, res.Method)
	}
	plain := model.NewRegister(model.Options{Init: init})
	if res, err := linear.Check(context.Background(), plain, h, linear.Options{}); err != nil || res.Valid != checker.True {
		t.Errorf("without versions: %s (%v), want true", res.Valid, err)
	}
}
