// Package bank is a model written outside histcheck, as a team would write
// one for its own system: a bank of accounts with transfers between them and
// reads of every balance. It shows each part of model.Model, and that the
// checkers and the command line take such a model with no change of their
// own (see cmd/bankcheck).
package bank

import (
	"errors"
	"fmt"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// readme:begin state

// MaxAccounts bounds the number of accounts, so that a state is an array:
// comparable, and copied without allocating.
const MaxAccounts = 8

// Balances is the model's state: the balance of each account, account 0
// first; accounts past the bank's size hold 0.
type Balances [MaxAccounts]int64

// Operation codes (model.Op.Kind).
const (
	transfer uint8 = iota // A = from, B = to, C = amount
	read                  // A = id of the balances read, in bank.reads
)

// readme:end state

// bank is the model. reads interns the balances each read returned, since
// they do not fit in an Op's three integers.
type bank struct {
	accounts int
	init     Balances
	initErr  error
	reads    model.Interner[Balances]
}

// New returns the bank model. opts.Init lists the initial balances, account
// 0 first (at most MaxAccounts); there is no default.
func New(opts model.Options) model.Model[Balances] {
	m := &bank{}
	v := opts.Init
	if v.Kind() != history.List || v.Len() == 0 || v.Len() > MaxAccounts {
		m.initErr = fmt.Errorf("the bank model needs the initial balances as its initial value, a list of 1 to %d integers such as [10 10 10]", MaxAccounts)
		return m
	}
	m.accounts = v.Len()
	m.init, m.initErr = balances(v, m.accounts)
	return m
}

func (m *bank) Info() model.Info {
	return model.Info{
		Name: "bank",
		Doc:  "Accounts with transfers between them and reads of every balance; it starts at the initial balances.",
		Ops: []model.OpInfo{
			{Names: []string{"transfer"}, Value: "[from to amount]",
				Doc: "moves the amount between accounts; legal only if the source holds it (a refused transfer must be recorded as failed)"},
			{Names: []string{"read"}, Value: "[balance ...] (every account, account 0 first)", Doc: "returns every balance", Class: model.ReadOp},
		},
	}
}

// Compile checks each operation's value and puts it in an Op.
func (m *bank) Compile(op *history.Op, _ *model.Table) (model.Op, error) {
	if m.initErr != nil {
		return model.Op{}, m.initErr
	}
	switch op.F {
	case "transfer":
		es := op.Value.Elems()
		if op.Value.Kind() != history.List || len(es) != 3 {
			return model.Op{}, fmt.Errorf("transfer needs a value [from to amount], got %s", op.Value)
		}
		var n [3]int64
		for i, e := range es {
			x, ok := e.Int()
			if !ok {
				return model.Op{}, fmt.Errorf("transfer needs integers [from to amount], got %s", op.Value)
			}
			n[i] = x
		}
		from, to, amount := n[0], n[1], n[2]
		switch {
		case from < 0 || from >= int64(m.accounts) || to < 0 || to >= int64(m.accounts):
			return model.Op{}, fmt.Errorf("transfer between accounts %d and %d, but the bank has accounts 0 to %d", from, to, m.accounts-1)
		case from == to:
			return model.Op{}, fmt.Errorf("transfer from account %d to itself", from)
		case amount <= 0:
			return model.Op{}, fmt.Errorf("transfer of %d: amounts must be positive", amount)
		}
		return model.Op{Kind: transfer, A: from, B: to, C: amount}, nil
	case "read":
		if op.Status == history.Info {
			return model.Op{Kind: read}, nil // its result is unknown
		}
		b, err := balances(op.Value, m.accounts)
		if err != nil {
			return model.Op{}, fmt.Errorf("read: %w", err)
		}
		return model.Op{Kind: read, A: m.reads.ID(b)}, nil
	}
	return model.Op{}, model.UnknownOpError(m.Info(), op.F)
}

// balances reads a list of n integers.
func balances(v history.Value, n int) (Balances, error) {
	var b Balances
	if v.Kind() != history.List || v.Len() != n {
		return b, fmt.Errorf("expected a list of %d balances, got %s", n, v)
	}
	for i, e := range v.Elems() {
		x, ok := e.Int()
		if !ok {
			return b, errors.New("balances must be integers, got " + v.String())
		}
		b[i] = x
	}
	return b, nil
}

func (m *bank) Init(*model.Table) Balances { return m.init }

// readme:begin step

// Step applies a transfer if the source account holds the amount, and
// accepts a read that returned exactly the balances (any read, when its
// outcome is unknown).
func (m *bank) Step(s Balances, op *model.Op) (Balances, bool) {
	switch op.Kind {
	case transfer:
		if s[op.A] < op.C {
			return s, false
		}
		s[op.A] -= op.C
		s[op.B] += op.C
		return s, true
	case read:
		return s, op.Unknown || m.reads.At(op.A) == s
	}
	return s, false
}

// readme:end step

func (m *bank) Describe(s Balances, _ *model.Table) string {
	parts := make([]string, m.accounts)
	for i := range parts {
		parts[i] = fmt.Sprint(s[i])
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// Explain says why an operation is illegal, for reports.
func (m *bank) Explain(s Balances, op *model.Op, t *model.Table) string {
	switch op.Kind {
	case transfer:
		return fmt.Sprintf("transfer of %d from account %d, which holds %d", op.C, op.A, s[op.A])
	case read:
		return fmt.Sprintf("read %s but the balances are %s", m.Describe(m.reads.At(op.A), t), m.Describe(s, t))
	}
	return ""
}

// Keep drops reads of unknown outcome: they change nothing and accept every
// state, so no verdict depends on them.
func (m *bank) Keep(ops []model.Op) []bool {
	keep := make([]bool, len(ops))
	for i := range ops {
		keep[i] = !ops[i].Unknown || ops[i].Kind != read
	}
	return keep
}
