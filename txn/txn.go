// Package txn holds transactions as data: the micro-operations of Jepsen's
// transactional workloads ([:append k v], [:r k v], [:w k v], and
// Knossos's multi-register [:read k v], [:write k v]) and the transactions
// a history's operations carry. It reads them from history values and
// knows nothing of isolation levels; package checker/elle checks them.
package txn

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/histcheck/histcheck/history"
)

// F is the operation name of a transaction. Events whose value is a list
// of micro-operations and that name no operation get it.
const F = "txn"

// Kind is what a micro-operation does.
type Kind uint8

// The kinds of micro-operation.
const (
	// Append adds Value to the end of the list at Key.
	Append Kind = iota
	// Read observes the value at Key: a whole list in a list-append
	// history, a single value in a register history. A read that has not
	// returned (in an invocation, or of unknown outcome) has Value nil.
	Read
	// Write sets the register at Key to Value.
	Write
)

func (k Kind) String() string {
	switch k {
	case Append:
		return "append"
	case Read:
		return "r"
	case Write:
		return "w"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Mop is one micro-operation of a transaction.
type Mop struct {
	Kind  Kind
	Key   history.Value
	Value history.Value
}

func (m Mop) String() string {
	return fmt.Sprintf("[%s %s %s]", m.Kind, m.Key, m.Value)
}

// Txn is one transaction of a history: an operation whose value is a list
// of micro-operations.
type Txn struct {
	// Op is the operation's position in history.History.Ops.
	Op int
	// Status is history.OK (committed, reads as observed), history.Fail
	// (did not commit) or history.Info (may have committed or not; its
	// reads are unknown).
	Status  history.Type
	Process int
	Mops    []Mop
}

// Committed reports whether the transaction is known to have committed.
func (t *Txn) Committed() bool { return t.Status == history.OK }

// kindOf reads a micro-operation's name.
func kindOf(v history.Value) (Kind, bool) {
	s, ok := v.Str()
	if !ok {
		return 0, false
	}
	switch strings.TrimPrefix(s, ":") {
	case "append":
		return Append, true
	case "r", "read":
		return Read, true
	case "w", "write":
		return Write, true
	}
	return 0, false
}

// Looks reports whether v has the shape of a transaction: a non-empty list
// whose every element is a list [f k] or [f k v] with f one of append, r,
// w, read, write. Readers use it to accept events that omit :f or
// :process, as Elle's own histories do.
func Looks(v history.Value) bool {
	if v.Kind() != history.List || v.Len() == 0 {
		return false
	}
	for _, e := range v.Elems() {
		if _, err := parseMop(e); err != nil {
			return false
		}
	}
	return true
}

// KnossosNames reports whether v is a transaction whose micro-operations
// all use Knossos's multi-register names, read and write (not Elle's r, w
// or append).
func KnossosNames(v history.Value) bool {
	if !Looks(v) {
		return false
	}
	for _, e := range v.Elems() {
		if s, _ := e.Elems()[0].Str(); strings.TrimPrefix(s, ":") != "read" && strings.TrimPrefix(s, ":") != "write" {
			return false
		}
	}
	return true
}

// Parse reads a transaction's micro-operations from an operation's value.
func Parse(v history.Value) ([]Mop, error) {
	var p parser
	out, err := p.parse(v, nil)
	if err == nil && out == nil {
		out = []Mop{}
	}
	return out, err
}

// parser reads micro-operations with buffers reused from one transaction
// to the next: histories hold millions of them.
type parser struct {
	elems, parts []history.Value
}

// parse appends the micro-operations of v to dst and returns the extended
// slice.
func (p *parser) parse(v history.Value, dst []Mop) ([]Mop, error) {
	if err := p.split(v); err != nil {
		return nil, err
	}
	return p.mops(dst)
}

// split reads v's elements, the micro-operations still to parse, into
// p.elems.
func (p *parser) split(v history.Value) error {
	if v.Kind() != history.List {
		return fmt.Errorf("a transaction is a list of micro-operations such as [[append x 1] [r y nil]], got %s", v)
	}
	p.elems = v.AppendElems(p.elems[:0])
	return nil
}

// mops appends the micro-operations split found to dst and returns the
// extended slice.
func (p *parser) mops(dst []Mop) ([]Mop, error) {
	for i, e := range p.elems {
		m, err := p.mop(e)
		if err != nil {
			return nil, fmt.Errorf("micro-operation %d: %w", i+1, err)
		}
		dst = append(dst, m)
	}
	return dst, nil
}

func parseMop(e history.Value) (Mop, error) {
	var p parser
	return p.mop(e)
}

func (p *parser) mop(e history.Value) (Mop, error) {
	if e.Kind() != history.List {
		return Mop{}, fmt.Errorf("want [f key value], got %s", e)
	}
	p.parts = e.AppendElems(p.parts[:0])
	parts := p.parts
	if len(parts) < 2 || len(parts) > 3 {
		return Mop{}, fmt.Errorf("want [f key value], got %s", e)
	}
	k, ok := kindOf(parts[0])
	if !ok {
		return Mop{}, fmt.Errorf("unknown micro-operation %s in %s (accepted: append, r, w, read, write)", parts[0], e)
	}
	m := Mop{Kind: k, Key: parts[1], Value: history.NilValue}
	if len(parts) == 3 {
		m.Value = parts[2]
	} else if k != Read {
		return Mop{}, fmt.Errorf("%s needs a value: [%s key value], got %s", k, k, e)
	}
	return m, nil
}

// FromHistory reads every operation of h as a transaction. Operations of
// the fault injector are not in h.Ops; any other operation must be a
// transaction. Long histories are read in parts, one per core, each
// into its own arenas; the error is the first operation's that has one.
func FromHistory(h *history.History) ([]Txn, error) {
	out := make([]Txn, len(h.Ops))
	parts := 1
	if len(h.Ops) >= 1<<14 {
		parts = min(runtime.NumCPU(), 4)
	}
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for i := range parts {
		lo, hi := i*len(h.Ops)/parts, (i+1)*len(h.Ops)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = readTxns(h, lo, hi, out)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readTxns reads operations lo to hi of h into out, stopping at the first
// that is not a transaction.
func readTxns(h *history.History, lo, hi int, out []Txn) error {
	var p parser
	// The micro-operations share large arenas, a few per history rather
	// than one slice per transaction, each filled to the last
	// transaction that fits.
	const chunk = 1 << 14
	var arena []Mop
	for i := lo; i < hi; i++ {
		op := &h.Ops[i]
		err := p.split(op.Value)
		if err == nil {
			if need := len(p.elems); cap(arena)-len(arena) < need {
				arena = make([]Mop, 0, max(chunk, need))
			}
		}
		base := len(arena)
		if err == nil {
			arena, err = p.mops(arena)
		}
		if err != nil {
			return history.Errorf(op.Line, "operation %s: %v", history.Quote(op.F), err)
		}
		// The full slice expression keeps one transaction's appends,
		// if any, from running into the next's.
		out[i] = Txn{Op: i, Status: op.Status, Process: op.Process, Mops: arena[base:len(arena):len(arena)]}
	}
	return nil
}

// Workload names what a history's transactions do: Appends when some
// micro-operation appends (list-append), else Registers.
func Workload(txns []Txn) Kind {
	for i := range txns {
		for _, m := range txns[i].Mops {
			if m.Kind == Append {
				return Append
			}
		}
	}
	return Write
}
