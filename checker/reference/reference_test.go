package reference

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// op is a compact way to write an operation in tests.
// The zero status means OK; FromOps gives info operations an infinite
// return.
type op struct {
	client    string
	f         string
	value     history.Value
	key       history.Value
	call, ret int64
	status    history.Type
}

func build(t *testing.T, ops ...op) *history.History {
	t.Helper()
	in := make([]history.Op, len(ops))
	for i, o := range ops {
		st := o.status
		if st == history.Invoke {
			st = history.OK
		}
		in[i] = history.Op{Index: int64(i), Client: o.client, F: o.f, Value: o.value, Key: o.key,
			Call: o.call, Return: o.ret, Status: st}
	}
	h, err := history.FromOps(in)
	if err != nil {
		t.Fatalf("building history: %v", err)
	}
	return h
}

var (
	i0 = history.IntValue(0)
	i1 = history.IntValue(1)
	i2 = history.IntValue(2)
)

func labels(h *history.History, pos []int) string {
	var s []string
	for _, p := range pos {
		s = append(s, h.Ops[p].Label())
	}
	return strings.Join(s, " -> ")
}

// textbook returns the histories H1–H3 of the consistency chapter, and H4,
// a read of a value never written.
func textbook(t *testing.T) map[string]*history.History {
	return map[string]*history.History{
		"H1": build(t,
			op{client: "A", f: "write", value: i1, call: 0, ret: 10},
			op{client: "B", f: "read", value: i0, call: 2, ret: 4},
			op{client: "C", f: "read", value: i1, call: 6, ret: 8}),
		"H2": build(t,
			op{client: "A", f: "write", value: i1, call: 0, ret: 10},
			op{client: "B", f: "read", value: i1, call: 2, ret: 4},
			op{client: "C", f: "read", value: i0, call: 6, ret: 8}),
		"H4": build(t,
			op{client: "B", f: "read", value: i1, call: 2, ret: 4}),
		"H3": build(t,
			op{client: "A", f: "write", value: i1, call: 0, ret: 2},
			op{client: "A", f: "read", value: i0, call: 3, ret: 5}),
	}
}

func TestTextbook(t *testing.T) {
	m := model.NewRegister(model.Options{Init: i0})
	hs := textbook(t)
	tests := []struct {
		name, hist string
		seq        bool
		valid      checker.Verdict
		witness    string
		explain    string // a fragment of the explanation when invalid
		violOps    string // the violation's operations, when given
	}{
		{"H1 lin", "H1", false, checker.True, "B:r(0) -> A:w(1) -> C:r(1)", "", ""},
		{"H1 seq", "H1", true, checker.True, "B:r(0) -> A:w(1) -> C:r(1)", "", ""},
		{"H2 lin", "H2", false, checker.False, "", "A:w(1), B:r(1), and C:r(0) cannot follow it: read 0 but the register holds 1", "A:w(1) -> B:r(1) -> C:r(0)"},
		{"H2 seq", "H2", true, checker.True, "C:r(0) -> A:w(1) -> B:r(1)", "", ""},
		{"H3 lin", "H3", false, checker.False, "", "A:r(0) cannot follow it: read 0 but the register holds 1", ""},
		{"H3 seq", "H3", true, checker.False, "", "A:r(0) cannot follow it: read 0 but the register holds 1", ""},
		{"H4 lin", "H4", false, checker.False, "", "respects real time and the register model: no operation can come first (B:r(1): read 1 but the register holds 0).", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := hs[tt.hist]
			check, ord, crit := Linearizable[int64], checker.RealTime, checker.Linearizable
			if tt.seq {
				check, ord, crit = Sequential[int64], checker.ProcessOrder, checker.Sequential
			}
			res, err := check(context.Background(), m, h)
			if err != nil {
				t.Fatal(err)
			}
			if res.Criterion != crit || res.Method != "reference" {
				t.Errorf("criterion %q method %q", res.Criterion, res.Method)
			}
			if res.Valid != tt.valid {
				t.Fatalf("valid = %v, want %v (%+v)", res.Valid, tt.valid, res)
			}
			if tt.valid == checker.True {
				if got := labels(h, res.Witness); got != tt.witness {
					t.Errorf("witness %s, want %s", got, tt.witness)
				}
				if err := checker.VerifyWitness(m, h, res.Witness, ord); err != nil {
					t.Errorf("witness rejected: %v", err)
				}
				return
			}
			if len(res.Violations) != 1 {
				t.Fatalf("violations: %+v", res.Violations)
			}
			v := res.Violations[0]
			if explanation := report.Explain(h, crit, v); len(v.Ops) == 0 || !strings.Contains(explanation, tt.explain) {
				t.Errorf("violation %+v (%q), want explanation containing %q", v, explanation, tt.explain)
			}
			if got := labels(h, v.Ops); tt.violOps != "" && got != tt.violOps {
				t.Errorf("violation ops %s, want %s", got, tt.violOps)
			}
		})
	}
}

func TestTooLarge(t *testing.T) {
	var ops []op
	for i := 0; i < MaxOps+1; i++ {
		ops = append(ops, op{client: "A", f: "write", value: i1, call: int64(2 * i), ret: int64(2*i + 1)})
	}
	// A failed operation does not count.
	ops[0].status = history.Fail
	h := build(t, ops...)
	if res, err := Linearizable(context.Background(), model.NewRegister(model.Options{}), h); err != nil || res.Valid != checker.True {
		t.Fatalf("with %d ops that did not fail: %v %+v", MaxOps, err, res)
	}
	ops[0].status = history.OK
	h = build(t, ops...)
	_, err := Sequential(context.Background(), model.NewRegister(model.Options{}), h)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Ops != MaxOps+1 {
		t.Fatalf("error %v, want TooLargeError with 13 ops", err)
	}
	if want := "at most 12 operations that did not fail; this history has 13"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h := textbook(t)["H2"]
	res, err := Linearizable(ctx, model.NewRegister(model.Options{Init: i0}), h)
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != checker.Unknown || !strings.Contains(res.Reason, "canceled") {
		t.Fatalf("got %+v, want Unknown with a reason", res)
	}
}

func TestCompileError(t *testing.T) {
	h := build(t, op{client: "A", f: "cas", value: i1, call: 0, ret: 1})
	_, err := Linearizable(context.Background(), model.NewCASRegister(model.Options{}), h)
	if err == nil || !strings.Contains(err.Error(), "cas needs a value [from to], got 1") {
		t.Fatalf("error %v", err)
	}
}

// TestCases covers optional operations, keys and the mutex with exact
// verdicts and witnesses.
func TestCases(t *testing.T) {
	x, y := history.StringValue("x"), history.StringValue("y")
	a, ab := history.StringValue("a"), history.StringValue("ab")
	b := history.StringValue("b")
	tests := []struct {
		name     string
		m        any
		h        []op
		lin, seq checker.Verdict
		witness  string // linearizable witness when valid
		dropped  int
	}{
		{
			// A crashed write explains a later read; it must be placed.
			name: "crashed write observed", m: model.NewRegister(model.Options{Init: i0}),
			h: []op{
				{client: "A", f: "write", value: i1, call: 0, status: history.Info},
				{client: "B", f: "read", value: i1, call: 5, ret: 6},
			},
			lin: checker.True, seq: checker.True, witness: "A:w(1) -> B:r(1)",
		},
		{
			// A crashed write nobody saw is left out of the witness.
			name: "crashed write unobserved", m: model.NewRegister(model.Options{Init: i0}),
			h: []op{
				{client: "A", f: "write", value: i1, call: 0, status: history.Info},
				{client: "B", f: "read", value: i0, call: 5, ret: 6},
			},
			lin: checker.True, seq: checker.True, witness: "B:r(0)", dropped: 1,
		},
		{
			// A failed write did not happen, so reading its value is wrong.
			name: "failed write", m: model.NewRegister(model.Options{Init: i0}),
			h: []op{
				{client: "A", f: "write", value: i1, call: 0, ret: 1, status: history.Fail},
				{client: "B", f: "read", value: i1, call: 5, ret: 6},
			},
			lin: checker.False, seq: checker.False,
		},
		{
			name: "nil read is any", m: model.NewRegister(model.Options{Init: i0, NilRead: model.NilIsAny}),
			h: []op{
				{client: "A", f: "write", value: i1, call: 0, ret: 1},
				{client: "B", f: "read", value: history.NilValue, call: 5, ret: 6},
			},
			lin: checker.True, seq: checker.True, witness: "A:w(1) -> B:r(nil)",
		},
		{
			name: "nil read is a value", m: model.NewRegister(model.Options{Init: i0}),
			h: []op{
				{client: "A", f: "write", value: i1, call: 0, ret: 1},
				{client: "B", f: "read", value: history.NilValue, call: 5, ret: 6},
			},
			lin: checker.False, seq: checker.False,
		},
		{
			// Two cas from the same value cannot both succeed.
			name: "double cas", m: model.NewCASRegister(model.Options{Init: i0}),
			h: []op{
				{client: "A", f: "cas", value: history.ListValue(i0, i1), call: 0, ret: 2},
				{client: "B", f: "cas", value: history.ListValue(i0, i2), call: 1, ret: 3},
			},
			lin: checker.False, seq: checker.False,
		},
		{
			// Keys are independent objects: y is still unset.
			name: "keys independent", m: model.NewKV(model.Options{}),
			h: []op{
				{client: "A", f: "put", key: x, value: a, call: 0, ret: 1},
				{client: "B", f: "get", key: y, value: a, call: 5, ret: 6},
			},
			lin: checker.False, seq: checker.False,
		},
		{
			name: "append", m: model.NewKV(model.Options{Init: history.StringValue("")}),
			h: []op{
				{client: "A", f: "append", key: x, value: a, call: 0, ret: 10},
				{client: "B", f: "append", key: x, value: b, call: 1, ret: 2},
				{client: "C", f: "get", key: x, value: history.StringValue("ba"), call: 11, ret: 12},
				{client: "C", f: "get", key: y, value: history.StringValue(""), call: 13, ret: 14},
			},
			lin: checker.True, seq: checker.True, witness: "B:append(x, b) -> A:append(x, a) -> C:get(x, ba) -> C:get(y, \"\")",
		},
		{
			// Appending to nil appends to "".
			name: "append to nil", m: model.NewKV(model.Options{}),
			h: []op{
				{client: "A", f: "append", key: x, value: a, call: 0, ret: 1},
				{client: "A", f: "append", key: x, value: history.StringValue("b"), call: 2, ret: 3},
				{client: "B", f: "get", key: x, value: ab, call: 4, ret: 5},
			},
			lin: checker.True, seq: checker.True, witness: "A:append(x, a) -> A:append(x, b) -> B:get(x, ab)",
		},
		{
			// Stale read across processes: sequential but not linearizable.
			name: "kv stale read", m: model.NewKV(model.Options{}),
			h: []op{
				{client: "A", f: "put", key: x, value: a, call: 0, ret: 1},
				{client: "B", f: "get", key: x, value: history.NilValue, call: 5, ret: 6},
			},
			lin: checker.False, seq: checker.True,
		},
		{
			name: "mutex double acquire", m: model.NewMutex(model.Options{}),
			h: []op{
				{client: "A", f: "acquire", call: 0, ret: 1},
				{client: "B", f: "acquire", call: 2, ret: 3},
			},
			lin: checker.False, seq: checker.False,
		},
		{
			name: "mutex handover", m: model.NewMutex(model.Options{}),
			h: []op{
				{client: "A", f: "acquire", call: 0, ret: 1},
				{client: "B", f: "acquire", call: 2, ret: 9},
				{client: "A", f: "release", call: 3, ret: 4},
				{client: "C", f: "acquire", call: 5, status: history.Info},
			},
			lin: checker.True, seq: checker.True, witness: "A:acquire() -> A:release() -> B:acquire()", dropped: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := build(t, tt.h...)
			switch m := tt.m.(type) {
			case model.Model[int64]:
				runCase(t, m, h, tt.lin, tt.seq, tt.witness, tt.dropped)
			case model.Model[bool]:
				runCase(t, m, h, tt.lin, tt.seq, tt.witness, tt.dropped)
			default:
				t.Fatalf("model type %T", tt.m)
			}
		})
	}
}

func runCase[S comparable](t *testing.T, m model.Model[S], h *history.History, lin, seq checker.Verdict, witness string, dropped int) {
	t.Helper()
	for _, c := range []struct {
		check func(context.Context, model.Model[S], *history.History) (checker.Result, error)
		ord   checker.Order
		want  checker.Verdict
	}{{Linearizable[S], checker.RealTime, lin}, {Sequential[S], checker.ProcessOrder, seq}} {
		res, err := c.check(context.Background(), m, h)
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid != c.want {
			t.Fatalf("%s: valid = %v, want %v (%+v)", res.Criterion, res.Valid, c.want, res)
		}
		switch res.Valid {
		case checker.True:
			if err := checker.VerifyWitness(m, h, res.Witness, c.ord); err != nil {
				t.Errorf("%s witness %s rejected: %v", res.Criterion, labels(h, res.Witness), err)
			}
			if c.ord == checker.RealTime {
				if got := labels(h, res.Witness); got != witness {
					t.Errorf("witness %s, want %s", got, witness)
				}
				if len(res.Dropped) != dropped {
					t.Errorf("dropped %v, want %d", res.Dropped, dropped)
				}
			}
		case checker.False:
			if len(res.Violations) != 1 || len(res.Violations[0].Ops) == 0 || report.Explain(h, res.Criterion, res.Violations[0]) == "" {
				t.Errorf("%s: violation %+v", res.Criterion, res.Violations)
			}
		}
	}
}

// TestUnknownKeepsProcessOrder uses a process that continues after an
// operation of unknown outcome (histories built by hand may do so): the
// crashed write may be left out, but if placed it must still precede its
// process's later read.
func TestUnknownKeepsProcessOrder(t *testing.T) {
	h := &history.History{Processes: 2, Clients: 2, Ops: []history.Op{
		{Index: 0, Process: 0, Client: "A", F: "write", Value: i1, Call: 0, Return: history.Infinity, Status: history.Info},
		{Index: 1, Process: 1, Client: "B", F: "read", Value: i1, Call: 1, Return: 2, Status: history.OK},
		{Index: 2, Process: 0, Client: "A", F: "read", Value: i0, Call: 5, Return: 6, Status: history.OK},
	}}
	m := model.NewRegister(model.Options{Init: i0})
	res, err := Sequential(context.Background(), m, h)
	if err != nil {
		t.Fatal(err)
	}
	// B:r(1) needs A:w(1) first, which must precede A:r(0) too.
	if res.Valid != checker.False {
		t.Fatalf("valid = %v (witness %s), want false", res.Valid, labels(h, res.Witness))
	}
	// Without B's read, leaving the write out is a witness.
	h.Ops = append(h.Ops[:1], h.Ops[2])
	res, err = Sequential(context.Background(), m, h)
	if err != nil || res.Valid != checker.True || labels(h, res.Witness) != "A:r(0)" || len(res.Dropped) != 1 {
		t.Fatalf("got %v %+v, want witness A:r(0) with the write dropped", err, res)
	}
}
