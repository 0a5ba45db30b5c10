package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// Jepsen is what one of Jepsen's own checkers counted (the models
// jepsen-counter, jepsen-set, set-full, bank and long-fork), with the
// counts and sets that checker reports (and total-queue and unique-ids),
// named as Jepsen names them
// (underscores for dashes). Operations are named by their index
// (Op.Index). Exactly one part besides Checker is present.
type Jepsen struct {
	Checker  string          `json:"checker"`
	Counter  *JepsenCounter  `json:"counter,omitempty"`
	Set      *JepsenSet      `json:"set,omitempty"`
	SetFull  *JepsenSetFull  `json:"set_full,omitempty"`
	Bank     *JepsenBank     `json:"bank,omitempty"`
	LongFork *JepsenLongFork `json:"long_fork,omitempty"`
	Queue    *JepsenQueue    `json:"total_queue,omitempty"`
	IDs      *JepsenIDs      `json:"unique_ids,omitempty"`
}

// JepsenQueue is the total-queue checker's result. The element lists
// are multisets: sorted, an element as many times as it counts.
type JepsenQueue struct {
	AttemptCount      int   `json:"attempt_count"`
	AcknowledgedCount int   `json:"acknowledged_count"`
	OKCount           int   `json:"ok_count"`
	UnexpectedCount   int   `json:"unexpected_count"`
	DuplicatedCount   int   `json:"duplicated_count"`
	LostCount         int   `json:"lost_count"`
	RecoveredCount    int   `json:"recovered_count"`
	Lost              []any `json:"lost"`
	Unexpected        []any `json:"unexpected"`
	Duplicated        []any `json:"duplicated"`
	Recovered         []any `json:"recovered"`
}

// JepsenIDs is the unique-ids checker's result: Range is the least and
// greatest identifier acknowledged ([null, null] when none was).
type JepsenIDs struct {
	AttemptedCount    int         `json:"attempted_count"`
	AcknowledgedCount int         `json:"acknowledged_count"`
	DuplicatedCount   int         `json:"duplicated_count"`
	Duplicated        []Duplicate `json:"duplicated"`
	Range             [2]any      `json:"range"`
}

// CounterRead is a counter read with its bounds.
type CounterRead struct {
	Index int64 `json:"index"`
	Lower int64 `json:"lower"`
	Value int64 `json:"value"`
	Upper int64 `json:"upper"`
}

// JepsenCounter is the counter checker's result: every read with its
// bounds, and those outside them.
type JepsenCounter struct {
	ReadCount  int           `json:"read_count"`
	ErrorCount int           `json:"error_count"`
	Reads      []CounterRead `json:"reads"`
	Errors     []CounterRead `json:"errors"`
}

// JepsenSet is the set checker's judgement of the final read.
type JepsenSet struct {
	FinalRead         *int64 `json:"final_read"`
	AttemptCount      int    `json:"attempt_count"`
	AcknowledgedCount int    `json:"acknowledged_count"`
	OKCount           int    `json:"ok_count"`
	LostCount         int    `json:"lost_count"`
	RecoveredCount    int    `json:"recovered_count"`
	UnexpectedCount   int    `json:"unexpected_count"`
	OK                []any  `json:"ok"`
	Lost              []any  `json:"lost"`
	Unexpected        []any  `json:"unexpected"`
	Recovered         []any  `json:"recovered"`
}

// SetFullElement is one element's timeline, as Jepsen's set-full gives
// it: Known is the completion (by index) by which the element was known
// (its add's ok, or the first read that saw it), LastAbsent the
// invocation of the latest-invoked read that missed it; latencies in
// milliseconds.
type SetFullElement struct {
	Element       any    `json:"element"`
	Outcome       string `json:"outcome"`
	Known         *int64 `json:"known"`
	LastAbsent    *int64 `json:"last_absent"`
	StableLatency *int64 `json:"stable_latency"`
	LostLatency   *int64 `json:"lost_latency"`
}

// Duplicate is an element one read returned Count times.
type Duplicate struct {
	Element any `json:"element"`
	Count   int `json:"count"`
}

// JepsenSetFull is the set-full checker's result. Latencies are maps
// from the fraction ("0", "0.5", "0.95", "0.99", "1") to milliseconds.
type JepsenSetFull struct {
	AttemptCount    int              `json:"attempt_count"`
	StableCount     int              `json:"stable_count"`
	LostCount       int              `json:"lost_count"`
	Lost            []any            `json:"lost"`
	NeverReadCount  int              `json:"never_read_count"`
	NeverRead       []any            `json:"never_read"`
	StaleCount      int              `json:"stale_count"`
	Stale           []any            `json:"stale"`
	WorstStale      []SetFullElement `json:"worst_stale"`
	DuplicatedCount int              `json:"duplicated_count"`
	Duplicated      []Duplicate      `json:"duplicated"`
	StableLatencies map[string]int64 `json:"stable_latencies,omitempty"`
	LostLatencies   map[string]int64 `json:"lost_latencies,omitempty"`
	Linearizable    bool             `json:"linearizable"`
}

// BankError is a bank read that breaks the rules: Accounts are the
// unexpected, nil or negative accounts, Balances the negative balances,
// Total the read's sum (wrong-total, negative-value).
type BankError struct {
	Index    int64   `json:"index"`
	Type     string  `json:"type"`
	Total    int64   `json:"total,omitempty"`
	Accounts []any   `json:"accounts,omitempty"`
	Balances []int64 `json:"balances,omitempty"`
}

// BankErrors counts one kind of bank error, with Jepsen's first, worst
// and last error (and for wrong totals the lowest and highest).
type BankErrors struct {
	Count   int        `json:"count"`
	First   BankError  `json:"first"`
	Worst   BankError  `json:"worst"`
	Last    BankError  `json:"last"`
	Lowest  *BankError `json:"lowest,omitempty"`
	Highest *BankError `json:"highest,omitempty"`
}

// JepsenBank is the bank checker's result.
type JepsenBank struct {
	ReadCount  int                   `json:"read_count"`
	ErrorCount int                   `json:"error_count"`
	Total      int64                 `json:"total"`
	Accounts   []any                 `json:"accounts"`
	FirstError *BankError            `json:"first_error"`
	Errors     map[string]BankErrors `json:"errors"`
}

// Fork is two reads of a group that cannot be ordered: each saw writes
// (of the keys listed) the other did not.
type Fork struct {
	A     int64 `json:"a"`
	B     int64 `json:"b"`
	OnlyA []any `json:"only_a"`
	OnlyB []any `json:"only_b"`
}

// JepsenLongFork is the long-fork checker's result; MultipleWrites is a
// key written more than once, which leaves the verdict unknown.
type JepsenLongFork struct {
	GroupSize      int    `json:"group_size"`
	ReadsCount     int    `json:"reads_count"`
	EarlyReadCount int    `json:"early_read_count"`
	LateReadCount  int    `json:"late_read_count"`
	Forks          []Fork `json:"forks"`
	MultipleWrites any    `json:"multiple_writes,omitempty"`
}

// newJepsen converts a Jepsen checker's tally about h; nil for none.
func newJepsen(h *history.History, t *checker.JepsenTally) *Jepsen {
	if t == nil {
		return nil
	}
	c := &jconv{h: h}
	out := &Jepsen{Checker: t.Checker}
	switch {
	case t.Counter != nil:
		out.Counter = c.counter(t.Counter)
	case t.Set != nil:
		out.Set = c.set(t.Set)
	case t.SetFull != nil:
		out.SetFull = c.setFull(t.SetFull)
	case t.Bank != nil:
		out.Bank = c.bank(t.Bank)
	case t.LongFork != nil:
		out.LongFork = c.longFork(t.LongFork)
	case t.Queue != nil:
		out.Queue = queue(t.Queue)
	case t.IDs != nil:
		out.IDs = uniqueIDs(t.IDs)
	}
	return out
}

func queue(t *checker.QueueTally) *JepsenQueue {
	return &JepsenQueue{AttemptCount: len(t.Attempts), AcknowledgedCount: len(t.Enqueued), OKCount: len(t.OK),
		UnexpectedCount: len(t.Unexpected), DuplicatedCount: len(t.Duplicated), LostCount: len(t.Lost),
		RecoveredCount: len(t.Recovered), Lost: values(t.Lost), Unexpected: values(t.Unexpected),
		Duplicated: values(t.Duplicated), Recovered: values(t.Recovered)}
}

func uniqueIDs(t *checker.UniqueIDsTally) *JepsenIDs {
	out := &JepsenIDs{AttemptedCount: t.Attempted, AcknowledgedCount: t.Acknowledged, DuplicatedCount: t.DuplicatedCount,
		Duplicated: []Duplicate{}}
	for _, d := range t.Duplicated {
		out.Duplicated = append(out.Duplicated, Duplicate{Element: d.Element.JSON(), Count: d.Count})
	}
	for i, v := range []history.Value{t.Lowest, t.Highest} {
		if !v.IsNone() {
			out.Range[i] = v.JSON()
		}
	}
	return out
}

// jconv converts the facts of one history.
type jconv struct{ h *history.History }

// index is the index of the operation at position p, nil for none.
func (c *jconv) index(p int) *int64 {
	if p < 0 || p >= len(c.h.Ops) {
		return nil
	}
	i := c.h.Ops[p].Index
	return &i
}

// done is the index of the completion of the operation at position p,
// nil for none: Jepsen names the completion where it is what its checker
// saw.
func (c *jconv) done(p int) *int64 {
	if p < 0 || p >= len(c.h.Ops) {
		return nil
	}
	i := c.h.CompletionIndex(p)
	return &i
}

func (c *jconv) doneIdx(p int) int64 {
	if i := c.done(p); i != nil {
		return *i
	}
	return -1
}

func (c *jconv) idx(p int) int64 {
	if i := c.index(p); i != nil {
		return *i
	}
	return -1
}

func values(vs []history.Value) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v.JSON()
	}
	return out
}

func (c *jconv) counter(t *checker.CounterTally) *JepsenCounter {
	conv := func(rs []checker.CounterRead) []CounterRead {
		out := make([]CounterRead, len(rs))
		for i, r := range rs {
			out[i] = CounterRead{Index: c.idx(r.Op), Lower: r.Lower, Value: r.Value, Upper: r.Upper}
		}
		return out
	}
	return &JepsenCounter{ReadCount: len(t.Reads), ErrorCount: len(t.Errors), Reads: conv(t.Reads), Errors: conv(t.Errors)}
}

func (c *jconv) set(t *checker.SetTally) *JepsenSet {
	return &JepsenSet{FinalRead: c.index(t.FinalRead), AttemptCount: len(t.Attempts), AcknowledgedCount: len(t.Acknowledged),
		OKCount: len(t.OK), LostCount: len(t.Lost), RecoveredCount: len(t.Recovered), UnexpectedCount: len(t.Unexpected),
		OK: values(t.OK), Lost: values(t.Lost), Unexpected: values(t.Unexpected), Recovered: values(t.Recovered)}
}

func latency(ms int64) *int64 {
	if ms < 0 {
		return nil
	}
	return &ms
}

func (c *jconv) element(e checker.SetFullElement) SetFullElement {
	return SetFullElement{Element: e.Element.JSON(), Outcome: e.Outcome, Known: c.done(e.Known),
		LastAbsent:    c.index(e.LastAbsent),
		StableLatency: latency(e.StableLatency), LostLatency: latency(e.LostLatency)}
}

func quantileMap(qs []checker.Quantile) map[string]int64 {
	if len(qs) == 0 {
		return nil
	}
	out := make(map[string]int64, len(qs))
	for _, q := range qs {
		out[strconv.FormatFloat(q.Point, 'g', -1, 64)] = q.MS
	}
	return out
}

func (c *jconv) setFull(t *checker.SetFullTally) *JepsenSetFull {
	out := &JepsenSetFull{AttemptCount: t.Attempts, StableCount: len(t.Stable), LostCount: len(t.Lost), Lost: values(t.Lost),
		NeverReadCount: len(t.NeverRead), NeverRead: values(t.NeverRead), StaleCount: len(t.Stale), Stale: values(t.Stale),
		WorstStale: []SetFullElement{}, DuplicatedCount: len(t.Duplicated), Duplicated: []Duplicate{},
		StableLatencies: quantileMap(t.StableLatencies), LostLatencies: quantileMap(t.LostLatencies), Linearizable: t.Linearizable}
	for _, e := range t.WorstStale {
		out.WorstStale = append(out.WorstStale, c.element(e))
	}
	for _, d := range t.Duplicated {
		out.Duplicated = append(out.Duplicated, Duplicate{Element: d.Element.JSON(), Count: d.Count})
	}
	return out
}

func (c *jconv) bankError(e checker.BankError) BankError {
	out := BankError{Index: c.doneIdx(e.Op), Type: e.Type, Balances: e.Balances}
	if e.Type == checker.BankWrongTotal || e.Type == checker.BankNegativeValue {
		out.Total = e.Total
	}
	if len(e.Accounts) > 0 {
		out.Accounts = values(e.Accounts)
	}
	return out
}

func (c *jconv) bank(t *checker.BankTally) *JepsenBank {
	out := &JepsenBank{ReadCount: t.Reads, ErrorCount: len(t.Errors), Total: t.Total, Accounts: values(t.Accounts),
		Errors: map[string]BankErrors{}}
	if t.FirstError != checker.None {
		e := c.bankError(t.Errors[t.FirstError])
		out.FirstError = &e
	}
	at := func(i int) *BankError {
		if i == checker.None {
			return nil
		}
		e := c.bankError(t.Errors[i])
		return &e
	}
	for _, g := range t.Groups {
		out.Errors[g.Type] = BankErrors{Count: g.Count, First: *at(g.First), Worst: *at(g.Worst), Last: *at(g.Last),
			Lowest: at(g.Lowest), Highest: at(g.Highest)}
	}
	return out
}

func (c *jconv) longFork(t *checker.LongForkTally) *JepsenLongFork {
	out := &JepsenLongFork{GroupSize: t.GroupSize, ReadsCount: t.Reads, EarlyReadCount: t.EarlyReads,
		LateReadCount: t.LateReads, Forks: []Fork{}}
	for _, f := range t.Forks {
		out.Forks = append(out.Forks, Fork{A: c.doneIdx(f.A), B: c.doneIdx(f.B), OnlyA: values(f.OnlyA), OnlyB: values(f.OnlyB)})
	}
	if !t.MultipleWrites.IsNone() {
		out.MultipleWrites = t.MultipleWrites.JSON()
	}
	return out
}

// jepsenCounts is the text form's line of counts under a Jepsen
// checker's verdict.
func jepsenCounts(j *Jepsen) string {
	switch {
	case j.Counter != nil:
		return fmt.Sprintf("reads: %d, out of bounds: %d", j.Counter.ReadCount, j.Counter.ErrorCount)
	case j.Set != nil:
		s := j.Set
		return fmt.Sprintf("attempted %d, acknowledged %d, read %d (ok), lost %d, recovered %d, unexpected %d",
			s.AttemptCount, s.AcknowledgedCount, s.OKCount, s.LostCount, s.RecoveredCount, s.UnexpectedCount)
	case j.SetFull != nil:
		s := j.SetFull
		return fmt.Sprintf("attempted %d: stable %d, lost %d, never read %d, stale %d, duplicated %d",
			s.AttemptCount, s.StableCount, s.LostCount, s.NeverReadCount, s.StaleCount, s.DuplicatedCount)
	case j.Bank != nil:
		parts := []string{fmt.Sprintf("reads: %d, total %d, errors: %d", j.Bank.ReadCount, j.Bank.Total, j.Bank.ErrorCount)}
		for _, kind := range []string{checker.BankUnexpectedKey, checker.BankNilBalance, checker.BankWrongTotal, checker.BankNegativeValue} {
			if g, ok := j.Bank.Errors[kind]; ok {
				parts = append(parts, fmt.Sprintf("%s %d", kind, g.Count))
			}
		}
		return strings.Join(parts, ", ")
	case j.LongFork != nil:
		l := j.LongFork
		return fmt.Sprintf("group size %d, reads: %d (early %d, late %d), forks: %d",
			l.GroupSize, l.ReadsCount, l.EarlyReadCount, l.LateReadCount, len(l.Forks))
	case j.Queue != nil:
		q := j.Queue
		return fmt.Sprintf("attempted %d, acknowledged %d, dequeued %d (ok), lost %d, recovered %d, unexpected %d, duplicated %d",
			q.AttemptCount, q.AcknowledgedCount, q.OKCount, q.LostCount, q.RecoveredCount, q.UnexpectedCount, q.DuplicatedCount)
	case j.IDs != nil:
		u := j.IDs
		return fmt.Sprintf("attempted %d, acknowledged %d, duplicated %d", u.AttemptedCount, u.AcknowledgedCount, u.DuplicatedCount)
	}
	return ""
}
