package adtref

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/internal/weakref"
	"github.com/histcheck/histcheck/model"
)

// show renders a history one process per line, for failure messages:
// each operation as name(key value), ? for an unknown outcome.
func show(h *history.History) string {
	lines := map[int][]string{}
	for _, o := range h.Ops {
		if o.Status == history.Fail {
			continue
		}
		s := o.F + "("
		if !o.Key.IsNone() {
			s += o.Key.String() + " "
		}
		s += o.Value.String()
		if !o.Token.IsNone() {
			s += " token " + o.Token.String()
		}
		s += ")"
		if o.Status == history.Info {
			s += "?"
		}
		lines[o.Process] = append(lines[o.Process], s)
	}
	var out []string
	for p := 0; p < h.Processes; p++ {
		if len(lines[p]) > 0 {
			out = append(out, fmt.Sprintf("p%d: %s", p, strings.Join(lines[p], " ")))
		}
	}
	return strings.Join(out, "; ")
}

// registerCase draws a read/write history (no cas) that the brute force
// takes: at most MaxEvents operations that did not fail, on one or two
// keys, values unique or repeated.
func registerCase(r *rand.Rand) (*history.History, weakref.Options) {
	cfg := randhist.WeakConfig{Ops: 3 + r.IntN(5), Processes: 2 + r.IntN(2), Keys: 1 + r.IntN(2),
		CrashRate: 0.15, FailRate: 0.1}
	if r.IntN(2) == 0 {
		cfg.Values = 2 + r.IntN(2)
	}
	h, init := randhist.ReadWrite(r, cfg)
	return h, weakref.Options{Init: init, NilIsAny: r.IntN(4) == 0}
}

// decideRW decides a read/write history with the register model (no keys)
// or kv (keys), read as weakref reads it.
func decideRW(h *history.History, opts weakref.Options, criterion string) (bool, error) {
	mopts := model.Options{Init: opts.Init}
	if opts.NilIsAny {
		mopts.NilRead = model.NilIsAny
	}
	for _, o := range h.Ops {
		if !o.Key.IsNone() {
			return Decide(model.NewKV(mopts), h, criterion)
		}
	}
	return Decide(model.NewRegister(mopts), h, criterion)
}

// TestAgreesWithWeakref compares Decide with weakref's brute force, written
// from the register definitions, on read/write histories with crashed and
// failed operations, repeated values and nil reads: on such histories the
// definitions for any model (hidden steps total, the session guarantees in
// their typed forms) are the register ones, so they agree on every
// criterion.
func TestAgreesWithWeakref(t *testing.T) {
	n := 2500
	if testing.Short() {
		n = 700
	}
	r := rand.New(rand.NewPCG(24, 7))
	agree, differ := map[string]int{}, map[string]int{}
	for range n {
		h, opts := registerCase(r)
		for _, c := range weakref.Criteria {
			want, err := weakref.DecideWith(h, opts, c)
			if err != nil {
				continue // beyond weakref's limits
			}
			if got := mustRW(t, h, opts, c); got != want {
				differ[c]++
				t.Errorf("%s: adtref %v, weakref %v on %s (init %s, nil any %v)", c, got, want, show(h), opts.Init, opts.NilIsAny)
				continue
			}
			agree[c]++
		}
	}
	for _, c := range weakref.Criteria {
		t.Logf("%s: %d agree, %d differ", c, agree[c], differ[c])
		if agree[c] < n/2 {
			t.Errorf("%s: only %d histories compared", c, agree[c])
		}
	}
}

func mustRW(t *testing.T, h *history.History, opts weakref.Options, c string) bool {
	t.Helper()
	ok, err := decideRW(h, opts, c)
	if err != nil {
		t.Fatalf("%s: %v on %s", c, err, show(h))
	}
	return ok
}
