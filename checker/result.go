// Package checker holds what every consistency checker returns: one Result
// type, so that reports and the consistency ladder treat all checkers alike.
// The algorithms live in subpackages, one per family.
package checker

import (
	"fmt"
	"time"

	"github.com/histcheck/histcheck/history"
)

// Verdict is the answer to "does the history satisfy the criterion?".
type Verdict int8

// Verdicts. Unknown means the checker could not decide (time or memory ran
// out, or the history lacks what the criterion needs); Result.Reason says why.
const (
	Unknown Verdict = iota
	True
	False
)

func (v Verdict) String() string {
	switch v {
	case True:
		return "true"
	case False:
		return "false"
	}
	return "unknown"
}

// MarshalJSON writes true, false or "unknown".
func (v Verdict) MarshalJSON() ([]byte, error) {
	switch v {
	case True:
		return []byte("true"), nil
	case False:
		return []byte("false"), nil
	}
	return []byte(`"unknown"`), nil
}

// UnmarshalJSON reads true, false or "unknown".
func (v *Verdict) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true":
		*v = True
	case "false":
		*v = False
	case `"unknown"`:
		*v = Unknown
	default:
		return fmt.Errorf("verdict: want true, false or \"unknown\", got %s", b)
	}
	return nil
}

// Criteria, as named on the command line and in reports.
const (
	Linearizable      = "linearizable"
	Sequential        = "sequential"
	Causal            = "causal"
	CausalMemory      = "causal-memory"
	CausalConvergence = "causal-convergence"
	ReadYourWrites    = "read-your-writes"
	MonotonicReads    = "monotonic-reads"
	MonotonicWrites   = "monotonic-writes"
	WritesFollowReads = "writes-follow-reads"
	PRAM              = "pram"
)

// AllCriteria lists every criterion, strongest first.
var AllCriteria = []string{Linearizable, Sequential, CausalMemory, CausalConvergence, Causal, PRAM,
	WritesFollowReads, MonotonicWrites, MonotonicReads, ReadYourWrites}

// Result is the outcome of checking one history (or one partition of it)
// against one criterion. Operations are named by their position in
// history.History.Ops.
type Result struct {
	Criterion string  `json:"consistency"`
	Valid     Verdict `json:"valid"`
	// Witness, when Valid is True and the criterion has a total order, is an
	// order of the operations that took effect, in the order they did.
	Witness []int `json:"witness,omitempty"`
	// ReadsFrom, when the values read do not say which write each read
	// read (a value written twice, or the initial value written again)
	// and a weak criterion was decided by choosing, is the choice for
	// each read that had one: with Valid True, a witness; with Valid
	// False, the choice whose violations are shown.
	ReadsFrom []ReadFrom `json:"reads_from,omitempty"`
	// Views, when Valid is True and a weak criterion was decided from the
	// model's steps (package checker/adt), are its witness: for the
	// causal criteria one view per operation that took effect, its causal
	// past in an order the model accepts, itself last (the causal order
	// is then "a is in b's view"); for pram one view per process, every
	// operation in an order that keeps each process's order; for the
	// session guarantees each operation's visible operations, in the
	// order Witness (then the arbitration). Without Views, Witness alone
	// is the witness: a total order in which each operation sees every
	// operation before it.
	Views []View `json:"views,omitempty"`
	// Dropped lists operations with unknown outcome left out of the witness:
	// they need not have taken effect.
	Dropped []int `json:"dropped,omitempty"`
	// Violations, when Valid is False, lists each violation found.
	Violations []Violation `json:"violations,omitempty"`
	// Partials, when Valid is False and the linearizability search was
	// asked for them (linear.Options.Partials), are the longest legal
	// orders it reached that contain each operation of the refuted
	// object, each order once: what Porcupine calls partial
	// linearizations.
	Partials [][]int `json:"-"`
	// Reason says why the verdict is Unknown, or notes how it was reached
	// (which algorithm, which notion of "older").
	Reason string `json:"reason,omitempty"`
	// Method names the algorithm that decided ("wgl", "zones", "reference").
	Method  string        `json:"method,omitempty"`
	Stats   Stats         `json:"stats"`
	Elapsed time.Duration `json:"-"`
	// Jepsen holds the counts of one of Jepsen's own checkers.
	Jepsen *JepsenTally `json:"-"`
}

// View is one view of a weak criterion's witness (Result.Views).
type View struct {
	// Op is the operation whose causal past the view is; for pram, an
	// operation of the process whose view it is.
	Op int `json:"op"`
	// Process says the view is the whole view of Op's process (pram)
	// rather than Op's causal past.
	Process bool `json:"process,omitempty"`
	// Order lists the view's operations (positions) in the order the
	// model accepts them; only Op's output (or, for causal-memory and
	// pram, its process's outputs) counts.
	Order []int `json:"order"`
}

// ReadFrom says that the read at position Read read the write at
// position Write, or the initial value when Write is Initial.
type ReadFrom struct {
	Read  int `json:"read"`
	Write int `json:"write"`
}

// Violation is one reason a history fails a criterion, as facts (see
// facts.go): which operations, how they relate, and why. Which facts a
// violation carries depends on its Pattern and its checker; package
// report's Explain says it in words.
type Violation struct {
	// Ops are the operations involved, a small set that shows the problem.
	Ops []int `json:"ops"`
	// Pattern names the kind of violation when there is a catalogue of them
	// ("WriteCORead", "CyclicCO", "stale-read").
	Pattern string `json:"pattern,omitempty"`
	// Prefix, for search-based checkers, is the longest order of operations
	// found legal before the failure (positions in History.Ops).
	Prefix []int `json:"prefix,omitempty"`
	// States are the model's descriptions of its state after each of the
	// last len(States) operations of Prefix (at most MaxStates), for
	// reports that show the state step by step; empty when the checker
	// keeps none.
	States []string `json:"states,omitempty"`
	// Keys names the partition (object) the violation is in, when keyed.
	Key string `json:"key,omitempty"`

	// Op is the operation the reason turns on: the read that returned
	// what it could not, or the operation whose causal past cannot be
	// ordered.
	Op int `json:"op,omitempty"`
	// Source is the write whose value Op returned, where the reason
	// names it.
	Source int `json:"source,omitempty"`
	// Newer is the write Op should have seen: it overwrote Source (or the
	// initial value) and comes before Op.
	Newer int `json:"newer,omitempty"`
	// Session is an operation of the process whose view of the writes
	// cannot be ordered.
	Session int `json:"session,omitempty"`
	// Steps are the relations that force the violation, as a chain that
	// ends at Op or as a cycle (the Pattern says which).
	Steps []Step `json:"steps,omitempty"`
	// Versions are the versions of operations the reason cites.
	Versions []Version `json:"versions,omitempty"`
	// Value is the value the reason is about, as the checker's model
	// describes it; Initial says it is the initial value.
	Value   string `json:"value,omitempty"`
	Initial bool   `json:"initial,omitempty"`
	// Writes are the writes of Value the reason names, latest first.
	Writes []int `json:"writes,omitempty"`
	// Zones are the stretches of time of two values that cannot both
	// hold (Zone).
	Zones []Zone `json:"zones,omitempty"`
	// Stuck are the operations that could not go next where a search
	// stopped, after Prefix, with what the model said about each.
	Stuck []Stuck `json:"stuck,omitempty"`
	// Searched is the number of operations a search had to order.
	Searched int `json:"searched,omitempty"`
	// Model names the model, for a reason that names it.
	Model string `json:"model,omitempty"`
	// Cycle, for a transactional anomaly that is a cycle of
	// dependencies, holds its steps: Cycle[i] leads from one transaction
	// to the next, and the last step back to the first.
	Cycle []Dependency `json:"cycle,omitempty"`
	// Anomaly holds a transactional anomaly's facts besides its cycle.
	Anomaly *Anomaly `json:"-"`
	// Jepsen holds the facts of a violation found by one of Jepsen's
	// own checkers.
	Jepsen *JepsenFact `json:"-"`
	// Count holds the facts of a refutation by counting alone (pattern
	// "count").
	Count *Count `json:"count,omitempty"`
	// Isolation holds the facts of a violation of an isolation level
	// decided from commit orders (package checker/isolation).
	Isolation *IsolationFact `json:"isolation,omitempty"`
}

// IsolationFact is what a violation of an isolation level decided from
// commit orders rests on: a read no commit order explains, or a cycle of
// orders every commit order would need.
type IsolationFact struct {
	// Plume is the pattern's name in Plume's catalogue (ThinAirRead,
	// FracturedReadCO, ...), "" when it has none there.
	Plume string `json:"plume,omitempty"`
	// Elle is Elle's name for the anomaly, "" when it is none of Elle's.
	Elle string `json:"elle,omitempty"`
	// Reader is the transaction whose read the violation turns on
	// (position in History.Ops), or None; Mop is that read's position in
	// the transaction, Key and Value what it read.
	Reader int    `json:"reader"`
	Mop    int    `json:"mop"`
	Key    string `json:"key,omitempty"`
	Value  string `json:"value,omitempty"`
	// Writer is the transaction that wrote Value, Initial, or None.
	Writer int `json:"writer"`
	// Own is the transaction's own last write of Key, for a read that
	// should have returned it.
	Own string `json:"own,omitempty"`
	// Steps are a cycle of orders between transactions, the last step
	// leading back to the first.
	Steps []IsolationStep `json:"steps,omitempty"`
	// Other is, when neither order of two writers is possible, the cycle
	// the other order closes (Steps is the first order's).
	Other []IsolationStep `json:"other,omitempty"`
	// Undecided counts the write orders a search left undecided when it
	// proved that none of their choices works.
	Undecided int `json:"undecided,omitempty"`
}

// IsolationStep is one order between two transactions (positions in
// History.Ops, Initial for the initial state) of a cycle.
type IsolationStep struct {
	From int `json:"from"`
	To   int `json:"to"`
	// Type is so (session order), wr (To read From's write of Key),
	// ww (To overwrote From's write of Key), rw (From read the version
	// of Key that To overwrote), or co (a commit order a read forces:
	// Reader read Key from To although From, which wrote Key too, was
	// visible to it, as Why says).
	Type  string `json:"type"`
	Key   string `json:"key,omitempty"`
	Value string `json:"value,omitempty"`
	// Reader is, for co, the transaction whose read forces the step.
	Reader int `json:"reader,omitempty"`
	// Why is, for co: "session" (From precedes Reader in its session),
	// "read" (Reader read something From wrote), "earlier" (it did so
	// before reading Key) or "causal" (From happens before Reader).
	Why string `json:"why,omitempty"`
	// Via is, for co with Why "read" or "earlier", the value Reader read
	// from From and its key.
	ViaKey   string `json:"via_key,omitempty"`
	ViaValue string `json:"via_value,omitempty"`
}

// Anomaly is what a transactional anomaly rests on (package elle), for
// report to say in words.
type Anomaly struct {
	// Appends says the values are list elements (list-append) rather than
	// register values (rw-register).
	Appends bool
	// Key is the key at fault.
	Key history.Value
	// Mop is the micro-operation of the first transaction that shows the
	// anomaly, written as the history writes one ("[append x 1]"), or "".
	Mop string
	// Element is the value at fault: the element read (G1a, G1b), the
	// duplicated element.
	Element history.Value
	// Values are the versions or elements the anomaly rests on: the two
	// incompatible reads, the values of a dirty update, what an internal
	// read should have been.
	Values []history.Value
	// Component is, when the cycle search gave up before it could name
	// a cycle's class (pattern cycle-exists), the number of transactions
	// of the strongly connected component that proves a cycle exists;
	// the violation's operations are some of them. Kinds are the
	// dependency kinds the component's cycles use (Nonadjacent: never
	// two rw in a row), Classes the anomalies such a cycle may be.
	Component   int
	Kinds       []string
	Nonadjacent bool
	Classes     []string
}

// Dependency is one step of a cycle of transactions: To depends on From.
type Dependency struct {
	// From and To are transactions (positions in History.Ops).
	From, To int
	// Type is ww, wr, rw, process or realtime.
	Type string
	// Key and Value are the key and the version the dependency is about:
	// what From wrote (ww, wr) or what From read (rw; None for the
	// initial state); Next is what To wrote over it (ww, rw).
	Key, Value, Next history.Value
}

// Stats are counters a checker reports about its work.
type Stats struct {
	States     int64 `json:"states"`      // configurations explored
	MemoSize   int64 `json:"memo_size"`   // entries in the memo table
	Partitions int   `json:"partitions"`  // independent parts checked
	Ops        int   `json:"ops_checked"` // operations given to the search after pruning
}
