package linear

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/corpus"
	"github.com/histcheck/histcheck/internal/porcupinemodel"
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
			bc.pModel, bc.pOps = porcupinemodel.KV(h)
		} else {
			bc.pModel, bc.pOps = porcupinemodel.Register(h, history.NilValue)
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
