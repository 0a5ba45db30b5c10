// Package porcupinemodel gives histories to Porcupine, the reference
// linearizability checker the benchmarks compare with, as its own users
// write them: failed operations left out, an operation of unknown outcome
// returning at the end of time with a model that accepts any output for
// it, values as small integers (its own etcd model's form), and keys as
// partitions. Times are given as history.RealTime places them, so that a
// process's touching operations stay in its order (Porcupine reads tied
// times as overlapping); a tangled history (RealTime.Tangled) has no such
// form, and Porcupine may then judge it by a weaker order.
package porcupinemodel

import (
	"hash/fnv"

	"github.com/anishathalye/porcupine"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// pInput is an operation's input for the register models.
type pInput struct {
	op      uint8 // 0 read, 1 write, 2 cas
	key     int
	a, b    int
	unknown bool
}

// Register converts a register, CAS-register or (with keys) kv
// history of reads, writes and cas; init is the initial value.
func Register(h *history.History, init history.Value) (porcupine.Model, []porcupine.Operation) {
	ids := map[history.Value]int{init: 0}
	id := func(v history.Value) int {
		if i, ok := ids[v]; ok {
			return i
		}
		ids[v] = len(ids)
		return len(ids) - 1
	}
	keys := map[history.Value]int{}
	keyed := false
	// kv classes reads, writes and cas as the register models do.
	info := model.NewKV(model.Options{}).Info()
	ops := make([]porcupine.Operation, 0, len(h.Ops))
	rt := h.RealTime()
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Status == history.Fail {
			continue
		}
		in := pInput{unknown: o.Status == history.Info}
		if !o.Key.IsNone() {
			keyed = true
			k, ok := keys[o.Key]
			if !ok {
				k = len(keys)
				keys[o.Key] = k
			}
			in.key = k
		}
		out := 0
		switch info.ClassOf(o.F) {
		case model.ReadOp:
			v := o.Value
			if v.IsNone() {
				v = history.NilValue
			}
			out = id(v)
		case model.WriteOp:
			in.op, in.a = 1, id(o.Value)
		case model.CASOp:
			e := o.Value.Elems()
			in.op, in.a, in.b = 2, id(e[0]), id(e[1])
		}
		ops = append(ops, porcupine.Operation{ClientId: o.Process, Input: in, Call: rt.Spans[i].Call, Output: out, Return: rt.Spans[i].Return})
	}
	m := porcupine.Model{
		Init: func() interface{} { return 0 },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			s := state.(int)
			in := input.(pInput)
			switch in.op {
			case 0:
				return in.unknown || output.(int) == s, s
			case 1:
				return true, in.a
			}
			if in.a == s {
				return true, in.b
			}
			return in.unknown, s
		},
	}
	if keyed {
		m.Partition = func(ops []porcupine.Operation) [][]porcupine.Operation {
			parts := make([][]porcupine.Operation, len(keys))
			for _, o := range ops {
				k := o.Input.(pInput).key
				parts[k] = append(parts[k], o)
			}
			return parts
		}
	}
	return m, ops
}

// kvInput follows Porcupine's own kv model: states are strings, hashed with
// FNV-1a, partitioned by key.
type kvInput struct {
	op         uint8 // 0 get, 1 put, 2 append
	key, value string
	unknown    bool
}

// KV converts a kv history of get, put and append (string values).
func KV(h *history.History) (porcupine.Model, []porcupine.Operation) {
	var ops []porcupine.Operation
	rt := h.RealTime()
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Status == history.Fail {
			continue
		}
		in := kvInput{key: o.Key.Text(), unknown: o.Status == history.Info}
		var out string
		switch o.F {
		case "get":
			out = o.Value.Text()
		case "put":
			in.op, in.value = 1, o.Value.Text()
		case "append":
			in.op, in.value = 2, o.Value.Text()
		}
		ops = append(ops, porcupine.Operation{ClientId: o.Process, Input: in, Call: rt.Spans[i].Call, Output: out, Return: rt.Spans[i].Return})
	}
	m := porcupine.Model{
		Partition: func(ops []porcupine.Operation) [][]porcupine.Operation {
			idx := map[string]int{}
			var parts [][]porcupine.Operation
			for _, o := range ops {
				k := o.Input.(kvInput).key
				i, ok := idx[k]
				if !ok {
					i = len(parts)
					idx[k] = i
					parts = append(parts, nil)
				}
				parts[i] = append(parts[i], o)
			}
			return parts
		},
		Init: func() interface{} { return "" },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			s := state.(string)
			in := input.(kvInput)
			switch in.op {
			case 0:
				return in.unknown || output.(string) == s, s
			case 1:
				return true, in.value
			}
			return true, s + in.value
		},
		Hash: func(state interface{}) uint64 {
			h := fnv.New64a()
			h.Write([]byte(state.(string)))
			return h.Sum64()
		},
	}
	return m, ops
}
