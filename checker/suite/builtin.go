package suite

import (
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Builtin returns the models histcheck ships with. The registers and kv
// also get the causal criteria and the session guarantees, since their
// operations are reads, writes and cas (kv's appends go to checker/adt);
// the others get linearizability, sequential consistency and the weak
// criteria of checker/adt, but for the lease, whose steps depend on real
// time, and the unordered queue, whose dequeues' effects depend on their
// outputs. The transactional workloads get the isolation
// levels; Jepsen's own checkers come last, each with its own rule.
func Builtin() []Model {
	return append([]Model{
		ReadWrite(Bind(model.NewRegister), history.NilValue),
		ReadWrite(Bind(model.NewCASRegister), history.NilValue),
		ReadWrite(BindWeak(model.NewKV), history.NilValue),
		BindWeak(model.NewMutex),
		BindWeak(model.NewLock),
		Bind(model.NewLease), // its steps depend on real time, which the weak criteria ignore
		BindWeak(model.NewFencedRegister),
		BindWeak(model.NewSet),
		BindWeak(model.NewFIFOQueue),
		// Which element an unordered queue's dequeue removes is its
		// output: hidden, its effect is undefined, and the weak criteria
		// hide outputs.
		Bind(model.NewUnorderedQueue),
		BindWeak(model.NewCounter),
		BindWeak(model.NewMultiRegister),
		Transactional(elle.ListAppend),
		Transactional(elle.RWRegister),
	}, JepsenModels()...)
}
