package suite

import (
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Builtin returns the models histcheck ships with: register, cas-register,
// kv and mutex. The registers and kv also get the causal criteria and the
// session guarantees, since their operations are reads and writes.
func Builtin() []Model {
	return []Model{
		ReadWrite(Bind(model.NewRegister), history.NilValue),
		ReadWrite(Bind(model.NewCASRegister), history.NilValue),
		ReadWrite(Bind(model.NewKV), history.NilValue),
		Bind(model.NewMutex),
	}
}
