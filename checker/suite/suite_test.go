package suite

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// h2 is the textbook history H2: sequential but not linearizable.
func h2(t *testing.T) *history.History {
	t.Helper()
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "write", Value: history.IntValue(1), Call: 0, Return: 10, Status: history.OK},
		{Client: "B", F: "read", Value: history.IntValue(1), Call: 2, Return: 4, Status: history.OK},
		{Client: "C", F: "read", Value: history.IntValue(0), Call: 6, Return: 8, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func register(t *testing.T) Model {
	t.Helper()
	m, err := Lookup(Builtin(), "register")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBuiltinVerdicts(t *testing.T) {
	h := h2(t)
	mopts := model.Options{Init: history.IntValue(0)}
	tests := []struct {
		criterion string
		want      checker.Verdict
		witness   []string
	}{
		{checker.Linearizable, checker.False, nil},
		{checker.Sequential, checker.True, []string{"C:r(0)", "A:w(1)", "B:r(1)"}},
		{checker.Causal, checker.True, nil},
		{checker.ReadYourWrites, checker.True, nil},
	}
	for _, tt := range tests {
		res, err := Run(context.Background(), register(t), h, tt.criterion, mopts, Options{Verify: true})
		if err != nil {
			t.Fatalf("%s: %v", tt.criterion, err)
		}
		if res.Valid != tt.want || res.Criterion != tt.criterion {
			t.Errorf("%s: got %v (%s), want %v", tt.criterion, res.Valid, res.Criterion, tt.want)
		}
		if tt.witness != nil {
			var got []string
			for _, i := range res.Witness {
				got = append(got, h.Ops[i].Label())
			}
			if len(got) != len(tt.witness) || got[0] != tt.witness[0] || got[1] != tt.witness[1] || got[2] != tt.witness[2] {
				t.Errorf("%s witness = %v, want %v", tt.criterion, got, tt.witness)
			}
		}
	}
}

// The causal criteria get the model's default initial value when none is
// given: with nil, C's read of 0 reads a value nobody wrote.
func TestReadWriteDefaultInit(t *testing.T) {
	res, err := Run(context.Background(), register(t), h2(t), checker.Causal, model.Options{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != checker.False {
		t.Errorf("causal with nil initial value: %v, want false", res.Valid)
	}
}

func TestUnsupported(t *testing.T) {
	// The lease's steps depend on real time, which the weak criteria
	// ignore: it has none of them.
	lease, err := Lookup(Builtin(), "lease")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), lease, h2(t), checker.Causal, model.Options{}, Options{})
	var ue *UnsupportedError
	if !errors.As(err, &ue) || ue.Model != "lease" || ue.Criterion != checker.Causal {
		t.Errorf("lease causal: %v, want an UnsupportedError", err)
	}
	_, err = Lookup(Builtin(), "queue")
	if err == nil || !strings.HasPrefix(err.Error(), `unknown model "queue" (accepted: register, cas-register, kv, mutex, `) ||
		!strings.Contains(err.Error(), "fenced-register") {
		t.Errorf("Lookup(queue) = %v", err)
	}
}

func TestExpiredDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []string{checker.Linearizable, checker.Sequential, checker.Causal, checker.PRAM} {
		res, err := Run(ctx, register(t), h2(t), c, model.Options{Init: history.IntValue(0)}, Options{})
		if err != nil || res.Valid != checker.Unknown || res.Reason == "" {
			t.Errorf("%s with an expired context: %v %q %v", c, res.Valid, res.Reason, err)
		}
	}
}

// flaky accepts every step while the search runs and rejects every step
// after budget steps: a model whose witness cannot be replayed, standing
// for a checker defect.
type flaky struct {
	steps  *int
	budget int
}

func (f flaky) Info() model.Info {
	return model.Info{Name: "flaky", Ops: []model.OpInfo{{Names: []string{"write"}}}}
}
func (f flaky) Compile(*history.Op, *model.Table) (model.Op, error) { return model.Op{}, nil }
func (f flaky) Init(*model.Table) int                               { return 0 }
func (f flaky) Step(s int, _ *model.Op) (int, bool) {
	*f.steps++
	return s, *f.steps <= f.budget
}
func (f flaky) Describe(s int, _ *model.Table) string { return "0" }

func TestVerifyCatchesBadWitness(t *testing.T) {
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "write", Call: 0, Return: 1, Status: history.OK},
		{Client: "B", F: "write", Call: 2, Return: 3, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The linear search takes two steps; replaying the witness goes past
	// the budget.
	m := Bind(func(model.Options) model.Model[int] { n := 0; return flaky{steps: &n, budget: 2} })
	res, err := Run(context.Background(), m, h, checker.Linearizable, model.Options{}, Options{})
	if err != nil || res.Valid != checker.True {
		t.Fatalf("without Verify: %v %v", res.Valid, err)
	}
	_, err = Run(context.Background(), m, h, checker.Linearizable, model.Options{}, Options{Verify: true})
	var we *WitnessError
	if !errors.As(err, &we) || we.Model != "flaky" {
		t.Fatalf("with Verify: %v, want a WitnessError", err)
	}
}

// TestLockModels checks that the lock, lease and fenced-register models are
// built in, support exactly linearizability and sequential consistency, and
// reach their verdicts through the suite, the lease's TTL included.
func TestLockModels(t *testing.T) {
	acq := func(c string, tok int64, call, ret int64) history.Op {
		return history.Op{Client: c, F: "acquire", Token: history.IntValue(tok), Call: call, Return: ret, Status: history.OK}
	}
	// B acquires at 11 s while A never released; A took the lock at 0 s.
	h, err := history.FromOps([]history.Op{acq("A", 33, 0, 50), acq("B", 34, 11000, 11050)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model     string
		ttl       int64
		criterion string
		want      checker.Verdict
	}{
		{"mutex", 0, checker.Linearizable, checker.False},
		{"lock", 0, checker.Linearizable, checker.False},
		{"lock", 0, checker.Sequential, checker.False},
		{"lease", 10000, checker.Linearizable, checker.True},
		{"lease", 10000, checker.Sequential, checker.True},
		{"lease", 20000, checker.Linearizable, checker.False},
	}
	for _, tt := range tests {
		m, err := Lookup(Builtin(), tt.model)
		if err != nil {
			t.Fatal(err)
		}
		want := "linearizable,sequential,causal-memory,causal-convergence,causal,pram,writes-follow-reads,monotonic-writes,monotonic-reads,read-your-writes"
		if tt.model == "lease" {
			want = "linearizable,sequential"
		}
		if strings.Join(m.Criteria, ",") != want {
			t.Errorf("%s criteria = %v", tt.model, m.Criteria)
		}
		res, err := Run(context.Background(), m, h, tt.criterion, model.Options{TTL: tt.ttl}, Options{Verify: true})
		if err != nil {
			t.Fatalf("%s %s: %v", tt.model, tt.criterion, err)
		}
		if res.Valid != tt.want {
			t.Errorf("%s (ttl %d) %s: %v, want %v", tt.model, tt.ttl, tt.criterion, res.Valid, tt.want)
		}
	}
	// A lease without a TTL is an error that says how to give one.
	m, _ := Lookup(Builtin(), "lease")
	if _, err := Run(context.Background(), m, h, checker.Linearizable, model.Options{}, Options{}); err == nil ||
		!strings.Contains(err.Error(), "needs a lease length") {
		t.Errorf("lease without TTL: %v", err)
	}
	// The fenced register refuses an acknowledged write with a stale token.
	w := func(c string, v, tok, call int64) history.Op {
		return history.Op{Client: c, F: "write", Value: history.IntValue(v), Token: history.IntValue(tok), Call: call, Return: call + 10, Status: history.OK}
	}
	hs, err := history.FromOps([]history.Op{w("B", 8, 34, 0), w("A", 9, 33, 20)})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := Lookup(Builtin(), "fenced-register")
	res, err := Run(context.Background(), f, hs, checker.Linearizable, model.Options{}, Options{})
	if err != nil || res.Valid != checker.False {
		t.Errorf("fenced-register: %v %v, want false", res.Valid, err)
	}
}
