package bank_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/cli"
	"github.com/histcheck/histcheck/examples/bank"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

var (
	n    = history.IntValue
	list = history.ListValue
)

func op(c, f string, v history.Value, call, ret int64, st history.Type) history.Op {
	return history.Op{Client: c, F: f, Value: v, Call: call, Return: ret, Status: st}
}

// TestBankVerdicts runs the bank model through every checker that works
// from a sequential specification, with no change to any of them.
func TestBankVerdicts(t *testing.T) {
	ok, info := history.OK, history.Info
	tests := []struct {
		name       string
		ops        []history.Op
		lin, seq   bool
		explainsAs string
	}{
		{name: "transfers and reads", lin: true, seq: true, ops: []history.Op{
			op("A", "transfer", list(n(0), n(1), n(4)), 0, 5, ok),
			op("B", "read", list(n(6), n(14)), 1, 3, ok),
		}},
		{name: "overdraft", explainsAs: "transfer of 11 from account 0, which holds 10", ops: []history.Op{
			op("A", "transfer", list(n(0), n(1), n(11)), 0, 5, ok),
		}},
		// B reads the old balances after the transfer returned: stale, so
		// not linearizable, but sequentially consistent.
		{name: "stale read", seq: true, explainsAs: "read [10 10] but the balances are [6 14]", ops: []history.Op{
			op("A", "transfer", list(n(0), n(1), n(4)), 0, 5, ok),
			op("B", "read", list(n(10), n(10)), 6, 8, ok),
		}},
		// A transfer of unknown outcome may have happened: the read says it did.
		{name: "unknown transfer", lin: true, seq: true, ops: []history.Op{
			op("A", "transfer", list(n(1), n(0), n(10)), 0, history.Infinity, info),
			op("B", "read", list(n(20), n(0)), 6, 8, ok),
			op("C", "read", history.NilValue, 9, history.Infinity, info),
		}},
	}
	ctx := context.Background()
	m := bank.New(model.Options{Init: list(n(10), n(10))})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := history.FromOps(tt.ops)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				crit string
				want bool
				run  func() (checker.Result, error)
			}{
				{checker.Linearizable, tt.lin, func() (checker.Result, error) { return linear.Check(ctx, m, h, linear.Options{Verify: true}) }},
				{checker.Linearizable, tt.lin, func() (checker.Result, error) { return reference.Linearizable(ctx, m, h) }},
				{checker.Sequential, tt.seq, func() (checker.Result, error) { return sequential.Check(ctx, m, h, sequential.Options{}) }},
				{checker.Sequential, tt.seq, func() (checker.Result, error) { return reference.Sequential(ctx, m, h) }},
			} {
				res, err := c.run()
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Valid == checker.True; got != c.want || res.Valid == checker.Unknown {
					t.Fatalf("%s (%s): %v, want %v %+v", c.crit, res.Method, res.Valid, c.want, res.Violations)
				}
				if c.crit == checker.Linearizable && !c.want {
					if explanation := report.Explain(h, c.crit, res.Violations[0]); !strings.Contains(explanation, tt.explainsAs) {
						t.Errorf("explanation %q does not say %q", explanation, tt.explainsAs)
					}
				}
			}
		})
	}
}

func TestBankCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		init history.Value
		op   history.Op
		want string
	}{
		{"no init", history.Value{}, op("A", "read", list(n(1)), 0, 1, history.OK), "the bank model needs the initial balances"},
		{"unknown op", list(n(1), n(2)), op("A", "deposit", n(1), 0, 1, history.OK), `model bank has no operation "deposit" (it knows [transfer read])`},
		{"short transfer", list(n(1), n(2)), op("A", "transfer", list(n(0), n(1)), 0, 1, history.OK), "transfer needs a value [from to amount], got [0 1]"},
		{"no such account", list(n(1), n(2)), op("A", "transfer", list(n(0), n(2), n(1)), 0, 1, history.OK), "the bank has accounts 0 to 1"},
		{"to itself", list(n(1), n(2)), op("A", "transfer", list(n(1), n(1), n(1)), 0, 1, history.OK), "transfer from account 1 to itself"},
		{"negative amount", list(n(1), n(2)), op("A", "transfer", list(n(0), n(1), n(-1)), 0, 1, history.OK), "amounts must be positive"},
		{"read too short", list(n(1), n(2)), op("A", "read", list(n(1)), 0, 1, history.OK), "read: expected a list of 2 balances, got [1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bank.New(model.Options{Init: tt.init}).Compile(&tt.op, model.NewTable())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestBankCLI checks the custom command line: the bank model is listed and
// bad input is an input error naming the line.
func TestBankCLI(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := cli.Main([]string{"models"}, strings.NewReader(""), &out, &errOut, suite.Bind(bank.New)); code != 0 ||
		!strings.Contains(out.String(), "bank\n  Accounts with transfers") || !strings.Contains(out.String(), "mutex") {
		t.Fatalf("models: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	in := `{"model": "bank", "init": [1, 1], "history": [
{"process": "A", "f": "transfer", "value": [0, 5, 1], "call": 0, "return": 1}]}`
	code := cli.Main([]string{"check", "-"}, strings.NewReader(in), &out, &errOut, suite.Bind(bank.New))
	if code != 3 || !strings.Contains(errOut.String(), ":2: operation A:transfer([0 5 1]): transfer between accounts 0 and 5, but the bank has accounts 0 to 1") {
		t.Fatalf("bad account: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}
