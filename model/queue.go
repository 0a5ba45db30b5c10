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
// the id of the element it returned, or 0 when it returned nil.
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
// As in Knossos, a completed dequeue returned an element: one that
// completed with nil is illegal in every state, a queue empty or not.
// Jepsen's queue tests record a dequeue that found the queue empty as
// failed, which did nothing. A dequeue of unknown outcome, if it took
// effect, removed the head: the model needs no value for it. (Knossos
// steps it with its invocation's value, usually nil, so there it never
// takes effect; see docs/models.md.)
func NewFIFOQueue(opts Options) Model[string] {
	return newQueue(opts, false)
}

// NewUnorderedQueue returns the unordered queue model (Knossos's
// unordered-queue): dequeue removes and returns any element present, so the
// queue is a multiset. It starts empty, or holding the elements of
// opts.Init.
//
// As for the FIFO queue, a dequeue that completed with nil is illegal. A
// dequeue of unknown outcome, if it took effect, removed some element; the
// model removes the least by Table id. That choice loses nothing: removing
// an element never helps a later dequeue of this queue (each needs its
// element present, and none may find the queue empty), so an order that
// holds such a dequeue stays legal without it.
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
			{Names: []string{"dequeue"}, Value: "any (the element removed); record one that found the queue empty as failed",
				Doc: "removes and returns the head; a completed dequeue of nil is illegal, as in Knossos"},
		},
	}
	if unordered {
		name = "unordered-queue"
		m.info.Name = name
		m.info.Doc = "A queue that hands out its elements in any order (a multiset); it starts empty (or with the elements of an initial list)."
		m.info.Ops[0].Doc = "adds the element"
		m.info.Ops[1].Doc = "removes and returns any element present; a completed dequeue of nil is illegal, as in Knossos"
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
			return Op{}, fmt.Errorf("enqueue of nil: a queue's elements are values other than nil")
		}
		return Op{Kind: queueEnqueue, A: t.ID(op.Value)}, nil
	case "dequeue":
		o := Op{Kind: queueDequeue}
		switch {
		case op.Status == history.Info:
		case op.Value.IsNone():
			return Op{}, fmt.Errorf("dequeue needs the element it returned")
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
			// Knossos: no dequeue returns nil, from an empty queue or not.
			return s, false
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

// Explain says why a dequeue is illegal: it returned nil, the queue was
// empty, held another head, or did not hold the element.
func (m *queue) Explain(s string, op *Op, t *Table) string {
	if op.Kind != queueDequeue || op.Unknown {
		return ""
	}
	v := describeValue(t.Value(op.A))
	switch {
	case op.A == 0 && s == "":
		return "dequeue returned nil from the empty queue: a dequeue that finds the queue empty must be recorded as failed"
	case op.A == 0:
		return fmt.Sprintf("dequeue returned nil but the queue holds %s", m.Describe(s, t))
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
// notice them: always for the unordered queue; for the FIFO queue, when
// there is no completed dequeue at all.
//
// Why this is exact: dropping optional operations only removes orders, so a
// valid verdict stays valid. Conversely, take a legal order. An enqueue of x
// whose x no completed dequeue returned: either x stays in the queue to the
// end, and without it every dequeue still finds what it found (for the FIFO
// queue nothing behind x was ever dequeued), or a dequeue of unknown outcome
// removed x, and leaving out both keeps every later state. In an unordered
// queue a dequeue of unknown outcome only takes an element away, and no
// completed dequeue is legal on fewer elements than it needs (none may find
// the queue empty), so leaving it out keeps the order legal. In a FIFO queue
// with no completed dequeue, every order is legal.
func (m *queue) Keep(ops []Op) []bool {
	returned := make(map[int64]bool)
	sawDequeue := false
	for i := range ops {
		o := &ops[i]
		if o.Kind != queueDequeue || o.Unknown {
			continue
		}
		sawDequeue = true
		if o.A != 0 {
			returned[o.A] = true
		}
	}
	keepDequeues := sawDequeue && !m.unordered
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
