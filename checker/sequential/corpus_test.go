package sequential

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/corpus"
	"github.com/histcheck/histcheck/model"
)

// corpusOptions turns a row of EXPECTED.tsv into model options.
func corpusOptions(t testing.TB, row corpus.Row) model.Options {
	o, err := row.Options()
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// checkRow checks one corpus history with the given budget, and verifies
// any witness.
func checkRow(t testing.TB, c string, row corpus.Row, budget time.Duration, o Options) (checker.Result, *history.History) {
	t.Helper()
	h, err := format.ReadFile(row.Path(c), "")
	if err != nil {
		t.Fatalf("%s/%s: %v", row.Dir, row.File, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	mo := corpusOptions(t, row)
	var res checker.Result
	verify := func(err error) {
		if err != nil {
			t.Errorf("%s/%s: witness: %v", row.Dir, row.File, err)
		}
	}
	switch row.Model {
	case "register":
		m := model.NewRegister(mo)
		res, err = Check(ctx, m, h, o)
		if err == nil && res.Valid == checker.True {
			verify(checker.VerifyWitness(m, h, res.Witness, checker.ProcessOrder))
		}
	case "cas-register":
		m := model.NewCASRegister(mo)
		res, err = Check(ctx, m, h, o)
		if err == nil && res.Valid == checker.True {
			verify(checker.VerifyWitness(m, h, res.Witness, checker.ProcessOrder))
		}
	case "kv":
		m := model.NewKV(mo)
		res, err = Check(ctx, m, h, o)
		if err == nil && res.Valid == checker.True {
			verify(checker.VerifyWitness(model.NewKV(mo), h, res.Witness, checker.ProcessOrder))
		}
	case "mutex":
		m := model.NewMutex(mo)
		res, err = Check(ctx, m, h, o)
		if err == nil && res.Valid == checker.True {
			verify(checker.VerifyWitness(m, h, res.Witness, checker.ProcessOrder))
		}
	default:
		t.Fatalf("%s: unknown model %q", row.File, row.Model)
	}
	if err != nil {
		t.Fatalf("%s/%s: %v", row.Dir, row.File, err)
	}
	return res, h
}

// Every linearizable history of the corpus is sequential, with a witness
// that keeps process order.
func TestCorpusLinearizableAreSequential(t *testing.T) {
	c := corpus.Dir(t)
	for _, row := range corpus.Expected(t, c) {
		if row.Expected != "valid" {
			continue
		}
		res, _ := checkRow(t, c, row, 30*time.Second, Options{})
		if res.Valid != checker.True || len(res.Witness) == 0 {
			t.Errorf("%s/%s: %s by %s (%s)", row.Dir, row.File, res.Valid, res.Method, res.Reason)
		}
	}
}

// TestCorpusTable checks every corpus history with a 30-second budget and
// prints the table of docs/sequential.md. It takes minutes, so it runs only
// when HISTCHECK_SEQUENTIAL_TABLE is set.
func TestCorpusTable(t *testing.T) {
	if os.Getenv("HISTCHECK_SEQUENTIAL_TABLE") == "" {
		t.Skip("set HISTCHECK_SEQUENTIAL_TABLE=1 to print the corpus table")
	}
	budget := 30 * time.Second
	if s := os.Getenv("HISTCHECK_SEQUENTIAL_BUDGET"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatal(err)
		}
		budget = d
	}
	c := corpus.Dir(t)
	var sb strings.Builder
	sb.WriteString("| history | ops | processes | linearizable | sequential | method | time | operations in the violation |\n")
	sb.WriteString("| --- | ---: | ---: | --- | --- | --- | ---: | --- |\n")
	for _, row := range corpus.Expected(t, c) {
		if row.Expected == "valid" && os.Getenv("HISTCHECK_SEQUENTIAL_ALL") == "" {
			continue
		}
		start := time.Now()
		res, h := checkRow(t, c, row, budget, Options{})
		el := time.Since(start)
		if el > budget+100*time.Millisecond {
			t.Errorf("%s/%s took %v", row.Dir, row.File, el)
		}
		var vops []string
		if res.Valid == checker.False {
			for _, i := range res.Violations[0].Ops {
				vops = append(vops, h.Ops[i].Label())
			}
		}
		fmt.Fprintf(&sb, "| %s/%s | %d | %d | %s | %s | %s | %s | %s |\n", row.Dir, row.File, res.Stats.Ops, h.Processes,
			map[string]string{"valid": "yes", "invalid": "no"}[row.Expected], res.Valid, res.Method,
			el.Round(time.Millisecond), strings.Join(vops, ", "))
	}
	t.Log("\n" + sb.String())
}

// etcdHard are Porcupine's etcd histories that the search once could not
// decide: not linearizable, but sequentially consistent, with many
// processes that hold one crashed operation each. nodes bounds the search
// in configurations, well above what it needs, so that a lost reduction
// shows as an unknown on every machine.
var etcdHard = []struct {
	file  string
	nodes int64
}{
	{"etcd_013.log", 2_000_000},
	{"etcd_071.log", 2_000_000},
}

// The exact search, without the linearizability pre-check or any
// refutation, finds a witness for each of etcdHard within its bound.
func TestCorpusEtcdSequential(t *testing.T) {
	c := corpus.Dir(t)
	rows := map[string]corpus.Row{}
	for _, row := range corpus.Expected(t, c) {
		if row.Dir == "porcupine-etcd" {
			rows[row.File] = row
		}
	}
	for _, tc := range etcdHard {
		row, ok := rows[tc.file]
		if !ok {
			t.Fatalf("porcupine-etcd/%s is not in EXPECTED.tsv", tc.file)
		}
		res, _ := checkRow(t, c, row, time.Hour, Options{NoLinearFirst: true, MaxNodes: tc.nodes})
		if res.Valid != checker.True || res.Method != MethodSearch {
			t.Errorf("%s: %s by %s (%s)", tc.file, res.Valid, res.Method, res.Reason)
		}
		t.Logf("%s: %s by %s after %d configurations, memo %d", tc.file, res.Valid, res.Method, res.Stats.States, res.Stats.MemoSize)
	}
}

// Knossos's etcd mutex history leaves three holders whatever the order:
// counting refutes it at once (the search alone explored millions of
// configurations without a verdict), naming the three acquires no release
// of their own process followed.
func TestCorpusEtcdMutexCounted(t *testing.T) {
	c := corpus.Dir(t)
	n := 0
	defer func() {
		if n == 0 {
			t.Error("no Knossos mutex history in the corpus")
		}
	}()
	for _, row := range corpus.Expected(t, c) {
		if row.Dir != "knossos" || row.Model != "mutex" {
			continue
		}
		n++
		res, h := checkRow(t, c, row, time.Minute, Options{})
		if res.Valid != checker.False || res.Method != MethodCount {
			t.Fatalf("%s: %s by %s (%s)", row.File, res.Valid, res.Method, res.Reason)
		}
		v := res.Violations[0]
		if v.Count.Least() != 3 || len(v.Ops) != 3 {
			t.Errorf("%s: facts %+v, operations %s", row.File, *v.Count, labels(h, v.Ops))
		}
	}
}
