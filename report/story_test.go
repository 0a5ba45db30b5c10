package report

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// referenceCheck is the reference checker of crit for a model, as a
// shrink.Checker.
func referenceCheck[S comparable](m model.Model[S], crit string) shrink.Checker {
	return func(ctx context.Context, h *history.History) (checker.Result, error) {
		if crit == checker.Sequential {
			return reference.Sequential(ctx, m, h)
		}
		return reference.Linearizable(ctx, m, h)
	}
}

// TestCoreStories tells the cores of the textbook histories: the stale
// read of H2 (whichever checker found it), the process that does not read
// its own write (H3), a read of an overwritten value, and a read of a value
// nobody wrote.
func TestCoreStories(t *testing.T) {
	h2, h3 := textbook(t, "h2"), textbook(t, "h3")
	overwritten, unwritten := textbook(t, "overwritten"), textbook(t, "unwritten")
	cs := checkers(register0)
	cases := []struct {
		name    string
		h       *history.History
		check   shrink.Checker
		phrases []string
	}{
		{"H2/linearizable", h2, shrink.Checker(cs[checker.Linearizable]),
			[]string{"B:r(1) read the new value 1 and finished at 4, before C:r(0) began at 6",
				"yet C:r(0) read the old value 0",
				"Only A:w(1) wrote 1, so once B:r(1) saw 1 the write had taken effect",
				"no later read may return 0"}},
		{"H2/reference", h2, referenceCheck(register0(), checker.Linearizable),
			[]string{"B:r(1) read the new value 1"}},
		{"H3/linearizable", h3, shrink.Checker(cs[checker.Linearizable]),
			[]string{"A:w(1) finished at 2 before A:r(0) began at 3 (same process)",
				"yet the read returned 0, the value before the write"}},
		{"H3/sequential", h3, shrink.Checker(cs[checker.Sequential]),
			[]string{"A:w(1) comes before A:r(0) in process A's order",
				"yet the read returned 0, the value before the write"}},
		{"overwritten/linearizable", overwritten, shrink.Checker(cs[checker.Linearizable]),
			[]string{"min:w(2) finished at 3 before maj:r(1) began at 4, yet the read returned the older value 1, which the write had overwritten.",
				"min:w(1) finished at 1 before min:w(2) began at 2 (same process)."}},
		{"unwritten/linearizable", unwritten, shrink.Checker(cs[checker.Linearizable]),
			[]string{"maj:r(5) read 5, which no operation wrote and which is not the initial value."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			core, err := shrink.Minimize(context.Background(), c.h, c.check, false)
			if err != nil {
				t.Fatal(err)
			}
			rc := NewCore(c.h, core)
			for _, p := range c.phrases {
				if !strings.Contains(rc.Explanation, p) {
					t.Errorf("explanation lacks %q:\n%s", p, rc.Explanation)
				}
			}
			t.Logf("\n%s\n%s", rc.Timeline, rc.Explanation)
		})
	}
}

// TestRedisUnsafeReleaseStory: the core of the Redis unsafe release under
// the lease model names the operations as recorded, and no internal name
// of a weakened client.
func TestRedisUnsafeReleaseStory(t *testing.T) {
	h, err := format.ReadFile("../testdata/histories/locks/redis-unsafe.json", "")
	if err != nil {
		t.Fatal(err)
	}
	lease := func() model.Model[model.LeaseState] { return model.NewLease(model.Options{}) }
	cs := checkers(lease)
	for _, c := range []struct {
		crit  string
		check shrink.Checker
	}{
		{checker.Linearizable, shrink.Checker(cs[checker.Linearizable])},
		{checker.Sequential, shrink.Checker(cs[checker.Sequential])},
		{checker.Linearizable, referenceCheck(lease(), checker.Linearizable)},
	} {
		core, err := shrink.Minimize(context.Background(), h, c.check, false)
		if err != nil {
			t.Fatalf("%s: %v", c.crit, err)
		}
		rc := NewCore(h, core)
		text := rc.Explanation + rc.Timeline
		if regexp.MustCompile(`[A-Z][~#][0-9]`).MatchString(text) || !strings.Contains(text, "A:release(lock, a7f3)") {
			t.Errorf("%s: core text:\n%s", c.crit, text)
		}
	}
}

// TestCoreLabels: the checker's reason on a core's history names a
// weakened cas as recorded, not by the write it became there; and two
// operations of the core that render alike each carry their index.
func TestCoreLabels(t *testing.T) {
	i1, i2 := history.IntValue(1), history.IntValue(2)
	cas := history.Op{Client: "A", F: "cas", Value: history.ListValue(i1, i2), Call: 0, Return: 1, Status: history.OK}
	write := func(call int64) history.Op {
		return history.Op{Client: "A", F: "write", Value: i2, Call: call, Return: call + 1, Status: history.OK}
	}
	read := history.Op{Client: "B", F: "read", Value: i2, Call: 2, Return: 3, Status: history.OK}
	for _, tt := range []struct {
		name string
		ops  []history.Op
		want string
	}{
		{"cas", []history.Op{cas, read}, "(after A:cas(1, 2))"},
		{"cas and write", []history.Op{cas, write(2)}, "(after A:cas(1, 2))"},
		{"alike", []history.Op{write(0), write(2), read}, "(after A:w(2)#0 -> A:w(2)#1)"},
	} {
		h, err := history.FromOps(tt.ops)
		if err != nil {
			t.Fatal(err)
		}
		n := len(tt.ops)
		origin := make([]int, n)
		prefix := make([]int, n-1)
		for i := range origin {
			origin[i] = i
		}
		for i := range prefix {
			prefix[i] = i
		}
		v := checker.Violation{Ops: []int{n - 1}, Prefix: prefix, Stuck: []checker.Stuck{{Op: n - 1, Said: "no"}}}
		core := shrink.Core{History: shrink.Weaken(h, []int{0}), Origin: origin, Violation: v}
		if got := coreReason(h, core, checker.Linearizable); !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q in it", tt.name, got, tt.want)
		}
	}
}
