package sequential

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/corpus"
	"github.com/histcheck/histcheck/model"
)

// BenchmarkMemstress checks Knossos's memstress histories (10–26 processes,
// about 300 operations, CAS register) with and without the linearizability
// shortcut, so that the search's own speed shows.
func BenchmarkMemstress(b *testing.B) {
	c := corpus.Dir(b)
	opts := model.Options{Init: history.IntValue(0), NilRead: model.NilIsAny}
	for _, n := range []int{0, 1, 7, 11, 25, 49} {
		file := fmt.Sprintf("%s/knossos/cas-register/good/memstress3-%d.edn", c, n)
		h, err := format.ReadFile(file, "")
		if err != nil {
			b.Fatal(err)
		}
		for _, nlf := range []bool{false, true} {
			name := fmt.Sprintf("memstress3-%d/linear-first", n)
			if nlf {
				name = fmt.Sprintf("memstress3-%d/search", n)
			}
			b.Run(name, func(b *testing.B) {
				var res checker.Result
				for b.Loop() {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					res, err = Check(ctx, model.NewCASRegister(opts), h, Options{NoLinearFirst: nlf})
					cancel()
					if err != nil {
						b.Fatal(err)
					}
				}
				if res.Valid != checker.True {
					b.Fatalf("%s by %s: %s", res.Valid, res.Method, res.Reason)
				}
				b.ReportMetric(float64(res.Stats.States), "states")
			})
		}
	}
}
