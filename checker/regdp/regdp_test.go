package regdp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker/regdp"
	"github.com/histcheck/histcheck/report"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/sim"
)

// op builds a completed (or, with ret < 0, crashed) operation.
func op(client, f string, v int64, call, ret int64) history.Op {
	o := history.Op{Client: client, F: f, Value: history.IntValue(v), Call: call, Return: ret, Status: history.OK}
	if ret < 0 {
		o.Status, o.Return = history.Info, history.Infinity
	}
	return o
}

func mustHistory(t *testing.T, ops ...history.Op) *history.History {
	t.Helper()
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestTextbook checks verdicts on hand-made histories whose answer is
// plain, each chosen to exercise one rule of the programme.
func TestTextbook(t *testing.T) {
	cases := []struct {
		name string
		ops  []history.Op
		opts regdp.Options
		want checker.Verdict
	}{
		{"read of the initial value", []history.Op{op("A", "read", 0, 0, 1)}, regdp.Options{Init: history.IntValue(0)}, checker.True},
		{"read of nil when unset", []history.Op{{Client: "A", F: "read", Value: history.NilValue, Call: 0, Return: 1, Status: history.OK}}, regdp.Options{}, checker.True},
		{"read of a value never written", []history.Op{op("A", "read", 3, 0, 1)}, regdp.Options{}, checker.False},
		{"stale read after a completed write", []history.Op{op("A", "write", 1, 0, 1), op("B", "read", 0, 2, 3)}, regdp.Options{Init: history.IntValue(0)}, checker.False},
		{"concurrent read may see either", []history.Op{op("A", "write", 1, 0, 5), op("B", "read", 0, 1, 2), op("C", "read", 1, 3, 4)}, regdp.Options{Init: history.IntValue(0)}, checker.True},
		{"new then old is not linearizable", []history.Op{op("A", "write", 1, 0, 10), op("B", "read", 1, 1, 2), op("C", "read", 0, 3, 4)}, regdp.Options{Init: history.IntValue(0)}, checker.False},
		{"crashed write read later", []history.Op{op("A", "write", 2, 0, -1), op("B", "read", 2, 50, 51)}, regdp.Options{}, checker.True},
		{"crashed write cannot serve a read before its call", []history.Op{op("B", "read", 2, 0, 1), op("A", "write", 2, 5, -1)}, regdp.Options{}, checker.False},
		{"one crashed write serves one flip only", []history.Op{
			op("A", "write", 2, 0, -1), op("B", "read", 2, 1, 2), op("C", "write", 1, 3, 4), op("B", "read", 2, 5, 6)}, regdp.Options{}, checker.False},
		{"two crashed writes serve two flips", []history.Op{
			op("A", "write", 2, 0, -1), op("D", "write", 2, 0, -1), op("B", "read", 2, 1, 2), op("C", "write", 1, 3, 4), op("B", "read", 2, 5, 6)}, regdp.Options{}, checker.True},
		{"a write slipped in unseen", []history.Op{
			op("A", "write", 1, 0, 10), op("B", "write", 2, 1, 2), op("C", "read", 2, 3, 4), op("C", "read", 2, 12, 13)}, regdp.Options{}, checker.True},
		{"same-value writes need distinct moments", []history.Op{
			op("A", "write", 1, 0, 3), op("B", "write", 1, 0, 3), op("C", "write", 2, 0, 3), op("D", "read", 1, 4, 5), op("D", "read", 2, 6, 7)}, regdp.Options{}, checker.False},
		{"a later write of the same value cannot stand in for an earlier one", []history.Op{
			op("A", "write", 1, 0, 100), op("B", "read", 1, 1, 2), op("C", "write", 2, 3, 4), op("D", "write", 1, 5, 10), op("E", "read", 2, 11, 12), op("F", "read", 1, 13, 14)}, regdp.Options{}, checker.False},
		{"nil reads under NilAny", []history.Op{op("A", "write", 1, 0, 1), {Client: "B", F: "read", Value: history.NilValue, Call: 2, Return: 3, Status: history.OK}}, regdp.Options{NilAny: true}, checker.True},
		{"nil reads without NilAny", []history.Op{op("A", "write", 1, 0, 1), {Client: "B", F: "read", Value: history.NilValue, Call: 2, Return: 3, Status: history.OK}}, regdp.Options{}, checker.False},
		{"failed writes are ignored", []history.Op{{Client: "A", F: "write", Value: history.IntValue(1), Call: 0, Return: 1, Status: history.Fail}, op("B", "read", 0, 2, 3)}, regdp.Options{Init: history.IntValue(0)}, checker.True},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := mustHistory(t, c.ops...)
			ref, err := reference.Linearizable(context.Background(), registerModel(c.opts), h)
			if err != nil || ref.Valid != c.want {
				t.Fatalf("the reference says %v (%v); the case expects %v", ref.Valid, err, c.want)
			}
			checkAgainst(t, c.name, h, c.opts, c.want)
		})
	}
}

// TestViolationNamesTheStaleRead checks the report on sim's stale-read
// gadget: the violation names the read and says which value it missed.
func TestViolationNamesTheStaleRead(t *testing.T) {
	h, err := sim.Random(sim.RandomOptions{Ops: 300, Clients: 6, Model: "register", Anomaly: "stale-read", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	res := checkAgainst(t, "stale-read", h, regdp.Options{Init: h.Meta["init"]}, checker.False)
	v := res.Violations[0]
	read := &h.Ops[v.Ops[0]]
	if n, _ := read.Value.Int(); n >= 0 {
		t.Errorf("violation names %s; the gadget's stale read returns a negative value", read.Label())
	}
	if explanation := report.Explain(h, checker.Linearizable, v); !strings.Contains(explanation, read.Label()+" cannot take effect") || len(v.Prefix) == 0 {
		t.Errorf("explanation %q, prefix of %d operations", explanation, len(v.Prefix))
	}
}

// TestManyClients checks that histories with many clients and few values,
// where a search over orders explodes, are decided, valid and invalid.
func TestManyClients(t *testing.T) {
	for _, c := range []struct {
		clients, ops int
		anomaly      string
		want         checker.Verdict
	}{
		{16, 400, "none", checker.True},
		{16, 400, "stale-read", checker.False},
		{32, 200, "none", checker.True},
	} {
		h, err := sim.Random(sim.RandomOptions{Ops: c.ops, Clients: c.clients, Model: "register", CrashRate: 0.01, Anomaly: c.anomaly, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		checkAgainst(t, c.anomaly, h, regdp.Options{Init: h.Meta["init"]}, c.want)
	}
}

func TestCancelled(t *testing.T) {
	h, err := sim.Random(sim.RandomOptions{Ops: 2000, Clients: 32, Model: "register", CrashRate: 0.01, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := regdp.Check(ctx, h, regdp.Options{Init: h.Meta["init"]})
	if err != nil || res.Valid != checker.Unknown || !strings.Contains(res.Reason, "cancelled") {
		t.Fatalf("got %v %q %v; want unknown, cancelled", res.Valid, res.Reason, err)
	}
}

func TestApplies(t *testing.T) {
	rw := mustHistory(t, op("A", "write", 1, 0, 1), op("B", "get", 1, 2, 3), op("C", "put", 2, 4, 5))
	if !regdp.Applies(rw) {
		t.Error("reads and writes: Applies says no")
	}
	cas := mustHistory(t, op("A", "write", 1, 0, 1), history.Op{Client: "B", F: "cas", Value: history.ListValue(history.IntValue(1), history.IntValue(2)), Call: 2, Return: 3, Status: history.OK})
	if !regdp.Applies(cas) {
		t.Error("cas: Applies says no")
	}
	if res, err := regdp.Check(context.Background(), cas, regdp.Options{}); err != nil || res.Valid != checker.True {
		t.Errorf("write 1, then cas(1, 2): got %v %v, want true", res.Valid, err)
	}
	other := mustHistory(t, history.Op{Client: "A", F: "append", Value: history.IntValue(1), Call: 0, Return: 1, Status: history.OK})
	if regdp.Applies(other) {
		t.Error("append: Applies says yes")
	}
	if _, err := regdp.Check(context.Background(), other, regdp.Options{}); err == nil {
		t.Error("Check accepted an append")
	}
	bad := mustHistory(t, history.Op{Client: "A", F: "write", Call: 0, Return: 1, Status: history.OK})
	if _, err := regdp.Check(context.Background(), bad, regdp.Options{}); err == nil {
		t.Error("Check accepted a write without a value")
	}
}

// TestTooManyValuesAtOnce checks that a gap with more values waiting than
// the programme enumerates gives Unknown with a reason, not a wrong answer.
func TestTooManyValuesAtOnce(t *testing.T) {
	var ops []history.Op
	for v := int64(1); v <= regdp.MaxCands+2; v++ {
		ops = append(ops, op(fmt.Sprintf("w%d", v), "write", v, 0, 100), op(fmt.Sprintf("r%d", v), "read", v, 1, 50))
	}
	res, err := regdp.Check(context.Background(), mustHistory(t, ops...), regdp.Options{})
	if err != nil || res.Valid != checker.Unknown || !strings.Contains(res.Reason, "values waited") {
		t.Fatalf("got %v %q %v", res.Valid, res.Reason, err)
	}
}
