package model_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// mrTxn builds a multi-register transaction's value from words such as
// "rx1" (read x = 1), "rx_" (read x = nil) and "wy2" (write 2 to y).
func mrTxn(words string) history.Value {
	var mops []history.Value
	for _, w := range strings.Fields(words) {
		f := map[byte]string{'r': "read", 'w': "write", 'a': "append"}[w[0]]
		v := history.NilValue
		if w[2] != '_' {
			v = history.IntValue(int64(w[2] - '0'))
		}
		mops = append(mops, history.ListValue(history.StringValue(f), history.StringValue(w[1:2]), v))
	}
	return history.ListValue(mops...)
}

// TestMultiRegisterSteps steps transactions from the initial state (every
// key nil, or 0) one after another: whether each is legal, and the state
// it leaves.
func TestMultiRegisterSteps(t *testing.T) {
	for _, c := range []struct {
		name    string
		opts    model.Options
		txns    []string // "?" before a transaction marks it of unknown outcome
		legal   []bool
		state   string
		explain string
	}{
		{name: "reads of the initial state", txns: []string{"rx_ ry_"}, legal: []bool{true}, state: "{} (every key nil)"},
		{name: "write then read", txns: []string{"wx1 wy2", "rx1 ry2"}, legal: []bool{true, true}, state: "{x 1, y 2} (other keys nil)"},
		{name: "a read sees its own transaction's writes", txns: []string{"wx1 rx1 wx2 rx2"}, legal: []bool{true}, state: "{x 2} (other keys nil)"},
		{name: "a stale read", txns: []string{"wx1", "rx_"}, legal: []bool{true, false}, state: "{x 1} (other keys nil)",
			explain: "read nil of x but it holds 1"},
		{name: "half a transaction seen", txns: []string{"wx1 wy1", "rx1 ry_"}, legal: []bool{true, false},
			explain: "read nil of y but it holds 1"},
		{name: "a read before its own write", txns: []string{"rx1 wx1"}, legal: []bool{false}, explain: "read 1 of x but it holds nil"},
		{name: "writing the initial value back", txns: []string{"wx1", "wx_"}, legal: []bool{true, true}, state: "{} (every key nil)"},
		{name: "unknown outcome reads anything", txns: []string{"wx1", "?rx3 wy3"}, legal: []bool{true, true}, state: "{x 1, y 3} (other keys nil)"},
		{name: "nil reads anything under NilIsAny", opts: model.Options{NilRead: model.NilIsAny}, txns: []string{"wx1", "rx_"},
			legal: []bool{true, true}, state: "{x 1} (other keys nil)"},
		{name: "initial value", opts: model.Options{Init: history.IntValue(0)}, txns: []string{"rx_", "wx1"},
			legal: []bool{false, true}, explain: "read nil of x but it holds 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := model.NewMultiRegister(c.opts)
			tab := model.NewTable()
			var ops []model.Op
			for _, words := range c.txns {
				o := history.Op{F: "txn", Value: mrTxn(strings.TrimPrefix(words, "?")), Status: history.OK}
				op, err := m.Compile(&o, tab)
				if err != nil {
					t.Fatal(err)
				}
				op.Unknown = strings.HasPrefix(words, "?")
				ops = append(ops, op)
			}
			s := m.Init(tab)
			for i := range ops {
				next, ok := m.Step(s, &ops[i])
				if ok != c.legal[i] {
					t.Fatalf("transaction %d legal %v, want %v", i, ok, c.legal[i])
				}
				if !ok {
					if got := m.(model.Explainer[string]).Explain(s, &ops[i], tab); got != c.explain {
						t.Errorf("explanation %q, want %q", got, c.explain)
					}
					return
				}
				s = next
			}
			if got := m.Describe(s, tab); got != c.state {
				t.Errorf("state %q, want %q", got, c.state)
			}
		})
	}
}

// TestMultiRegisterCompileErrors checks what the model refuses.
func TestMultiRegisterCompileErrors(t *testing.T) {
	m := model.NewMultiRegister(model.Options{})
	for _, o := range []history.Op{
		{F: "read", Value: history.IntValue(1)},
		{F: "txn", Value: history.IntValue(1)},
		{F: "txn", Value: mrTxn("ax1")},
	} {
		if _, err := m.Compile(&o, model.NewTable()); err == nil {
			t.Errorf("%s %s compiled", o.F, o.Value)
		}
	}
}

// mrGen generates a small multi-register history: each transaction takes
// effect at one instant inside its interval (or, crashed, possibly never;
// failed, never), its reads showing what was there; then some reads are
// altered, so that about half the histories are not linearizable.
func mrGen(r *rand.Rand) *history.History {
	n, procs := 1+r.IntN(6), 1+r.IntN(3)
	type planned struct {
		op    history.Op
		at    int64
		words []string
	}
	var ps []planned
	free := make([]int64, procs)
	client := make([]int, procs)
	for i := 0; i < n; i++ {
		p := r.IntN(procs)
		call := free[p] + int64(r.IntN(4))
		at := call + int64(r.IntN(4))
		ret := at + int64(r.IntN(4)) + 1
		free[p] = ret + 1
		var words []string
		for j := 0; j <= r.IntN(3); j++ {
			words = append(words, fmt.Sprintf("%c%c", "rw"[r.IntN(2)], "xy"[r.IntN(2)]))
		}
		st := history.OK
		switch x := r.Float64(); {
		case x < 0.12:
			st = history.Info
		case x < 0.2:
			st = history.Fail
		}
		op := history.Op{Client: fmt.Sprintf("%d.%d", p, client[p]), F: "txn", Call: call, Return: ret, Status: st}
		if st == history.Info {
			client[p]++ // a client goes on as a new process after a crash
			if r.IntN(2) == 0 {
				at = -1 // never took effect
			}
		}
		if st == history.Fail {
			at = -1
		}
		ps = append(ps, planned{op: op, at: at, words: words})
	}
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(ps[a].at - ps[b].at) })
	state := map[byte]byte{'x': '_', 'y': '_'}
	next := byte('1')
	for _, i := range order {
		p := &ps[i]
		for j, w := range p.words {
			switch {
			case w[0] == 'w':
				p.words[j] = w + string(next)
				if p.at >= 0 {
					state[w[1]] = next
				}
				next++
			case p.op.Status == history.Info:
				p.words[j] = w + "_" // an invocation's read
			default:
				p.words[j] = w + string(state[w[1]])
				if r.IntN(4) == 0 {
					p.words[j] = w + string("_123"[r.IntN(4)])
				}
			}
		}
		p.op.Value = mrTxn(strings.Join(p.words, " "))
	}
	ops := make([]history.Op, len(ps))
	for i := range ps {
		ops[i] = ps[i].op
		if ops[i].Status == history.Info {
			ops[i].Return = history.Infinity
		}
	}
	h, err := history.FromOps(ops)
	if err != nil {
		panic(err)
	}
	return h
}

// TestMultiRegisterDifferential checks, on random small histories, that
// linear.Check (its witnesses verified) and sequential.Check agree with
// the reference brute force, and that violations are explained.
func TestMultiRegisterDifferential(t *testing.T) {
	histories := 3000
	if testing.Short() {
		histories = 1000
	}
	r := rand.New(rand.NewPCG(20, 3))
	ctx := context.Background()
	var valid, invalid int
	for i := 0; i < histories; i++ {
		h := mrGen(r)
		m := model.NewMultiRegister(model.Options{})
		ref, err := reference.Linearizable(ctx, m, h)
		if err != nil {
			t.Fatal(err)
		}
		lin, err := linear.Check(ctx, m, h, linear.Options{Workers: 1, Verify: true})
		if err != nil || lin.Valid != ref.Valid {
			t.Fatalf("history %d: linear %v (%v), reference %v\n%s", i, lin.Valid, err, ref.Valid, dump(h))
		}
		refSeq, err := reference.Sequential(ctx, m, h)
		if err != nil {
			t.Fatal(err)
		}
		seq, err := sequential.Check(ctx, m, h, sequential.Options{Workers: 1})
		if err != nil || seq.Valid != refSeq.Valid {
			t.Fatalf("history %d: sequential %v (%v), reference %v\n%s", i, seq.Valid, err, refSeq.Valid, dump(h))
		}
		if ref.Valid == checker.True {
			valid++
			continue
		}
		invalid++
		if e := report.Explain(h, checker.Linearizable, lin.Violations[0]); !strings.Contains(e, "but it holds") && !strings.HasSuffix(e, "model.") {
			t.Fatalf("history %d: explanation %q names no violation\n%s", i, e, dump(h))
		}
	}
	t.Logf("%d linearizable, %d not", valid, invalid)
	if valid < histories/5 || invalid < histories/5 {
		t.Errorf("%d linearizable, %d not: too lopsided to test much", valid, invalid)
	}
}
