package format_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/corpus"
)

// corpusFiles lists every history file of the corpus's register, key-value
// and lock folders. The jepsen/ folder holds transactions and the inputs of
// Jepsen's own checkers, which histcheck does not read yet.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	root := corpus.Dir(t)
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "jepsen" {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(p, ".tsv") || strings.HasSuffix(p, ".md") {
			return nil
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 169 {
		t.Fatalf("found only %d corpus files under %s", len(files), root)
	}
	return files
}

// TestCorpusParses reads every corpus file and checks the counts of a few,
// taken from the files with grep (invocations, completions by type, and
// nemesis lines).
func TestCorpusParses(t *testing.T) {
	type counts struct {
		ops, processes, clients, ok, fail, info, ignored int
	}
	want := map[string]counts{
		"porcupine-etcd/etcd_000.log":                             {85, 19, 19, 49, 20, 16, 0},
		"porcupine-etcd/etcd_001.log":                             {86, 18, 18, 60, 12, 14, 0},
		"porcupine-kv/c01-ok.txt":                                 {58, 1, 1, 58, 0, 0, 0},
		"porcupine-kv/c10-bad.txt":                                {405, 10, 10, 405, 0, 0, 0},
		"porcupine-kv/c50-ok.txt":                                 {1712, 50, 50, 1712, 0, 0, 0},
		"knossos/mutex/bad/etcd.edn":                              {563, 5, 5, 261, 299, 3, 12},
		"knossos/cas-register/bad/rethink-fail.edn":               {250, 26, 26, 125, 121, 4, 0},
		"knossos/cas-register/bad/bad-analysis.edn":               {9, 9, 9, 7, 0, 2, 0},
		"knossos/cas-register/good/memstress3-0.edn":              {317, 10, 10, 231, 86, 0, 0},
		"knossos/cas-register/good/mongodb-v0-ack-rollback-3.edn": {704, 19, 19, 30, 665, 9, 0},
	}
	root := corpus.Dir(t)
	seen := 0
	for _, p := range corpusFiles(t) {
		h, err := format.ReadFile(p, "")
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if len(h.Ops) == 0 {
			t.Errorf("%s: no operations", p)
		}
		rel, _ := filepath.Rel(root, p)
		w, ok := want[filepath.ToSlash(rel)]
		if !ok {
			continue
		}
		seen++
		c := h.Counts()
		got := counts{len(h.Ops), h.Processes, h.Clients, c.OK, c.Fail, c.Info, h.Ignored}
		if got != w {
			t.Errorf("%s: got %+v, want %+v", rel, got, w)
		}
	}
	if seen != len(want) {
		t.Errorf("checked %d of %d files with known counts", seen, len(want))
	}
}

// TestCorpusValues spot-checks values the readers must get right: EDN
// keys, a cas pair, a :fail :read :timed-out line keeping the invocation's
// nil, and the extra :error field.
func TestCorpusValues(t *testing.T) {
	t.Run("kv key and value", corpusKVValue)
	t.Run("cas pair", corpusCasPair)
	t.Run("timed-out read", corpusTimedOutRead)
	t.Run("mutex error field", corpusMutexExtra)
}

// readCorpus reads a corpus file named by its path below the corpus.
func readCorpus(t *testing.T, elem ...string) *history.History {
	t.Helper()
	h, err := format.ReadFile(filepath.Join(append([]string{corpus.Dir(t)}, elem...)...), "")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func corpusKVValue(t *testing.T) {
	h := readCorpus(t, "porcupine-kv", "c01-ok.txt")
	o := h.Ops[0]
	if o.F != "append" || o.Key != history.StringValue("0") || o.Value != history.StringValue("x 0 0 y") || o.Line != 1 {
		t.Errorf("first kv op = %+v", o)
	}
}

func corpusCasPair(t *testing.T) {
	h := readCorpus(t, "porcupine-etcd", "etcd_000.log")
	var cas *history.Op
	for i := range h.Ops {
		if h.Ops[i].F == "cas" && h.Ops[i].Status == history.OK {
			cas = &h.Ops[i]
			break
		}
	}
	if cas == nil || cas.Value != history.ListValue(history.IntValue(3), history.IntValue(0)) || cas.Line != 19 {
		t.Errorf("first ok cas = %+v, want [3 0] invoked at line 19", cas)
	}
}

// corpusTimedOutRead checks that a read which failed with :timed-out keeps
// its invocation's nil.
func corpusTimedOutRead(t *testing.T) {
	var timedOut string
	for _, p := range corpusFiles(t) {
		b, err := os.ReadFile(p)
		if err == nil && timedOutLine.Match(b) {
			timedOut = p
			break
		}
	}
	if timedOut == "" {
		t.Fatal("no :fail :read :timed-out line in the corpus")
	}
	h, err := format.ReadFile(timedOut, "")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, o := range h.Ops {
		if o.F == "read" && o.Status == history.Fail {
			found = true
			if !o.Value.IsNil() {
				t.Errorf("%s: failed read has value %v, want the invocation's nil", timedOut, o.Value)
			}
		}
	}
	if !found {
		t.Errorf("%s: no failed read", timedOut)
	}
}

func corpusMutexExtra(t *testing.T) {
	h := readCorpus(t, "knossos", "mutex", "bad", "etcd.edn")
	o := h.Ops[0]
	wantExtra := []history.Field{{Name: "error", Value: history.StringValue("not-held")}}
	if o.F != "release" || o.Status != history.Fail || o.Times.Call != 341187643 || o.Times.Return != 342667129 || o.Index != 0 ||
		!reflect.DeepEqual(o.Extra, wantExtra) {
		t.Errorf("first mutex op = %+v", o)
	}
}

var timedOutLine = regexp.MustCompile(`:fail\s+:read\s+:timed-out`)

// sameOps compares two histories operation by operation.
func sameOps(t *testing.T, what string, a, b *history.History) {
	t.Helper()
	if err := history.Equivalent(a, b); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestCorpusRoundTrip writes every corpus history in each writable format
// and reads it back.
func TestCorpusRoundTrip(t *testing.T) {
	for _, p := range corpusFiles(t) {
		h, err := format.ReadFile(p, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, to := range []string{"json", "jsonl", "edn"} {
			var buf bytes.Buffer
			if err := format.Write(&buf, h, to); err != nil {
				t.Fatalf("%s as %s: %v", p, to, err)
			}
			back, err := format.ReadWith("out."+to, &buf, format.Options{Order: h.Order.String()})
			if err != nil {
				t.Fatalf("%s as %s: %v", p, to, err)
			}
			sameOps(t, p+" as "+to, h, back)
		}
	}
}
