package ladder_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// ladderHistory draws one history for the ladder property: reads and
// writes of one register or of up to three keys, with crashed and failed
// operations, times that tie within and across processes, mostly unique
// values (sometimes repeated ones), and half the time versions (sometimes
// inconsistent with the values or their order).
func ladderHistory(r *rand.Rand) (*history.History, string) {
	cfg := randhist.Config{
		Ops:       2 + r.IntN(7),
		Processes: 1 + r.IntN(4),
		Values:    40,
		Keys:      1 + r.IntN(3),
		Init:      history.IntValue(0),
		CrashRate: 0.15,
		FailRate:  0.1,
		Corrupt:   0.7,
		Versions:  0.5,
		Ties:      1 + r.IntN(3),
	}
	if r.IntN(5) == 0 {
		cfg.Values = 3
	}
	if r.IntN(2) == 0 {
		return randhist.Register(r, cfg), "register"
	}
	return randhist.KVReadWrite(r, cfg), "kv"
}

// describe renders a history for a failure message, with versions.
func describe(h *history.History) string {
	var sb strings.Builder
	for i := range h.Ops {
		o := &h.Ops[i]
		fmt.Fprintf(&sb, "  %s", o.Label())
		if !o.Key.IsNone() {
			fmt.Fprintf(&sb, " key %s", o.Key)
		}
		if !o.Version.IsNone() {
			fmt.Fprintf(&sb, " version %s", o.Version)
		}
		ret := fmt.Sprint(o.Return)
		if o.Return == history.Infinity {
			ret = "∞"
		}
		fmt.Fprintf(&sb, " [%d, %s] %s\n", o.Call, ret, o.Status)
	}
	return sb.String()
}

// run checks one criterion through the suite; a panic is an error, so that
// the test reports it and goes on to the verdicts of the other histories.
func run(ctx context.Context, m suite.Model, h *history.History, c string, mopts model.Options) (res checker.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return suite.Run(ctx, m, h, c, mopts, suite.Options{Workers: 1, Verify: true})
}

// TestLadderProperty checks, on every random history, that no criterion
// holds while one it implies is violated, with every verdict computed as
// histcheck check -c all computes it (through the suite). It also counts
// how often each edge was exercised, so that the property cannot hold
// vacuously.
func TestLadderProperty(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 800
	}
	models := map[string]suite.Model{}
	for _, m := range suite.Builtin() {
		models[m.Info.Name] = m
	}
	mopts := model.Options{Init: history.IntValue(0)}
	r := rand.New(rand.NewPCG(17, 3))
	ctx := context.Background()
	tested := map[ladder.Edge][2]int{} // strong true, weak false
	versioned, decided := 0, 0
	for i := 0; i < n; i++ {
		h, name := ladderHistory(r)
		m := models[name]
		if model.UsesVersions(h) {
			versioned++
		}
		got := map[string]checker.Verdict{}
		for _, c := range checker.AllCriteria {
			res, err := run(ctx, m, h, c, mopts)
			if err != nil {
				t.Errorf("history %d (%s), %s: %v\n%s", i, name, c, err, describe(h))
				continue
			}
			got[c] = res.Valid
			if res.Valid != checker.Unknown {
				decided++
			}
		}
		for _, e := range ladder.Implies() {
			s, w := got[e.Strong], got[e.Weak]
			if s == checker.True && w == checker.False {
				t.Errorf("history %d (%s, versions %v): %s holds but %s, which it implies, is violated\n%s",
					i, name, model.UsesVersions(h), e.Strong, e.Weak, describe(h))
			}
			c := tested[e]
			if s == checker.True {
				c[0]++
			}
			if w == checker.False {
				c[1]++
			}
			tested[e] = c
		}
	}
	t.Logf("%d histories, %d with versions, %d verdicts decided", n, versioned, decided)
	if versioned < n/4 {
		t.Errorf("only %d of %d histories use versions", versioned, n)
	}
	for _, e := range ladder.Implies() {
		c := tested[e]
		t.Logf("%s ⇒ %s: strong held %d times, weak failed %d times", e.Strong, e.Weak, c[0], c[1])
		if c[0] < n/50 || c[1] < n/50 {
			t.Errorf("%s ⇒ %s is hardly exercised (strong held %d times, weak failed %d times)", e.Strong, e.Weak, c[0], c[1])
		}
	}
}
