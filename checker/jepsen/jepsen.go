// Package jepsen holds Jepsen's own checkers as histcheck models: the
// counter (each read within the adds that completed before it and the
// adds that may have happened), the set (the final read judged), set-full
// (each element followed over time), the bank (every read keeps the
// total), long-fork (reads of a group of keys that saw writes in
// incompatible orders), the total queue (what goes in must come out) and
// unique ids (no identifier generated twice). Each judges the history by
// its own rule, with Jepsen's verdict and Jepsen's counts, as facts
// (checker.JepsenTally and checker.JepsenFact); package report says them
// in words.
//
// Events are taken in the history's order: their places in the file for
// Jepsen's events (what Jepsen's :index gives), else their times, an
// invocation before a completion at the same time (they overlap).
package jepsen

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// Criterion is the one criterion of these models: the rule of the
// model's Jepsen checker.
const Criterion = "jepsen"

// The models, named apart from the linearizable objects (counter, set).
const (
	Counter    = "jepsen-counter"
	Set        = "jepsen-set"
	SetFull    = "set-full"
	Bank       = "bank"
	LongFork   = "long-fork"
	TotalQueue = "total-queue"
	UniqueIDs  = "unique-ids"
)

// Names lists the models in the order the model list shows them.
var Names = []string{Counter, Set, SetFull, Bank, LongFork, TotalQueue, UniqueIDs}

// defaultMaxViolations bounds the violations reported per check when
// the caller gives no bound; the tally always counts them all.
const defaultMaxViolations = 20

// Check runs the Jepsen checker name on h with the model options given
// (see Options), reporting at most maxViolations violations (0: 20).
// A history the checker cannot read (a value of a shape Jepsen's checker
// throws on) is refused with an error naming the operation and what was
// expected (a *history.InputError), not judged.
func Check(ctx context.Context, name string, h *history.History, settings map[string]string, maxViolations int) (checker.Result, error) {
	opts, err := ParseOptions(name, settings, h.Meta)
	if err != nil {
		return checker.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return checker.Result{}, err
	}
	if maxViolations <= 0 {
		maxViolations = defaultMaxViolations
	}
	if in := inputChecks[name]; in != nil {
		if err := in(h); err != nil {
			return checker.Result{}, err
		}
	}
	var res checker.Result
	switch name {
	case Counter:
		res = checkCounter(h)
	case Set:
		res, err = checkSet(h)
	case SetFull:
		res = checkSetFull(h, opts)
	case Bank:
		res = checkBank(h, opts)
	case LongFork:
		res, err = checkLongFork(h, opts)
	case TotalQueue:
		res = checkTotalQueue(h)
	case UniqueIDs:
		res = checkUniqueIDs(h)
	default:
		return checker.Result{}, fmt.Errorf("no Jepsen checker is named %q", name)
	}
	if err != nil {
		return checker.Result{}, err
	}
	res.Criterion, res.Method = Criterion, name
	if len(res.Violations) > maxViolations {
		res.Violations = res.Violations[:maxViolations]
	}
	return res, nil
}

// inputChecks refuse, before a checker runs, the histories it cannot
// read (see input.go); the set checker reads only its final read, and
// long-fork refuses reads it cannot compare as it compares them.
var inputChecks = map[string]func(*history.History) error{
	Counter:    checkCounterInput,
	SetFull:    checkSetFullInput,
	Bank:       checkBankInput,
	LongFork:   checkLongForkInput,
	TotalQueue: checkQueueInput,
	UniqueIDs:  checkUniqueIDsInput,
}

// event is one invocation or completion of h.Ops[op], at pos in the
// history's order.
type event struct {
	pos  int64
	op   int
	done bool
}

// events are h's events in its real-time order, read as one sequence
// (history.SerialRealTime: times that tie overlap, except that a client's
// operations always stay in its own order); operations whose outcome is
// unknown have no completion.
func events(h *history.History) []event {
	rt := h.SerialRealTime()
	out := make([]event, 0, 2*len(h.Ops))
	for i := range h.Ops {
		sp := rt.Spans[i]
		out = append(out, event{pos: sp.Call, op: i})
		if h.Ops[i].Status != history.Info {
			out = append(out, event{pos: sp.Return, op: i, done: true})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].pos != out[j].pos {
			return out[i].pos < out[j].pos
		}
		return !out[i].done && out[j].done
	})
	return out
}

// unknown is a result without a verdict, for a history the checker
// cannot judge (Jepsen's :valid? :unknown), with the counts so far.
func unknown(reason string, t *checker.JepsenTally) checker.Result {
	return checker.Result{Valid: checker.Unknown, Reason: reason, Jepsen: t}
}

// verdict is true when ok, else false.
func verdict(ok bool) checker.Verdict {
	if ok {
		return checker.True
	}
	return checker.False
}

// sortedValues returns the keys of set, sorted.
func sortedValues(set map[history.Value]bool) []history.Value {
	out := make([]history.Value, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return history.Compare(out[i], out[j]) < 0 })
	return out
}

// IntervalSet writes a set of integers as Jepsen writes its sets'
// elements: sorted, runs of consecutive integers as "a..b", "#{0..2 5}".
// Values that are not integers are written as they are, after them.
func IntervalSet(vs []history.Value) string {
	var ints []int64
	var others []string
	for _, v := range vs {
		if n, ok := v.Int(); ok {
			ints = append(ints, n)
		} else {
			others = append(others, v.String())
		}
	}
	sort.Slice(ints, func(i, j int) bool { return ints[i] < ints[j] })
	var parts []string
	for i := 0; i < len(ints); {
		j := i
		for j+1 < len(ints) && ints[j+1] <= ints[j]+1 {
			j++
		}
		if ints[i] == ints[j] {
			parts = append(parts, strconv.FormatInt(ints[i], 10))
		} else {
			parts = append(parts, strconv.FormatInt(ints[i], 10)+".."+strconv.FormatInt(ints[j], 10))
		}
		i = j + 1
	}
	return "#{" + strings.Join(append(parts, others...), " ") + "}"
}
