package suite

import (
	"context"
	"slices"
	"sync"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/checker/isolation"
	"github.com/histcheck/histcheck/history"
)

// exactCache keeps the exact verdicts (package isolation) of the last
// history checked, so that -c all runs each search once.
type exactCache struct {
	mu   sync.Mutex
	h    *history.History
	n    int
	opts isolation.Options
	out  map[string]checker.Result
}

func (c *exactCache) get(ctx context.Context, h *history.History, level string, o isolation.Options) (checker.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h != h || c.n != len(h.Ops) || c.opts != o {
		c.h, c.n, c.opts, c.out = h, len(h.Ops), o, map[string]checker.Result{}
	}
	if r, ok := c.out[level]; ok {
		return r, nil
	}
	r, err := isolation.Check(ctx, h, level, o)
	if err != nil {
		return r, err
	}
	c.out[level] = r
	return r, nil
}

// exactFor is the level package isolation decides exactly that Elle's
// level implies, the strongest: serializable, snapshot isolation, or ""
// when it implies neither.
func exactFor(level string) string {
	seen := map[string]bool{}
	stack := []string{level}
	for len(stack) > 0 {
		l := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[l] {
			continue
		}
		seen[l] = true
		stack = append(stack, elle.Implies[l]...)
	}
	switch {
	case seen[elle.Serializable]:
		return isolation.Serializable
	case seen[elle.SnapshotIsolation]:
		return isolation.SnapshotIsolation
	}
	return ""
}

// refine combines Elle's verdict on level with the exact verdict on the
// strongest level package isolation decides that level implies: a
// violation of either is a violation; where Elle found no cycle, whether
// a commit order exists decides (for serializable and snapshot isolation
// themselves), or must be known (for the levels that imply them).
func refine(level string, el, ex checker.Result) checker.Result {
	if el.Valid == checker.False {
		return el // Elle's anomalies, as Elle names them
	}
	out := el
	switch ex.Valid {
	case checker.False:
		out.Valid = checker.False
		out.Violations = slices.Clone(ex.Violations)
		out.Reason = "no commit order exists (" + ex.Criterion + ", decided exactly): " + ex.Reason
		out.Method = ex.Method
	case checker.Unknown:
		out.Valid = checker.Unknown
		out.Reason = "Elle's cycle search found no anomaly, but whether a commit order exists is not known (" + ex.Criterion + "): " + ex.Reason
	case checker.True:
		if ex.Criterion == level {
			out.Valid = checker.True
			out.Witness = ex.Witness
			out.Dropped = ex.Dropped
			out.Method = el.Method + " and " + ex.Method
			if el.Valid == checker.Unknown {
				out.Reason = ex.Reason
			}
		}
	}
	return out
}
