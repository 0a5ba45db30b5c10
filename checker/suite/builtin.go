package suite

import (
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Builtin returns the models histcheck ships with. The registers and kv
// also get the causal criteria and the session guarantees, since their
// operations are reads, writes and cas; the others get linearizability and
// sequential consistency. The transactional workloads get the isolation
// levels; Jepsen's own checkers come last, each with its own rule.
func Builtin() []Model {
	return append([]Model{
		ReadWrite(Bind(model.NewRegister), history.NilValue),
		ReadWrite(Bind(model.NewCASRegister), history.NilValue),
		ReadWrite(Bind(model.NewKV), history.NilValue),
		Bind(model.NewMutex),
		Bind(model.NewLock),
		Bind(model.NewLease),
		Bind(model.NewFencedRegister),
		Bind(model.NewSet),
		Bind(model.NewFIFOQueue),
		Bind(model.NewUnorderedQueue),
		Bind(model.NewCounter),
		Bind(model.NewMultiRegister),
		Transactional(elle.ListAppend),
		Transactional(elle.RWRegister),
	}, JepsenModels()...)
}
