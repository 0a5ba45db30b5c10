package model

import (
	"fmt"

	"github.com/histcheck/histcheck/history"
)

// Operation codes of the queue models (Op.Kind).
const (
	queueEnqueue uint8 = iota
	queueDequeue
)

// queue is the FIFO queue and, with unordered set, the unordered queue (a
// multiset). A state is the Table ids of the elements, each written as a
// uvarint: head first for the FIFO queue, sorted for the unordered one. A
// compiled enqueue has A = the element's id; a completed dequeue has A =
// the id of the element it returned, or 0 when it found the queue empty.
type queue struct {
	info      Info
	unordered bool
	init      []history.Value
	initErr   error
}

// NewFIFOQueue returns the FIFO queue model (Knossos's fifo-queue): enqueue
// adds a value at the tail, dequeue removes and returns the head. It starts
// empty, or holding the elements of opts.Init (a list, head first).
//
// A dequeue that completed with nil found the queue empty; Jepsen's queue
// tests record that as a failed dequeue instead, which did nothing. A
// dequeue of unknown outcome, if it took effect, removed the head: the
// model needs no value for it.
func NewFIFOQueue(opts Options) Model[string] {
	return newQueue(opts, false)
}

// NewUnorderedQueue returns the unordered queue model (Knossos's
// unordered-queue): dequeue removes and returns any element present, so the
// queue is a multiset. It starts empty, or holding the elements of
// opts.Init.
//
// A dequeue that completed with nil found the queue empty. A dequeue of
// unknown outcome, if it took effect, removed some element; the model
// removes the least by Table id. That choice loses nothing: such a dequeue
// may take effect at any time after its call, so an order that needs it
// can delay it until just before a dequeue that found the queue empty,
// and there whichever element it removes, the queue must then be empty.
func NewUnorderedQueue(opts Options) Model[string] {
	return newQueue(opts, true)
}

func newQueue(opts Options, unordered bool) *queue {
	m := &queue{unordered: unordered}
	name := "fifo-queue"
	m.info = Info{
		Name: name,
		Doc:  "A first-in first-out queue; it starts empty (or with the elements of an initial list, head first).",
		Ops: []OpInfo{
			{Names: []string{"enqueue"}, Value: "any but nil (the element)", Doc: "adds the element at the tail"},
			{Names: []string{"dequeue"}, Value: "any (the element removed), nil if the queue was empty",
				Doc: "removes and returns the head; nil is legal only on an empty queue"},
		},
	}
	if unordered {
		name = "unordered-queue"
		m.info.Name = name
		m.info.Doc = "A queue that hands out its elements in any order (a multiset); it starts empty (or with the elements of an initial list)."
		m.info.Ops[0].Doc = "adds the element"
		m.info.Ops[1].Doc = "removes and returns any element present; nil is legal only on an empty queue"
	}
	m.init, m.initErr = initElems(name, opts.Init)
	return m
}

func (m *queue) Info() Info { return m.info }

// Compile interns an enqueue's element and a completed dequeue's result. A
// dequeue of unknown outcome returned nothing the history knows, so its
// value is not looked at.
func (m *queue) Compile(op *history.Op, t *Table) (Op, error) {
	if m.initErr != nil {
		return Op{}, m.initErr
	}
	switch op.F {
	case "enqueue":
		switch {
		case op.Value.IsNone():
			return Op{}, fmt.Errorf("enqueue needs the element enqueued")
		case op.Value.IsNil():
			return Op{}, fmt.Errorf("enqueue of nil: nil is what a dequeue from an empty queue returns, so it cannot be an element")
		}
		return Op{Kind: queueEnqueue, A: t.ID(op.Value)}, nil
	case "dequeue":
		o := Op{Kind: queueDequeue}
		switch {
		case op.Status == history.Info:
		case op.Value.IsNone():
			return Op{}, fmt.Errorf("dequeue needs the element it returned (nil if the queue was empty)")
		case !op.Value.IsNil():
			o.A = t.ID(op.Value)
		}
		return o, nil
	}
	return Op{}, UnknownOpError(m.info, op.F)
}

func (m *queue) Init(t *Table) string {
	ids := make([]int64, len(m.init))
	for i, v := range m.init {
		ids[i] = t.ID(v)
	}
	if m.unordered {
		s := ""
		for _, id := range ids {
			s, _ = insertID(s, id, false)
		}
		return s
	}
	var b []byte
	for _, id := range ids {
		b = appendID(b, id)
	}
	return string(b)
}

func (m *queue) Step(s string, op *Op) (string, bool) {
	switch op.Kind {
	case queueEnqueue:
		if m.unordered {
			next, _ := insertID(s, op.A, false)
			return next, true
		}
		return string(appendID([]byte(s), op.A)), true
	case queueDequeue:
		switch {
		case op.Unknown:
			// The head for both: the unordered queue keeps its ids
			// sorted, so its head is the least id.
			if s == "" {
				return s, true
			}
			_, n := nextID(s)
			return s[n:], true
		case op.A == 0:
			return s, s == ""
		case m.unordered:
			return removeID(s, op.A)
		}
		if s == "" {
			return s, false
		}
		head, n := nextID(s)
		if head != op.A {
			return s, false
		}
		return s[n:], true
	}
	return s, false
}

func (m *queue) Describe(s string, t *Table) string {
	if s == "" {
		return "empty"
	}
	return "[" + joinValues(decodeIDs(s), t, m.unordered) + "]"
}

// Explain says why a dequeue is illegal: the queue was empty, held another
// head, did not hold the element, or was not empty.
func (m *queue) Explain(s string, op *Op, t *Table) string {
	if op.Kind != queueDequeue || op.Unknown {
		return ""
	}
	v := describeValue(t.Value(op.A))
	switch {
	case op.A == 0:
		return fmt.Sprintf("dequeue found the queue empty but it holds %s", m.Describe(s, t))
	case s == "":
		return fmt.Sprintf("dequeued %s but the queue is empty", v)
	case m.unordered:
		return fmt.Sprintf("dequeued %s but the queue holds no %s: %s", v, v, m.Describe(s, t))
	}
	head, _ := nextID(s)
	return fmt.Sprintf("dequeued %s but the head of the queue is %s: %s", v, describeValue(t.Value(head)), m.Describe(s, t))
}

// Keep drops enqueues of unknown outcome whose element no completed dequeue
// returned, and dequeues of unknown outcome when no completed dequeue could
// notice them: for the unordered queue, when none found the queue empty;
// for the FIFO queue, when there is no completed dequeue at all.
//
// Why this is exact: dropping optional operations only removes orders, so a
// valid verdict stays valid. Conversely, take a legal order. An enqueue of x
// whose x no completed dequeue returned: either x stays in the queue to the
// end, and without it every dequeue still finds what it found (for the FIFO
// queue nothing behind x was ever dequeued), or a dequeue of unknown outcome
// removed x, and leaving out both keeps every later state. A dequeue of
// unknown outcome in an unordered queue can be delayed until just before
// the next dequeue that found the queue empty (see NewUnorderedQueue), or
// to the end, where it is left out; with no such dequeue, it is left out.
// In a FIFO queue with no completed dequeue, every order is legal.
func (m *queue) Keep(ops []Op) []bool {
	returned := make(map[int64]bool)
	sawEmpty, sawDequeue := false, false
	for i := range ops {
		o := &ops[i]
		if o.Kind != queueDequeue || o.Unknown {
			continue
		}
		sawDequeue = true
		if o.A == 0 {
			sawEmpty = true
		} else {
			returned[o.A] = true
		}
	}
	keepDequeues := sawDequeue
	if m.unordered {
		keepDequeues = sawEmpty
	}
	keep := make([]bool, len(ops))
	for i := range ops {
		o := &ops[i]
		switch {
		case !o.Unknown:
			keep[i] = true
		case o.Kind == queueEnqueue:
			keep[i] = returned[o.A]
		case o.Kind == queueDequeue:
			keep[i] = keepDequeues
		}
	}
	return keep
}
