package model

import (
	"github.com/histcheck/histcheck/history"
)

// Operation codes of the mutex model (Op.Kind).
const (
	mutexAcquire uint8 = iota
	mutexRelease
)

// mutex is Knossos's mutex: one lock, no owner recorded. A state is true
// while the lock is held.
type mutex struct{ info Info }

// NewMutex returns the mutex model: acquire is legal only while the lock is
// free and release only while it is held, by any process. It starts free;
// opts are not used.
func NewMutex(Options) Model[bool] {
	return &mutex{info: Info{
		Name: "mutex",
		Doc:  "One lock with no owner recorded, as in Knossos; it starts free.",
		Ops: []OpInfo{
			{Names: []string{"acquire", "lock"}, Value: "ignored", Doc: "takes the lock; legal only while it is free"},
			{Names: []string{"release", "unlock"}, Value: "ignored", Doc: "frees the lock; legal only while it is held"},
		},
	}}
}

func (m *mutex) Info() Info { return m.info }

func (m *mutex) Compile(op *history.Op, _ *Table) (Op, error) {
	switch op.F {
	case "acquire", "lock":
		return Op{Kind: mutexAcquire}, nil
	case "release", "unlock":
		return Op{Kind: mutexRelease}, nil
	}
	return Op{}, UnknownOpError(m.info, op.F)
}

func (m *mutex) Init(*Table) bool { return false }

func (m *mutex) Step(held bool, op *Op) (bool, bool) {
	switch op.Kind {
	case mutexAcquire:
		return true, !held
	case mutexRelease:
		return false, held
	}
	return held, false
}

func (m *mutex) Describe(held bool, _ *Table) string {
	if held {
		return "held"
	}
	return "free"
}

// Explain says why op is illegal in the state.
func (m *mutex) Explain(held bool, op *Op, _ *Table) string {
	switch {
	case op.Kind == mutexAcquire && held:
		return "acquire but the lock is already held"
	case op.Kind == mutexRelease && !held:
		return "release but the lock is free"
	}
	return ""
}

// Delta counts the holders: an acquire adds one, a release takes one away,
// and a legal order keeps the count at 0 (free) or 1 (held).
func (m *mutex) Delta(op *Op) int {
	if op.Kind == mutexAcquire {
		return 1
	}
	return -1
}

// Capacity is one holder at a time.
func (m *mutex) Capacity() int { return 1 }
