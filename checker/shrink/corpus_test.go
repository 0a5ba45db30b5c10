package shrink

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/corpus"
	"github.com/histcheck/histcheck/model"
)

// rowChecker returns a linearizability checker for a corpus row's model.
func rowChecker(row corpus.Row) (Checker, bool, error) {
	o, err := row.Options()
	if err != nil {
		return nil, false, err
	}
	switch row.Model {
	case "register":
		return linearChecker(model.NewRegister(o)), false, nil
	case "cas-register":
		return linearChecker(model.NewCASRegister(o)), false, nil
	case "kv":
		// A fresh model per check: the kv model's value table only grows.
		return func(ctx context.Context, h *history.History) (checker.Result, error) {
			return linearChecker(model.NewKV(o))(ctx, h)
		}, true, nil
	case "mutex":
		return linearChecker(model.NewMutex(o)), false, nil
	}
	return nil, false, fmt.Errorf("unknown model %q", row.Model)
}

// hardCorpus are invalid histories whose cores are sound but not shown
// 1-minimal within the time the test allows. None is left: every core of
// the corpus is proven 1-minimal.
var hardCorpus = map[string]bool{}

// slowCorpus are histories whose proof of minimality takes longer than the
// others' (the mutex's core is large: with no owner recorded, the violation
// is a count of acquires against releases, so every acquire is needed).
var slowCorpus = map[string]bool{
	"knossos/mutex/bad/etcd.edn": true,
}

// TestCorpus shrinks every invalid history of the shared corpus and proves
// each core still violates linearizability and is 1-minimal (with -short,
// the slow ones' cores need only be shown to violate it).
func TestCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	rows := corpus.Expected(t, dir)
	var table []string
	n := 0
	for _, row := range rows {
		if row.Expected != "invalid" {
			continue
		}
		n++
		t.Run(row.Dir+"/"+row.File, func(t *testing.T) {
			h, err := format.ReadFile(row.Path(dir), "")
			if err != nil {
				t.Fatal(err)
			}
			check, keyed, err := rowChecker(row)
			if err != nil {
				t.Fatal(err)
			}
			limit := 10 * time.Second // far more than these need; guards against a hang
			hard := hardCorpus[row.Dir+"/"+row.File]
			switch {
			case hard:
				limit = 3 * time.Second
			case slowCorpus[row.Dir+"/"+row.File] && testing.Short():
				// With -short the slow proof is cut short, as for the
				// hard ones: the core found in time must still fail.
				hard, limit = true, 2*time.Second
			case slowCorpus[row.Dir+"/"+row.File]:
				limit = 2 * time.Minute
			}
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			defer cancel()
			start := time.Now()
			core, err := Minimize(ctx, h, check, keyed)
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if hard && !core.Minimal {
				// The core found in time must still be one the checker
				// rejects, so that what is reported is sound.
				res, err := check(context.Background(), core.History)
				if err != nil || res.Valid != checker.False {
					t.Fatalf("core history verdict %v (%v), want false", res.Valid, err)
				}
			} else {
				if !core.Minimal {
					t.Fatalf("core of %d operations not shown 1-minimal after %v", core.Size(), took)
				}
				assertCore(t, context.Background(), check, core)
			}
			if Explain(core.History, checker.Linearizable, core.Violation) == "" {
				t.Fatal("the core's violation has no reason")
			}
			table = append(table, fmt.Sprintf("| %s/%s | %s | %d | %d | %d | %d | %d | %s | %v |", row.Dir, row.File, row.Model,
				len(h.Ops), core.Size(), len(core.Ops), len(core.Weakened), core.Checks, took.Round(time.Millisecond), core.Minimal))
		})
	}
	if n < 80 {
		t.Fatalf("only %d invalid corpus histories", n)
	}
	t.Logf("\n%s", strings.Join(table, "\n"))
}
