package adtref

import (
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// counterexample is a history that breaks ladder edges under the
// definitions for any model.
type counterexample struct {
	name  string
	model string
	opts  model.Options
	ops   []top
	// tokens gives fencing tokens, by the operation's index in ops.
	tokens map[int]int64
	want   string // every verdict, in the order of criteriaLine
	// breaks lists the edges the history breaks.
	breaks []ladder.Edge
}

var nothing = history.Value{}

func s(v string) history.Value { return history.StringValue(v) }

func edge(strong, weak string) ladder.Edge { return ladder.Edge{Strong: strong, Weak: weak} }

var counterexamples = []counterexample{
	{
		// Appends do not commute: each client reads both appends in its
		// own order, which causal pasts and PRAM's views allow, but one
		// arbitration order for every session cannot explain both reads.
		name: "two clients read two appends in opposite orders", model: "kv",
		ops: []top{{"A", "append", s("a"), "x", false}, {"B", "append", s("b"), "x", false},
			{"A", "read", s("ab"), "x", false}, {"B", "read", s("ba"), "x", false}},
		want:   "0101 1 0000",
		breaks: []ladder.Edge{edge(checker.Causal, checker.WritesFollowReads), edge(checker.PRAM, checker.MonotonicWrites)},
	},
	{
		// Each process's view puts the other's acquire before its own
		// release; one arbitration order keeping both sessions' order
		// cannot have each release after the other's acquire. (No causal
		// order either: the two would be a cycle.)
		name: "two clients release the mutex the other acquires next", model: "mutex",
		ops: []top{{"A", "release", nothing, "", false}, {"B", "release", nothing, "", false},
			{"A", "acquire", nothing, "", false}, {"B", "acquire", nothing, "", false}},
		want:   "0000 1 0000",
		breaks: []ladder.Edge{edge(checker.PRAM, checker.MonotonicWrites)},
	},
	// Hidden steps are total, so partial operations break no edge: the
	// refused operation in a view returned the refusal. (With refusals
	// illegal, as an earlier reading had them, each of these broke
	// causal-memory ⇒ pram.)
	{
		name: "two clients acquire the mutex", model: "mutex",
		ops:  []top{{"A", "acquire", nothing, "", false}, {"B", "acquire", nothing, "", false}},
		want: "0111 1 1111",
	},
	{
		name: "two clients acquire the lock", model: "lock",
		ops:  []top{{"A", "acquire", nothing, "", false}, {"B", "acquire", nothing, "", false}},
		want: "0111 1 1111",
	},
	{
		name: "two clients compare-and-set from the initial value", model: "cas-register",
		opts: model.Options{Init: i(0)},
		ops:  []top{{"A", "cas", history.ListValue(i(0), i(1)), "", false}, {"B", "cas", history.ListValue(i(0), i(2)), "", false}},
		want: "0111 1 1111",
	},
	{
		// In B's view its token-2 write must follow A's token-1 write,
		// which, hidden, is refused there; A's tokenless write of 2 may
		// come after B's write of 0, so B reads 2.
		name: "a read of a tokenless write that a stale fenced write follows", model: "fenced-register",
		opts: model.Options{Init: i(0)},
		ops: []top{{"A", "write", i(2), "", false}, {"A", "write", i(1), "", false},
			{"B", "write", i(0), "", false}, {"B", "read", i(2), "", false}},
		tokens: map[int]int64{1: 1, 2: 2},
		want:   "0111 1 1111",
	},
}

// TestLadderCounterexamples asserts the verdicts of the smallest histories
// found that break ladder edges under the definitions for any model, and
// that they break exactly the edges listed.
func TestLadderCounterexamples(t *testing.T) {
	for _, c := range counterexamples {
		t.Run(c.name, func(t *testing.T) {
			h := build(t, c.ops...)
			for k, tok := range c.tokens {
				h.Ops[k].Token = i(tok)
			}
			want := verdictsOf(c.want)
			got := verdicts(t, c.model, c.opts, h)
			for _, crit := range Criteria {
				if got[crit] != want[crit] {
					t.Errorf("%s: %v, want %v (%s)", crit, got[crit], want[crit], show(h))
				}
			}
			var broken []ladder.Edge
			for _, e := range decidedEdges() {
				if want[e.Strong] && !want[e.Weak] {
					broken = append(broken, e)
				}
			}
			for _, e := range broken {
				if !e.MemoryOnly || MemoryHistory(c.model, h) {
					t.Errorf("breaks %s ⇒ %s, which the ladder says holds here", e.Strong, e.Weak)
				}
			}
			if len(broken) != len(c.breaks) {
				t.Errorf("breaks %v, listed %v", broken, c.breaks)
			}
			for k := range broken {
				if k < len(c.breaks) && (broken[k].Strong != c.breaks[k].Strong || broken[k].Weak != c.breaks[k].Weak) {
					t.Errorf("breaks %v, listed %v", broken, c.breaks)
				}
			}
		})
	}
}
