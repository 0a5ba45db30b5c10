package adtref

import (
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/weakref"
	"github.com/histcheck/histcheck/model"
)

// top is one operation of a textbook history.
type top struct {
	client string
	f      string
	value  history.Value
	key    string
	info   bool // outcome unknown
}

// build makes a history of ops, one after another in time, each client's
// in the order given.
func build(t *testing.T, ops ...top) *history.History {
	t.Helper()
	var out []history.Op
	for i, o := range ops {
		op := history.Op{Client: o.client, F: o.f, Value: o.value, Index: int64(i),
			Call: int64(2 * i), Return: int64(2*i + 1), Status: history.OK}
		if o.key != "" {
			op.Key = history.StringValue(o.key)
		}
		if o.info {
			op.Status = history.Info
		}
		out = append(out, op)
	}
	h, err := history.FromOps(out)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func i(n int64) history.Value { return history.IntValue(n) }

func set(ns ...int64) history.Value {
	var vs []history.Value
	for _, n := range ns {
		vs = append(vs, i(n))
	}
	return history.SetValue(vs...)
}

// verdictsOf parses a verdict line: each criterion of Criteria, in order,
// as 1 (holds) or 0 (fails), in groups as written.
func verdictsOf(line string) map[string]bool {
	bits := strings.ReplaceAll(line, " ", "")
	out := map[string]bool{}
	for k, c := range Criteria {
		out[c] = bits[k] == '1'
	}
	return out
}

// criteriaLine names the criteria in the order verdict lines use.
const criteriaLine = "sequential causal-memory causal-convergence causal | pram | writes-follow-reads monotonic-writes monotonic-reads read-your-writes"

type textbook struct {
	name  string
	model string
	opts  model.Options
	ops   []top
	// want gives every verdict, in the order of criteriaLine.
	want string
}

var textbooks = []textbook{
	{
		name:  "each client adds and reads only its own element",
		model: "set",
		ops: []top{{"A", "add", i(1), "", false}, {"B", "add", i(2), "", false},
			{"A", "read", set(1), "", false}, {"B", "read", set(2), "", false}},
		// Each read's causal past may leave out the other's add, but in
		// one order of every operation the later read follows both adds.
		want: "0111 1 1111",
	},
	{
		name:  "a queue dequeues the second element enqueued first",
		model: "fifo-queue",
		ops: []top{{"A", "enqueue", i(1), "", false}, {"A", "enqueue", i(2), "", false},
			{"B", "dequeue", i(2), "", false}},
		// Every view that holds the enqueue of 2 holds the enqueue of 1
		// before it (process order), so 2 is never the head; a session
		// guarantee may show the dequeue the enqueue of 2 alone.
		want: "0000 0 1111",
	},
	{
		name:  "a counter read that no causal past explains",
		model: "counter",
		ops: []top{{"A", "add", i(2), "", false}, {"A", "add", i(-1), "", false},
			{"B", "read", i(-1), "", false}},
		// A's prefixes give 0, 2 and 1, never -1; a session guarantee may
		// show the read the add of -1 alone.
		want: "0000 0 1111",
	},
	{
		name:  "two clients hold the lock at once",
		model: "lock",
		ops:   []top{{"A", "acquire", history.Value{}, "", false}, {"B", "acquire", history.Value{}, "", false}},
		// Each acquire is legal in a causal past without the other; in a
		// view of every event, the other's acquire, hidden, comes second
		// and returned the refusal.
		want: "0111 1 1111",
	},
	{
		name:  "a client releases the lock it does not hold",
		model: "lock",
		ops:   []top{{"A", "acquire", history.Value{}, "", false}, {"B", "release", history.Value{}, "", false}},
		want:  "0000 0 0000",
	},
	{
		name:  "a crashed acquire that may not have taken effect",
		model: "lock",
		ops: []top{{"A", "acquire", history.Value{}, "", true}, {"B", "acquire", history.Value{}, "", false},
			{"B", "release", history.Value{}, "", false}},
		want: "1111 1 1111",
	},
}

// TestTextbooks checks the verdicts of small histories worked out by hand.
func TestTextbooks(t *testing.T) {
	for _, c := range textbooks {
		t.Run(c.name, func(t *testing.T) {
			h := build(t, c.ops...)
			want := verdictsOf(c.want)
			for _, crit := range Criteria {
				got, err := DecideNamed(c.model, c.opts, h, crit)
				if err != nil {
					t.Fatal(err)
				}
				if got != want[crit] {
					t.Errorf("%s: %v, want %v (%s)", crit, got, want[crit], show(h))
				}
			}
		})
	}
}

// TestSessionTypedForms checks the two points where the session
// guarantees with every pair of process order (↦ ⊆ vis for
// read-your-writes, vis;↦ ⊆ vis for monotonic-reads) would say more than
// their typed forms, which the definitions use and which package weakref
// and the register checkers of package session implement:
//
//   - read-your-writes asks ↦[update→observation] ⊆ vis, not ↦ ⊆ vis: the
//     untyped form would put each session's writes in ar in session order
//     (vis ⊆ ar), which is monotonic-writes' business;
//   - monotonic-reads asks vis;↦[observation→observation] ⊆ vis: the
//     untyped form would make a read that sees a later write of its own
//     session make that write visible to itself, which vis ⊆ ar forbids.
func TestSessionTypedForms(t *testing.T) {
	cases := []struct {
		name string
		ops  []top
		want string
	}{
		{"a session reads its first write after its second",
			[]top{{"A", "write", i(3), "", false}, {"A", "write", i(0), "", false}, {"A", "read", i(3), "", false}},
			"0000 0 1111"},
		{"a session reads the write it makes next",
			[]top{{"A", "read", i(1), "", false}, {"A", "write", i(1), "", false}},
			"0000 0 0111"},
	}
	opts := weakref.Options{Init: i(0)}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := build(t, c.ops...)
			want := verdictsOf(c.want)
			for _, crit := range Criteria {
				if got := mustRW(t, h, opts, crit); got != want[crit] {
					t.Errorf("%s: %v, want %v", crit, got, want[crit])
				}
				if ref, err := weakref.DecideWith(h, opts, crit); err != nil || ref != want[crit] {
					t.Errorf("%s: weakref says %v (%v), want %v", crit, ref, err, want[crit])
				}
			}
		})
	}
}

// TestCriteriaLine keeps the order the verdict lines are written in, as
// criteriaLine states it for readers of the tables, the order verdictsOf
// parses them in.
func TestCriteriaLine(t *testing.T) {
	names := strings.Fields(strings.ReplaceAll(criteriaLine, "|", " "))
	if !slices.Equal(names, Criteria) {
		t.Fatalf("criteriaLine lists %v; verdict lines are read in the order %v", names, Criteria)
	}
}
