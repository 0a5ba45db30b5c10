package ladder_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/session"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/internal/weakref"
)

// weakHistories is the number of random histories each weak criterion is
// compared on with its brute-force reference.
const weakHistories = 10000

// engine runs the polynomial checker of criterion c; a panic is returned as
// an error so that the test reports the history.
func engine(h *history.History, init history.Value, c string) (res checker.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	switch c {
	case checker.Causal, checker.CausalMemory, checker.CausalConvergence:
		return causal.Check(context.Background(), h, c, causal.Options{Init: init})
	}
	return session.Check(context.Background(), h, c, session.Options{Init: init})
}

// agree decides c on history i, h, with the brute force and with eng, and
// fails t when they differ or either errs. It returns the verdict and the
// checker's result; ok is false, and nothing decided, when h is too large
// for the brute force.
func agree(t *testing.T, i int, h *history.History, init history.Value, c string,
	eng func(*history.History, history.Value, string) (checker.Result, error)) (want bool, res checker.Result, ok bool) {
	t.Helper()
	want, err := weakref.Decide(h, init, c)
	if errors.Is(err, weakref.ErrTooLarge) {
		return false, res, false
	}
	if err != nil {
		t.Fatalf("history %d, %s: brute force: %v\n%s", i, c, err, text(h, init))
	}
	res, err = eng(h, init, c)
	if err != nil {
		t.Fatalf("history %d, %s: %v\n%s", i, c, err, text(h, init))
	}
	if res.Valid != verdict(want) {
		t.Fatalf("history %d, %s: checker says %s (%s), brute force says %v\n%s", i, c, res.Valid, res.Reason, want, text(h, init))
	}
	return want, res, true
}

// text renders a history for a failure message, one operation a line.
func text(h *history.History, init history.Value) string {
	var b strings.Builder
	fmt.Fprintf(&b, "init %s\n", init)
	for _, o := range h.Ops {
		ret := fmt.Sprint(o.Return)
		if o.Return == history.Infinity {
			ret = "?"
		}
		fmt.Fprintf(&b, "  p%d %s [%d, %s] %s\n", o.Process, o.Label(), o.Call, ret, o.Status)
	}
	return b.String()
}

// TestWeakCriteriaAgreeWithBruteForce compares every weak criterion's
// checker with the brute force of package weakref, which tries every choice
// of the writes of unknown outcome that took effect, on seeded random
// differentiated histories with crashed and failed writes and reads, ties,
// several keys and nil reads. Any disagreement or panic fails the test, and
// so does a ladder edge between weak criteria that the brute force refutes.
func TestWeakCriteriaAgreeWithBruteForce(t *testing.T) {
	n := weakHistories
	if testing.Short() {
		n = 3000
	}
	rng := rand.New(rand.NewPCG(17, 2026))
	type tally struct{ yes, no int }
	counts := map[string]*tally{}
	seen := map[string]int{}
	for _, c := range weakref.Criteria {
		counts[c] = &tally{}
	}
	weak := map[string]bool{}
	for _, c := range weakref.Criteria {
		weak[c] = true
	}
	for i := 0; i < n; i++ {
		h, init := randhist.ReadWrite(rng, randhist.WeakConfig{CrashRate: 0.15, FailRate: 0.1})
		ref := map[string]bool{}
		for k, ok := range shapes(h) {
			if ok {
				seen[k]++
			}
		}
		for _, c := range weakref.Criteria {
			want, _, ok := agree(t, i, h, init, c, engine)
			if !ok {
				t.Fatalf("history %d, %s: too large for the brute force\n%s", i, c, text(h, init))
			}
			ref[c] = want
			if want {
				counts[c].yes++
			} else {
				counts[c].no++
			}
		}
		for _, e := range ladder.Implies() {
			if weak[e.Strong] && weak[e.Weak] && ref[e.Strong] && !ref[e.Weak] {
				t.Fatalf("history %d: %s holds but %s does not, against the ladder\n%s", i, e.Strong, e.Weak, text(h, init))
			}
		}
	}
	t.Logf("%d histories", n)
	for _, k := range shapeNames {
		t.Logf("%-40s %5d histories", k, seen[k])
		if seen[k] < n/20 {
			t.Errorf("only %d histories have %s", seen[k], k)
		}
	}
	for _, c := range weakref.Criteria {
		t.Logf("%-20s %5d true %5d false", c, counts[c].yes, counts[c].no)
		if counts[c].yes < n/20 || counts[c].no < n/20 {
			t.Errorf("%s: the random histories are unbalanced (%d true, %d false)", c, counts[c].yes, counts[c].no)
		}
	}
}

var shapeNames = []string{"a write of unknown outcome", "a read write of unknown outcome", "a failed write",
	"a failed or unknown read", "a nil read", "several keys", "a tie across processes", "a tie inside a process"}

// shapes says which of the input shapes the generator must cover h has.
func shapes(h *history.History) map[string]bool {
	out := map[string]bool{}
	read := map[history.Value]bool{}
	keys := map[history.Value]bool{}
	last := map[int]int64{}
	calls := map[int64]int{}
	for i, o := range h.Ops {
		if o.F == "read" && o.Status == history.OK {
			read[o.Value] = true
			out["a nil read"] = out["a nil read"] || o.Value.IsNil()
		}
		out["a failed or unknown read"] = out["a failed or unknown read"] || (o.F == "read" && o.Status != history.OK)
		out["a failed write"] = out["a failed write"] || (o.F == "write" && o.Status == history.Fail)
		keys[o.Key] = true
		if r, ok := last[o.Process]; ok && r == o.Call {
			out["a tie inside a process"] = true
		}
		last[o.Process] = o.Return
		if j, ok := calls[o.Call]; ok && h.Ops[j].Process != o.Process {
			out["a tie across processes"] = true
		}
		calls[o.Call] = i
	}
	for _, o := range h.Ops {
		if o.F == "write" && o.Status == history.Info {
			out["a write of unknown outcome"] = true
			out["a read write of unknown outcome"] = out["a read write of unknown outcome"] || read[o.Value]
		}
	}
	out["several keys"] = len(keys) > 1
	return out
}
