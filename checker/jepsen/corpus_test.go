package jepsen_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
	"github.com/histcheck/histcheck/format"
)

var corpus = filepath.Join("..", "..", "..", "shared", "corpus", "jepsen")

// corpusModels maps the models of the corpus's EXPECTED.tsv to ours;
// the transactional ones are package elle's.
var corpusModels = map[string]string{"counter": jepsen.Counter, "set": jepsen.Set, "set-full": jepsen.SetFull,
	"bank": jepsen.Bank, "long-fork": jepsen.LongFork}

// TestCorpusExpected checks the corpus's Jepsen histories through the
// checking pipeline, by model name as a caller would, for the verdicts
// elle-cli gives (EXPECTED.tsv).
func TestCorpusExpected(t *testing.T) {
	f, err := os.Open(filepath.Join(corpus, "EXPECTED.tsv"))
	if err != nil {
		t.Skipf("corpus not present: %v", err)
	}
	defer f.Close()
	checked := 0
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 4 {
			continue
		}
		name, ok := corpusModels[strings.Fields(cols[1])[0]]
		if !ok {
			continue
		}
		var opts []string
		if strings.HasPrefix(cols[2], "group size ") {
			opts = []string{"group-size=" + strings.TrimPrefix(cols[2], "group size ")}
		}
		want := map[string]checker.Verdict{"valid": checker.True, "invalid": checker.False}[cols[3]]
		if got := corpusVerdict(t, cols[0], name, opts); got != want {
			t.Errorf("%s with %s: got %v, want %v (%s)", cols[0], name, got, want, cols[3])
		}
		checked++
	}
	if checked != 6 {
		t.Errorf("checked %d Jepsen histories, want 6", checked)
	}
}

func corpusVerdict(t *testing.T, file, name string, opts []string) checker.Verdict {
	t.Helper()
	h, err := format.ReadFile(filepath.Join(corpus, file), "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := check.Run(t.Context(), h, check.Request{Name: file, Model: name, ModelOptions: opts})
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(out.Results) != 1 || out.Results[0].Criterion != jepsen.Criterion {
		t.Fatalf("%s: results %+v", file, out.Results)
	}
	return out.Results[0].Valid
}

// TestCorpusCounts compares our counts with those of elle-cli's results
// for the same histories (its test/test-data/*-result.json).
func TestCorpusCounts(t *testing.T) {
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("corpus not present: %v", err)
	}
	read := func(file string) *checker.JepsenTally {
		h, err := format.ReadFile(filepath.Join(corpus, file), "")
		if err != nil {
			t.Fatal(err)
		}
		name := map[string]string{"counter.edn": jepsen.Counter, "set.edn": jepsen.Set, "set_full.edn": jepsen.SetFull,
			"bank.edn": jepsen.Bank, "bank-neg.edn": jepsen.Bank, "long-fork.edn": jepsen.LongFork}[file]
		return run(t, name, h, nil).Jepsen
	}
	// counter-result.json: {"valid?":true, "reads":[], "errors":[]}
	if c := read("counter.edn").Counter; len(c.Reads) != 0 || len(c.Errors) != 0 {
		t.Errorf("counter: %+v", c)
	}
	// set-result.json: attempt 3, acknowledged 3, ok "#{0..2}", nothing lost, recovered or unexpected.
	if s := read("set.edn").Set; len(s.Attempts) != 3 || len(s.Acknowledged) != 3 || jepsen.IntervalSet(s.OK) != "#{0..2}" ||
		len(s.Lost)+len(s.Recovered)+len(s.Unexpected) != 0 {
		t.Errorf("set: %+v", s)
	}
	// bank-result.json: read-count 168, error-count 0; bank-neg-result.json: 1 and 0.
	for file, reads := range map[string]int{"bank.edn": 168, "bank-neg.edn": 1} {
		if b := read(file).Bank; b.Reads != reads || len(b.Errors) != 0 || b.FirstError != checker.None {
			t.Errorf("%s: %+v", file, b)
		}
	}
	// long-fork-result.json: reads-count 2, early 0, late 0, one fork.
	if l := read("long-fork.edn").LongFork; l.Reads != 2 || l.EarlyReads != 0 || l.LateReads != 0 || len(l.Forks) != 1 {
		t.Errorf("long-fork: %+v", l)
	}
	// set_full.edn adds [0 k] pairs but reads plain numbers: every one of
	// its 293 elements is lost.
	if s := read("set_full.edn").SetFull; s.Attempts != 293 || len(s.Lost) != 293 || len(s.Stable) != 0 {
		t.Errorf("set-full: attempts %d, lost %d, stable %d", s.Attempts, len(s.Lost), len(s.Stable))
	}
}
