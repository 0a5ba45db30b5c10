package porcupine

import (
	"fmt"
	"math"
	"strconv"

	"github.com/histcheck/histcheck/history"
)

// Call is an operation in histcheck's terms, as ToHistory records it.
type Call struct {
	// F is the operation's name ("read", "write", "cas", "append", …:
	// the names histcheck's models know, see histcheck models).
	F string
	// Key is the key of a key-value store's operation; the zero Value
	// when there is none.
	Key history.Value
	// Value is the operation's value as Jepsen records a completed one:
	// what a read returned, what a write wrote, a cas's [from to].
	Value history.Value
	// Unknown says the client never heard back: the operation may have
	// taken effect at any time after its call, or never. Failed says it
	// certainly did not take effect.
	Unknown, Failed bool
}

// ToHistory turns operations into a history.History, describing each
// with describe, so that the same record can be checked by package check
// for the criteria weaker than linearizability (sequential, causal, the
// session guarantees), which need to know what each operation is. Each
// ClientId is a client running one operation at a time; an operation of
// unknown outcome ends its client's run, as in Jepsen, and a later one of
// the same ClientId is a new process.
func ToHistory(ops []Operation, describe func(input, output interface{}) (Call, error)) (*history.History, error) {
	hops := make([]history.Op, len(ops))
	for i := range ops {
		o := &ops[i]
		c, err := describe(o.Input, o.Output)
		if err != nil {
			return nil, fmt.Errorf("porcupine: operation %d: %w", i, err)
		}
		hop := history.Op{Client: strconv.Itoa(o.ClientId), F: c.F, Key: c.Key, Value: c.Value,
			Call: o.Call, Return: o.Return, Status: history.OK, Index: int64(i)}
		switch {
		case c.Unknown:
			hop.Status, hop.Return = history.Info, history.Infinity
		case c.Failed:
			hop.Status = history.Fail
		}
		hops[i] = hop
	}
	h, err := history.FromOps(hops)
	if err != nil {
		return nil, fmt.Errorf("porcupine: %w", err)
	}
	return h, nil
}

// HistoryInput is the Input of the operations FromHistory gives.
type HistoryInput struct {
	F       string
	Key     history.Value // the zero Value when the operation has none
	Value   history.Value // the operation's value (history.Op.Value)
	Unknown bool          // the outcome is unknown: any output goes
}

// FromHistory turns a history (a history.Recorder's, or any file
// histcheck reads) into operations for this package. Each operation's
// Input is a HistoryInput and its Output its value (history.Op.Value: what
// a read returned, what a write wrote); ClientId is its logical process.
// Failed operations are left out; one of unknown outcome returns at the
// end of time (math.MaxInt64) with Unknown set, for a model to accept any
// output of, as Porcupine's users do.
func FromHistory(h *history.History) []Operation {
	var ops []Operation
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Status == history.Fail {
			continue
		}
		in := HistoryInput{F: o.F, Key: o.Key, Value: o.Value, Unknown: o.Status == history.Info}
		ret := o.Return
		if in.Unknown {
			ret = math.MaxInt64
		}
		ops = append(ops, Operation{ClientId: o.Process, Input: in, Call: o.Call, Output: o.Value, Return: ret})
	}
	return ops
}
