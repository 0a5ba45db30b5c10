package linear

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

// checkNamed checks h under the model a corpus row names.
func checkNamed(ctx context.Context, name string, o model.Options, h *history.History, opts Options) (checker.Result, error) {
	switch name {
	case "register":
		return Check(ctx, model.NewRegister(o), h, opts)
	case "cas-register":
		return Check(ctx, model.NewCASRegister(o), h, opts)
	case "kv":
		return Check(ctx, model.NewKV(o), h, opts)
	case "mutex":
		return Check(ctx, model.NewMutex(o), h, opts)
	}
	return checker.Result{}, fmt.Errorf("unknown model %q", name)
}

func TestCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	rows := corpus.Expected(t, dir)
	if len(rows) < 150 {
		t.Fatalf("only %d corpus rows", len(rows))
	}
	for _, row := range rows {
		t.Run(row.Dir+"/"+row.File, func(t *testing.T) {
			h, err := format.ReadFile(row.Path(dir), "")
			if err != nil {
				t.Fatal(err)
			}
			o, err := row.Options()
			if err != nil {
				t.Fatal(err)
			}
			// A generous bound that only guards against a hang.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := checkNamed(ctx, row.Model, o, h, Options{Verify: true})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]checker.Verdict{"valid": checker.True, "invalid": checker.False}[row.Expected]
			if res.Valid != want {
				t.Fatalf("verdict %v (%s), want %s", res.Valid, res.Reason, row.Expected)
			}
			if want == checker.False {
				v := res.Violations[0]
				if len(v.Ops) == 0 || Explain(h, checker.Linearizable, v) == "" {
					t.Fatalf("violation without operations or explanation: %+v", v)
				}
				if h.Ops[v.Ops[0]].Status != history.OK {
					t.Fatalf("failing operation %s did not complete", h.Ops[v.Ops[0]].Label())
				}
			}
		})
	}
}
