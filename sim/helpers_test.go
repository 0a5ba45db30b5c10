package sim

import (
	"context"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// linearizable checks h with the WGL checker, verifying any witness.
func linearizable[S comparable](t *testing.T, m model.Model[S], h *history.History) checker.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := linear.Check(ctx, m, h, linear.Options{Verify: true})
	if err != nil {
		t.Fatalf("linear.Check: %v", err)
	}
	if res.Valid == checker.Unknown {
		t.Fatalf("linear.Check gave no verdict: %s", res.Reason)
	}
	return res
}

// onKey returns the operations of h on one key as a history of their own,
// without the key, so that an unkeyed model can check them.
func onKey(t *testing.T, h *history.History, key string) *history.History {
	t.Helper()
	var ops []history.Op
	for _, o := range h.Ops {
		if k, _ := o.Key.Str(); k == key {
			o.Key = history.Value{}
			ops = append(ops, o)
		}
	}
	sub, err := history.FromOps(ops)
	if err != nil {
		t.Fatalf("operations on %s: %v", key, err)
	}
	return sub
}

// fencedViolations returns the accepted writes whose token is lower than a
// token accepted by a write that completed before they were invoked: what a
// fenced register forbids, told without a model.
func fencedViolations(h *history.History) []int {
	var bad []int
	for i, w := range h.Ops {
		if w.F != "write" || w.Status != history.OK || w.Token.IsNone() {
			continue
		}
		tw, _ := w.Token.Int()
		for _, p := range h.Ops {
			if p.F == "write" && p.Status == history.OK && p.Return < w.Call {
				if tp, ok := p.Token.Int(); ok && tp > tw {
					bad = append(bad, i)
					break
				}
			}
		}
	}
	return bad
}

// statuses lists each operation as "client:f:status", in history order.
func statuses(h *history.History) []string {
	out := make([]string, len(h.Ops))
	for i, o := range h.Ops {
		out[i] = o.Client + ":" + o.F + ":" + o.Status.String()
	}
	return out
}
