package jepsen

import (
	"fmt"
	"sort"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// bankKinds are the kinds of bank errors in the order a read is judged:
// the first that applies is the read's error.
var bankKinds = []string{checker.BankUnexpectedKey, checker.BankNilBalance, checker.BankWrongTotal, checker.BankNegativeValue}

// checkBank is the bank checker (elle-cli's, after Jepsen's): every read
// that completed must show the accounts of the first such read, no nil
// balance, balances that sum to the total (the option, else the first
// read's sum) and, unless negative balances are allowed, none below 0.
// Transfers are not judged.
func checkBank(h *history.History, opts Options) checker.Result {
	var reads []int
	for i := range h.Ops {
		if h.Ops[i].F == "read" && h.Ops[i].Status == history.OK {
			reads = append(reads, i)
		}
	}
	// The first read is the first to complete, as in Jepsen's history.
	sortByReturn(h, reads)
	t := &checker.BankTally{Reads: len(reads), FirstError: checker.None, Errors: []checker.BankError{}}
	tally := &checker.JepsenTally{Checker: Bank, Bank: t}
	accounts := map[history.Value]bool{}
	if len(reads) > 0 {
		first := balances(h, reads[0])
		var sum int64
		for _, b := range first {
			accounts[b.account] = true
			if !opts.HasTotal && !b.ok {
				// Jepsen's checker sums the first read to find the total
				// and fails on a nil balance.
				return unknown(fmt.Sprintf("the first read %s has no balance (nil) for account %s, so the total cannot be taken from it; give the total-amount option",
					h.Ops[reads[0]].Label(), b.account), tally)
			}
			sum += b.n
		}
		t.Total = sum
	}
	if opts.HasTotal {
		t.Total = opts.TotalAmount
	}
	t.Accounts = sortedValues(accounts)
	for _, r := range reads {
		bs := balances(h, r)
		if e, bad := judgeRead(r, bs, accounts, t.Total, opts.NegativeBalances); bad {
			t.Errors = append(t.Errors, e)
		}
	}
	t.Groups = bankGroups(t)
	res := checker.Result{Valid: verdict(len(t.Errors) == 0), Jepsen: tally}
	for i := range t.Errors {
		e := t.Errors[i]
		res.Violations = append(res.Violations, checker.Violation{Ops: []int{e.Op}, Op: e.Op,
			Pattern: "bank-" + e.Type, Jepsen: &checker.JepsenFact{Bank: &e}})
	}
	return res
}

// sortByReturn orders operations by their completion, as Jepsen's
// history holds them.
func sortByReturn(h *history.History, ops []int) {
	sort.SliceStable(ops, func(i, j int) bool { return h.Ops[ops[i]].Return < h.Ops[ops[j]].Return })
}

// balance is one account of a read; ok is false for a nil balance.
type balance struct {
	account history.Value
	n       int64
	ok      bool
}

// balances reads a bank read's value: a map of accounts to balances, or
// nil for no accounts, as Jepsen reads it (checkBankInput has refused
// any other value).
func balances(h *history.History, r int) []balance {
	es := h.Ops[r].Value.Elems()
	out := make([]balance, 0, len(es)/2)
	for i := 0; i+1 < len(es); i += 2 {
		b := balance{account: es[i]}
		b.n, b.ok = es[i+1].Int()
		out = append(out, b)
	}
	return out
}

// judgeRead gives a read's error, the first kind that applies.
func judgeRead(r int, bs []balance, accounts map[history.Value]bool, total int64, negative bool) (checker.BankError, bool) {
	e := checker.BankError{Op: r, Expected: total}
	var sum int64
	for _, b := range bs {
		switch {
		case !accounts[b.account]:
			e.Type = checker.BankUnexpectedKey
		case !b.ok && e.Type == "":
			e.Type = checker.BankNilBalance
		}
		sum += b.n
	}
	if e.Type != "" {
		for _, b := range bs {
			if (e.Type == checker.BankUnexpectedKey && !accounts[b.account]) || (e.Type == checker.BankNilBalance && !b.ok) {
				e.Accounts = append(e.Accounts, b.account)
			}
		}
		return e, true
	}
	e.Total = sum
	if sum != total {
		e.Type = checker.BankWrongTotal
		return e, true
	}
	for _, b := range bs {
		if !negative && b.n < 0 {
			e.Type = checker.BankNegativeValue
			e.Accounts, e.Balances = append(e.Accounts, b.account), append(e.Balances, b.n)
		}
	}
	return e, e.Type != ""
}

// bankGroups counts the errors by kind, with Jepsen's first, worst and
// last (and lowest and highest total for wrong totals), and the first
// error overall.
func bankGroups(t *checker.BankTally) []checker.BankErrorGroup {
	var out []checker.BankErrorGroup
	for _, kind := range bankKinds {
		g := checker.BankErrorGroup{Type: kind, First: checker.None, Worst: checker.None, Last: checker.None,
			Lowest: checker.None, Highest: checker.None}
		for i, e := range t.Errors {
			if e.Type != kind {
				continue
			}
			g.Count++
			if g.First == checker.None {
				g.First, g.Worst, g.Lowest, g.Highest = i, i, i, i
			}
			g.Last = i
			if badness(t.Errors[i], t.Total) > badness(t.Errors[g.Worst], t.Total) {
				g.Worst = i
			}
			if e.Total < t.Errors[g.Lowest].Total {
				g.Lowest = i
			}
			if e.Total > t.Errors[g.Highest].Total {
				g.Highest = i
			}
		}
		if g.Count == 0 {
			continue
		}
		if kind != checker.BankWrongTotal {
			g.Lowest, g.Highest = checker.None, checker.None
		}
		if t.FirstError == checker.None || g.First < t.FirstError { // errors are in completion order
			t.FirstError = g.First
		}
		out = append(out, g)
	}
	return out
}

// badness is how egregious a bank error is (Jepsen's err-badness): the
// accounts at fault, the relative error of a total, the amount below 0.
func badness(e checker.BankError, total int64) float64 {
	switch e.Type {
	case checker.BankWrongTotal:
		if total <= 0 {
			return 0
		}
		d := float64(e.Total - total)
		if d < 0 {
			d = -d
		}
		return d / float64(total)
	case checker.BankNegativeValue:
		var s int64
		for _, n := range e.Balances {
			s -= n
		}
		return float64(s)
	}
	return float64(len(e.Accounts))
}
