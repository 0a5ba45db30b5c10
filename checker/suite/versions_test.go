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
	"github.com/histcheck/histcheck/internal/weakref"
	"github.com/histcheck/histcheck/model"
)

// TestVersionedEnginesAgainstReference compares the linearizability and
// sequential consistency engines, called directly (linearizability also
// by its search alone) and through the suite, with the reference checker
// on random register and key-value histories of reads and writes: most
// carry versions (some altered afterwards), with crashed and failed
// operations, often repeated values and times that tie within and across
// processes, so that the engines that assume values identify writes must
// step aside. On histories with versions the reference checker, which
// reads them through the models, is itself compared with the brute force
// of package weakref, which reads them from their definition.
func TestVersionedEnginesAgainstReference(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 2000
	}
	r := rand.New(rand.NewPCG(5, 17))
	versioned, byVersions := 0, 0
	counts := map[string][2]int{}
	for i := 0; i < n; i++ {
		x := drawVersioned(r)
		if x.opts.Versions {
			versioned++
		}
		what := fmt.Sprintf("history %d (%s, versions %v)", i, x.name, x.opts.Versions)
		for _, c := range []string{checker.Linearizable, checker.Sequential} {
			ref, byVersion := x.agree(t, c, what)
			if byVersion {
				byVersions++
			}
			if x.opts.Versions {
				k := counts[c]
				if ref == checker.True {
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

// versionedCase is one random history of TestVersionedEnginesAgainstReference
// with its model and options.
type versionedCase struct {
	h        *history.History
	name     string // the built-in model
	newModel func(model.Options) model.Model[int64]
	opts     model.Options
}

// drawVersioned draws a register or key-value history of reads and writes,
// with versions most of the time, and its initial value and nil-read rule.
func drawVersioned(r *rand.Rand) versionedCase {
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
	var x versionedCase
	switch r.IntN(3) {
	case 1:
		cfg.Init = history.IntValue(0)
		x.opts.Init = cfg.Init
	case 2:
		x.opts.NilRead = model.NilIsAny
	}
	if r.IntN(2) == 0 {
		x.name, x.newModel, x.h = "register", model.NewRegister, randhist.Register(r, cfg)
	} else {
		x.name, x.newModel, x.h = "kv", model.NewKV, randhist.KVReadWrite(r, cfg)
	}
	x.opts.Versions = model.UsesVersions(x.h)
	return x
}

// agree fails the test unless the reference checker, the brute force (on
// histories with versions), the engine of criterion c (and for
// linearizability its search alone) and the suite agree. It returns the
// verdict and whether the engine decided it from the versions.
func (x versionedCase) agree(t *testing.T, c, what string) (checker.Verdict, bool) {
	t.Helper()
	ref, fast, err := x.referenceAndEngine(c)
	if err != nil {
		t.Fatalf("%s, %s: %v\n%s", what, c, err, dump(x.h))
	}
	if x.opts.Versions {
		if want := x.byDefinition(t, c, what); ref.Valid != want {
			t.Fatalf("%s, %s: the reference says %s, the definition %s\n%s", what, c, ref.Valid, want, dump(x.h))
		}
	}
	if c == checker.Linearizable {
		// The search alone, from the model, must agree too.
		slow, err := linear.Check(context.Background(), x.newModel(x.opts), x.h, linear.Options{Workers: 1, Verify: true, NoZones: true})
		if err != nil || slow.Valid != ref.Valid {
			t.Fatalf("%s: the search alone says %s (%v), the reference %s\n%s", what, slow.Valid, err, ref.Valid, dump(x.h))
		}
	}
	if fast.Valid != ref.Valid {
		t.Fatalf("%s, %s: the engine says %s (%s), the reference %s\n%s", what, c, fast.Valid, fast.Method, ref.Valid, dump(x.h))
	}
	viaSuite, err := suite.Run(context.Background(), suiteModel(t, x.name), x.h, c, x.opts, suite.Options{Workers: 1, Verify: true})
	if err != nil {
		t.Fatalf("%s, %s through the suite: %v\n%s", what, c, err, dump(x.h))
	}
	if viaSuite.Valid != ref.Valid {
		t.Fatalf("%s, %s: the suite says %s, the reference %s\n%s", what, c, viaSuite.Valid, ref.Valid, dump(x.h))
	}
	return ref.Valid, fast.Method == sequential.MethodVersions || fast.Method == linear.MethodVersions
}

// referenceAndEngine checks criterion c with the reference checker and,
// when it succeeds, with c's engine.
func (x versionedCase) referenceAndEngine(c string) (ref, fast checker.Result, err error) {
	ctx := context.Background()
	if c == checker.Linearizable {
		ref, err = reference.Linearizable(ctx, x.newModel(x.opts), x.h)
		if err == nil {
			fast, err = linear.Check(ctx, x.newModel(x.opts), x.h, linear.Options{Workers: 1, Verify: true})
		}
		return ref, fast, err
	}
	ref, err = reference.Sequential(ctx, x.newModel(x.opts), x.h)
	if err == nil {
		fast, err = sequential.Check(ctx, x.newModel(x.opts), x.h, sequential.Options{Workers: 1})
	}
	return ref, fast, err
}

// byDefinition decides criterion c on a history with versions by the brute
// force of package weakref, which shares no code with the models: it tries
// every choice of the writes of unknown outcome that took effect and
// every serialisation, with the writes of each key in version order.
func (x versionedCase) byDefinition(t *testing.T, c, what string) checker.Verdict {
	t.Helper()
	holds, err := weakref.DecideWith(x.h, weakref.Options{Init: x.opts.Init, NilIsAny: x.opts.NilRead == model.NilIsAny}, c)
	if err != nil {
		t.Fatalf("%s, %s: brute force: %v\n%s", what, c, err, dump(x.h))
	}
	if holds {
		return checker.True
	}
	return checker.False
}

// suiteModel returns the built-in model called name.
func suiteModel(t *testing.T, name string) suite.Model {
	t.Helper()
	m, err := suite.Lookup(suite.Builtin(), name)
	if err != nil {
		t.Fatal(err)
	}
	return m
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
