package checker

import "github.com/histcheck/histcheck/history"

// Jepsen's own checkers (package checker/jepsen) judge a history by a rule
// of their own rather than against a sequential specification. What they
// count is kept here as facts, once, for package report to say in words
// and to write as JSON. Operations are positions in History.Ops; None
// stands where there is none.

// JepsenTally is what one of Jepsen's checkers counted over a whole
// history, with the counts and sets that checker reports. Exactly one of
// its parts is set, the one of Checker.
type JepsenTally struct {
	// Checker is the model's name (jepsen-counter, jepsen-set, set-full,
	// bank, long-fork, total-queue, unique-ids).
	Checker  string
	Counter  *CounterTally
	Set      *SetTally
	SetFull  *SetFullTally
	Bank     *BankTally
	LongFork *LongForkTally
	Queue    *QueueTally
	IDs      *UniqueIDsTally
}

// JepsenFact is what one violation found by a Jepsen checker rests on;
// the violation's Pattern says which part is set.
type JepsenFact struct {
	// Read is a counter read outside its bounds.
	Read *CounterRead
	// Elements are the set elements at fault (lost, unexpected, stale,
	// duplicated), sorted.
	Elements []history.Value
	// Element is the worst stale element of set-full, with its timeline.
	Element *SetFullElement
	// Duplicates are set-full's duplicated elements with their largest
	// multiplicity in one read.
	Duplicates []Duplicate
	// Bank is a bank read that breaks the rules.
	Bank *BankError
	// Fork is a pair of long-fork reads that cannot be ordered.
	Fork *Fork
}

// CounterRead is one completed counter read with its bounds: Lower is
// the sum of the adds that completed before the read was invoked, Upper
// the sum of the adds invoked before it completed (those that completed
// and those whose outcome is unknown).
type CounterRead struct {
	Op                  int
	Lower, Value, Upper int64
}

// CounterTally is the counter checker's result: every read with its
// bounds, and those outside them.
type CounterTally struct {
	Reads, Errors []CounterRead
}

// SetTally is the set checker's judgement of the final read (FinalRead,
// the last read that completed): Attempts were added, Acknowledged were
// added for sure; OK were read and attempted, Lost acknowledged but not
// read, Unexpected read but never attempted, Recovered read although
// their add's outcome was not known. Every list is sorted.
type SetTally struct {
	FinalRead                        int
	Attempts, Acknowledged, OK, Lost []history.Value
	Unexpected, Recovered            []history.Value
}

// Outcomes of a set-full element.
const (
	Stable    = "stable"
	Lost      = "lost"
	NeverRead = "never-read"
)

// SetFullElement is one element's timeline in set-full: Known is the
// operation by whose completion the element was known to be in the set
// (its add's ok, or the first read that saw it), LastPresent and
// LastAbsent the latest-invoked reads that saw it and that missed it
// (None for none). Latencies are in milliseconds, -1 when they do not
// apply.
type SetFullElement struct {
	Element                        history.Value
	Outcome                        string
	Known, LastPresent, LastAbsent int
	StableLatency, LostLatency     int64
}

// Duplicate is an element read more than once by one read: Count is the
// most times one read returned it.
type Duplicate struct {
	Element history.Value
	Count   int
}

// Quantile is one point of a latency distribution: the latency, in
// milliseconds, at fraction Point (0 to 1) of the sorted latencies.
type Quantile struct {
	Point float64
	MS    int64
}

// SetFullTally is the set-full checker's result. Stale are the stable
// elements that some read begun after they were known missed (stable
// latency above zero); WorstStale the eight stalest.
type SetFullTally struct {
	Attempts                       int
	Stable, Lost, NeverRead, Stale []history.Value
	WorstStale                     []SetFullElement
	Duplicated                     []Duplicate
	StableLatencies, LostLatencies []Quantile
	// Linearizable says stale elements make the history invalid.
	Linearizable bool
}

// Kinds of bank errors, as Jepsen names them.
const (
	BankUnexpectedKey = "unexpected-key"
	BankNilBalance    = "nil-balance"
	BankWrongTotal    = "wrong-total"
	BankNegativeValue = "negative-value"
)

// BankError is one read that breaks the bank's rules: its accounts are
// not the expected ones (Accounts are the unexpected ones), some balance
// is nil (Accounts are those), its balances do not sum to the total
// (Total is their sum, Expected the total to keep), or some balance is
// negative (Accounts and Balances are the negative ones).
type BankError struct {
	Op              int
	Type            string
	Total, Expected int64
	Accounts        []history.Value
	Balances        []int64
}

// BankErrorGroup counts one kind of bank error; First, Worst and Last
// (and for wrong totals Lowest and Highest) are positions in
// BankTally.Errors.
type BankErrorGroup struct {
	Type                                string
	Count                               int
	First, Worst, Last, Lowest, Highest int
}

// BankTally is the bank checker's result: the reads that completed, the
// total they should keep, every error and the errors by kind (in the
// order of BankTally's kinds above). FirstError is the position in Errors
// of the error with the earliest operation, or None.
type BankTally struct {
	Reads      int
	Total      int64
	Accounts   []history.Value
	Errors     []BankError
	Groups     []BankErrorGroup
	FirstError int
}

// Fork is a long fork: two reads of one group of keys, A seeing writes
// (OnlyA) that B did not and B seeing writes (OnlyB) that A did not, so
// that no order of the writes gives both.
type Fork struct {
	A, B         int
	OnlyA, OnlyB []history.Value
}

// LongForkTally is the long-fork checker's result: the group size, the
// read transactions that completed, those that saw no write (early) and
// those that saw every write of their group (late), the forks, and a key
// written more than once (which leaves the verdict unknown).
type LongForkTally struct {
	GroupSize                    int
	Reads, EarlyReads, LateReads int
	Forks                        []Fork
	MultipleWrites               history.Value
}

// QueueTally is the total-queue checker's result, each a multiset of
// elements written as a sorted list that holds an element as many times
// as the multiset does: Attempts are every enqueue's element (failed ones
// included), Enqueued the acknowledged ones, Dequeued what ok dequeues
// (and drains) returned; OK the dequeued elements that were attempted,
// Unexpected those never attempted, Duplicated those dequeued more often
// than attempted, Lost the acknowledged ones never dequeued, Recovered the
// dequeued ones not acknowledged.
type QueueTally struct {
	Attempts, Enqueued, Dequeued []history.Value
	OK, Unexpected, Duplicated   []history.Value
	Lost, Recovered              []history.Value
}

// UniqueIDsTally is the unique-ids checker's result: the generate
// operations attempted and acknowledged, the identifiers returned more
// than once (DuplicatedCount of them; Duplicated lists at most 48, the
// most frequent, sorted by identifier) and the least and greatest
// identifier acknowledged (None when none was).
type UniqueIDsTally struct {
	Attempted, Acknowledged int
	DuplicatedCount         int
	Duplicated              []Duplicate
	Lowest, Highest         history.Value
}
