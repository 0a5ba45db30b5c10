package check_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/checker/isolation"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestCriteriaTable checks the table against the facts it is derived from:
// every criterion once, strongest first, and exactly the ladder's edges.
func TestCriteriaTable(t *testing.T) {
	all := append(append(append([]string(nil), checker.AllCriteria...), elle.Levels...), isolation.Added...)
	if got := check.Names(); !slices.Equal(got, all) {
		t.Errorf("names %v, want %v", got, all)
	}
	var edges []ladder.Edge
	for _, c := range check.Criteria() {
		for _, w := range c.Implies {
			edges = append(edges, ladder.Edge{Strong: c.Name, Weak: w})
		}
		if c.Cores != (c.Name == checker.Linearizable || c.Name == checker.Sequential) {
			t.Errorf("%s: cores %v", c.Name, c.Cores)
		}
		if c.Local != (c.Name == checker.Linearizable) {
			t.Errorf("%s: local %v", c.Name, c.Local)
		}
	}
	want := append(ladder.Implies(), ladder.IsolationImplies()...)
	if len(edges) != len(want) {
		t.Fatalf("%d edges, want %d", len(edges), len(want))
	}
	for _, e := range want {
		e.MemoryOnly = false // the table names edges, whichever histories they hold for
		if !slices.Contains(edges, e) {
			t.Errorf("edge %v missing", e)
		}
	}
	if _, ok := check.Lookup("strict-linearizable"); ok {
		t.Error("Lookup found a criterion the table does not have")
	}
}

// TestRunErrors checks that Run refuses what it cannot check with an
// error, not a panic or a verdict.
func TestRunErrors(t *testing.T) {
	h, err := history.FromOps([]history.Op{{Client: "A", F: "write", Value: history.IntValue(1), Call: 0, Return: 1, Status: history.OK}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		h    *history.History
		req  check.Request
		want string
	}{
		{"no history", nil, check.Request{}, "no history"},
		{"invalid history", &history.History{Ops: []history.Op{{Client: "A", F: "write", Call: 5, Return: 1, Status: history.OK}}, Processes: 1, Clients: 1},
			check.Request{Model: "register"}, "invalid history"},
		{"unknown model", h, check.Request{Model: "nope"}, "nope"},
		{"unknown criterion", h, check.Request{Model: "register", Criteria: []string{"strict"}}, `unknown consistency criterion "strict"`},
		{"unsupported criterion", h, check.Request{Model: "lease", Criteria: []string{"causal"}}, "causal"},
		{"bad nil-read rule", h, check.Request{Model: "register", NilRead: "maybe"}, `"maybe"`},
		{"bad ttl", h, check.Request{Model: "register", TTL: "-3"}, "positive"},
	} {
		_, err := check.Run(context.Background(), tc.h, tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
}

// TestRunPerKey checks a history with a model per key: linearizability
// object by object, the verdicts named by key and model.
func TestRunPerKey(t *testing.T) {
	lock, stock := history.StringValue("lock"), history.StringValue("stock")
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "acquire", Key: lock, Token: history.IntValue(1), Call: 0, Return: 1, Status: history.OK},
		{Client: "B", F: "acquire", Key: lock, Token: history.IntValue(2), Call: 2, Return: 3, Status: history.OK},
		{Client: "A", F: "write", Key: stock, Value: history.IntValue(5), Token: history.IntValue(1), Call: 4, Return: 5, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := check.Run(context.Background(), h, check.Request{Model: "lock=lock,stock=fenced-register", NoCore: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 2 {
		t.Fatalf("%d results, want one per key", len(out.Results))
	}
	for _, r := range out.Results {
		if !r.PerKey || r.Valid != checker.False && r.Key == lock || r.Valid != checker.True && r.Key == stock {
			t.Errorf("key %v (%s): %v", r.Key, r.Model, r.Valid)
		}
	}
	_, err = check.Run(context.Background(), h, check.Request{Model: "lock=lock,stock=fenced-register", Criteria: []string{"sequential"}})
	if err == nil || !strings.Contains(err.Error(), "not compositional") {
		t.Errorf("sequential per key: %v", err)
	}
}

// TestVersionsIgnoredNote checks that versions given on only some
// operations are said to be ignored, and that complete ones are not.
func TestVersionsIgnoredNote(t *testing.T) {
	op := func(c, f string, v, ver int64, call int64) history.Op {
		o := history.Op{Client: c, F: f, Value: history.IntValue(v), Call: call, Return: call + 1, Status: history.OK}
		if ver > 0 {
			o.Version = history.IntValue(ver)
		}
		return o
	}
	for _, tc := range []struct {
		name string
		ops  []history.Op
		note bool
	}{
		{"all", []history.Op{op("A", "write", 1, 1, 0), op("B", "read", 1, 1, 2)}, false},
		{"some", []history.Op{op("A", "write", 1, 1, 0), op("B", "read", 1, 0, 2)}, true},
		{"none", []history.Op{op("A", "write", 1, 0, 0), op("B", "read", 1, 0, 2)}, false},
	} {
		h, err := history.FromOps(tc.ops)
		if err != nil {
			t.Fatal(err)
		}
		var notes []string
		_, err = check.Run(context.Background(), h, check.Request{Model: "register", Note: func(n check.Note) { notes = append(notes, n.Text) }})
		if err != nil {
			t.Fatal(err)
		}
		said := len(notes) > 0 && strings.HasPrefix(notes[0], "versions are ignored")
		if said != tc.note {
			t.Errorf("%s: notes %q", tc.name, notes)
		}
	}
}

// boom is a user model whose Step panics on a write of 2, as a bug would.
type boom struct{}

func (boom) Info() model.Info {
	return model.Info{Name: "boom", Doc: "panics on a write of 2",
		Ops: []model.OpInfo{{Names: []string{"read"}, Class: model.ReadOp}, {Names: []string{"write"}, Class: model.WriteOp}}}
}

func (boom) Compile(op *history.Op, _ *model.Table) (model.Op, error) {
	n, _ := op.Value.Int()
	if op.F == "write" {
		return model.Op{Kind: 1, A: n}, nil
	}
	return model.Op{A: n}, nil
}

func (boom) Init(*model.Table) int64 { return 0 }

func (boom) Step(s int64, op *model.Op) (int64, bool) {
	if op.Kind == 1 && op.A == 2 {
		panic(fmt.Sprintf("cannot write 2 over %d", s))
	}
	if op.Kind == 1 {
		return op.A, true
	}
	return s, op.A == s
}

func (boom) Describe(s int64, _ *model.Table) string { return fmt.Sprint(s) }

// TestRunModelPanic checks that a model's panic is an error naming the
// model, the operation and the state, with the verdict unknown.
func TestRunModelPanic(t *testing.T) {
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "write", Value: history.IntValue(1), Call: 0, Return: 1, Status: history.OK},
		{Client: "B", F: "write", Value: history.IntValue(2), Call: 2, Return: 3, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	models := []suite.Model{suite.Bind(func(model.Options) model.Model[int64] { return boom{} })}
	for _, c := range []string{"linearizable", "sequential"} {
		out, err := check.Run(context.Background(), h, check.Request{Model: "boom", Models: models, Criteria: []string{c}})
		var ie *suite.InternalError
		if !errors.As(err, &ie) || ie.Model == nil {
			t.Fatalf("%s: got error %v, want an internal error that names the model", c, err)
		}
		if !out.Internal || len(out.Results) != 1 || out.Results[0].Valid != checker.Unknown {
			t.Errorf("%s: outcome %+v, want one unknown verdict marked internal", c, out)
		}
		for _, want := range []string{"cannot write 2 over", `in model boom's Step on op 1 (B:w(2)) in state "`} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not say %q", c, err, want)
			}
		}
	}
}

// TestRunMemoryBudgetReached checks that a run whose memory budget ran out
// answers unknown and says so, rather than failing.
func TestRunMemoryBudgetReached(t *testing.T) {
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "write", Value: history.IntValue(1), Call: 0, Return: 1, Status: history.OK},
		{Client: "B", F: "read", Value: history.IntValue(1), Call: 2, Return: 3, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&budget.ExceededError{Limit: 300e6, InUse: 400 << 20})
	out, err := check.Run(ctx, h, check.Request{Model: "register", Criteria: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range out.Results {
		if r.Valid != checker.Unknown || !strings.HasPrefix(r.Reason, "the memory limit of 300 MB was reached (400 MiB in use); ") {
			t.Errorf("%s: %v, %q; want unknown for the memory limit", r.Criterion, r.Valid, r.Reason)
		}
	}
	if len(out.Results) < 10 {
		t.Errorf("%d results, want every criterion", len(out.Results))
	}
}
