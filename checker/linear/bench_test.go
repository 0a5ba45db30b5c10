package linear

import (
	"context"
	"hash/fnv"
	"path/filepath"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/corpus"
	"github.com/histcheck/histcheck/model"
)

// The benchmarks time histcheck and Porcupine on the same parsed histories;
// parsing and the conversion to Porcupine's operations happen before the
// timer starts. Porcupine gets the models its own tests use: integer states
// for the etcd CAS register, string states partitioned by key for kv.

// benchCase is one corpus history prepared for both checkers.
type benchCase struct {
	name   string
	h      *history.History
	kv     bool
	pModel porcupine.Model
	pOps   []porcupine.Operation
	want   checker.Verdict
}

func loadBench(b testing.TB, dir string, only map[string]bool) []benchCase {
	b.Helper()
	c := corpus.Dir(b)
	var out []benchCase
	for _, row := range corpus.Expected(b, c) {
		if row.Dir != dir {
			continue
		}
		base := row.File[:len(row.File)-len(filepath.Ext(row.File))]
		if only != nil && !only[base] {
			continue
		}
		h, err := format.ReadFile(row.Path(c), "")
		if err != nil {
			b.Fatal(err)
		}
		bc := benchCase{name: base, h: h, kv: row.Model == "kv",
			want: map[string]checker.Verdict{"valid": checker.True, "invalid": checker.False}[row.Expected]}
		if bc.kv {
			bc.pModel, bc.pOps = porcupineKV(h)
		} else {
			bc.pModel, bc.pOps = porcupineEtcd(h)
		}
		out = append(out, bc)
	}
	if len(out) == 0 {
		b.Fatalf("no histories in %s", dir)
	}
	return out
}

func (bc *benchCase) histcheck(b testing.TB) {
	var res checker.Result
	var err error
	if bc.kv {
		res, err = Check(context.Background(), model.NewKV(model.Options{Init: history.StringValue("")}), bc.h, Options{})
	} else {
		res, err = Check(context.Background(), model.NewCASRegister(model.Options{Init: history.NilValue}), bc.h, Options{})
	}
	if err != nil || res.Valid != bc.want {
		b.Fatalf("%s: %v %v", bc.name, res.Valid, err)
	}
}

func (bc *benchCase) porcupine(b testing.TB) {
	got := porcupineVerdictBool(porcupine.CheckOperations(bc.pModel, bc.pOps))
	if got != bc.want {
		b.Fatalf("%s: porcupine says %v", bc.name, got)
	}
}

func porcupineVerdictBool(ok bool) checker.Verdict {
	if ok {
		return checker.True
	}
	return checker.False
}

func BenchmarkEtcdCorpus(b *testing.B) {
	cases := loadBench(b, "porcupine-etcd", nil)
	b.Run("histcheck", func(b *testing.B) {
		for b.Loop() {
			for i := range cases {
				cases[i].histcheck(b)
			}
		}
	})
	b.Run("porcupine", func(b *testing.B) {
		for b.Loop() {
			for i := range cases {
				cases[i].porcupine(b)
			}
		}
	})
}

func BenchmarkFile(b *testing.B) {
	cases := loadBench(b, "porcupine-etcd", map[string]bool{"etcd_002": true, "etcd_007": true,
		"etcd_057": true, "etcd_099": true, "etcd_075": true})
	cases = append(cases, loadBench(b, "porcupine-kv", map[string]bool{"c50-ok": true, "c50-bad": true})...)
	for i := range cases {
		bc := &cases[i]
		b.Run(bc.name+"/histcheck", func(b *testing.B) {
			for b.Loop() {
				bc.histcheck(b)
			}
		})
		b.Run(bc.name+"/porcupine", func(b *testing.B) {
			for b.Loop() {
				bc.porcupine(b)
			}
		})
	}
}

// etcdInput and etcdState follow Porcupine's own etcd model: values are
// small integers, crashed operations accept any output.
type etcdInput struct {
	op      uint8 // 0 read, 1 write, 2 cas
	a, b    int
	unknown bool
}

func porcupineEtcd(h *history.History) (porcupine.Model, []porcupine.Operation) {
	ids := map[history.Value]int{history.NilValue: 0}
	id := func(v history.Value) int {
		if i, ok := ids[v]; ok {
			return i
		}
		ids[v] = len(ids)
		return len(ids) - 1
	}
	var ops []porcupine.Operation
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Status == history.Fail {
			continue
		}
		in := etcdInput{unknown: o.Status == history.Info}
		out := 0
		switch o.F {
		case "read":
			v := o.Value
			if v.IsNone() {
				v = history.NilValue
			}
			out = id(v)
		case "write":
			in.op, in.a = 1, id(o.Value)
		case "cas":
			e := o.Value.Elems()
			in.op, in.a, in.b = 2, id(e[0]), id(e[1])
		}
		ops = append(ops, porcupine.Operation{ClientId: o.Process, Input: in, Call: o.Call, Output: out, Return: o.Return})
	}
	m := porcupine.Model{
		Init: func() interface{} { return 0 },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			s := state.(int)
			in := input.(etcdInput)
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
	return m, ops
}

// kvInput follows Porcupine's own kv model (states are strings, hashed
// with FNV-1a).
type kvInput struct {
	op         uint8 // 0 get, 1 put, 2 append
	key, value string
	unknown    bool
}

func porcupineKV(h *history.History) (porcupine.Model, []porcupine.Operation) {
	var ops []porcupine.Operation
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
		ops = append(ops, porcupine.Operation{ClientId: o.Process, Input: in, Call: o.Call, Output: out, Return: o.Return})
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
