package ladder_test

import (
	"context"
	"fmt"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/weakref"
	"github.com/histcheck/histcheck/model"
)

// Histories with versions, which package weakref reads by the one
// definition every criterion follows (model.UsesVersions): a read with
// version v read the write of its key with version v and must return that
// write's value (a read whose version no write carries read the initial
// value, and must return it), and the writes of a key are ordered by
// version (vo) in every serialisation, view and arbitration.

// corruptVersion alters versions with chance 1/2: a third of the time every
// key's writes are ordered anew (reorderVersions), otherwise one read gets
// another version (one of its key's, 0, or one nobody wrote) or two writes
// of a key swap theirs; writes' versions stay unique per key.
func corruptVersion(rng *rand.Rand, h *small) {
	if len(h.ops) == 0 || rng.Intn(2) == 0 {
		return
	}
	if rng.Intn(3) == 0 {
		reorderVersions(rng, h)
		return
	}
	i := rng.Intn(len(h.ops))
	o := &h.ops[i]
	if !o.write {
		vs := []int{0, 42}
		for _, w := range h.ops {
			if w.write && w.key == o.key {
				vs = append(vs, w.ver)
			}
		}
		o.ver = vs[rng.Intn(len(vs))]
		return
	}
	for j := range h.ops {
		if w := &h.ops[j]; j != i && w.write && w.key == o.key {
			o.ver, w.ver = w.ver, o.ver
			return
		}
	}
}

// reorderVersions deals each key's write versions out anew, and each read
// of a write follows its write: versions still agree with the values, but
// order the writes at random rather than as the simulated store did.
func reorderVersions(rng *rand.Rand, h *small) {
	for k := 0; k < h.keys; k++ {
		var ws []int
		for i, o := range h.ops {
			if o.write && o.key == k {
				ws = append(ws, i)
			}
		}
		perm := rng.Perm(len(ws))
		renum := map[int]int{}
		for j, i := range ws {
			renum[h.ops[i].ver] = h.ops[ws[perm[j]]].ver
		}
		for i := range h.ops {
			if o := &h.ops[i]; o.key == k {
				if v, ok := renum[o.ver]; ok && o.ver != 0 {
					o.ver = v
				}
			}
		}
	}
}

// TestVersionedCriteriaAgainstBruteForce compares every criterion
// (linearizability, sequential consistency, the causal criteria, PRAM and
// the session guarantees), computed through the
// suite as the command line does, with the brute force of package weakref
// on random differentiated histories whose operations all carry versions,
// a third of them altered so that versions disagree with the values or
// their order.
func TestVersionedCriteriaAgainstBruteForce(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 1500
	}
	models := map[string]suite.Model{}
	for _, m := range suite.Builtin() {
		models[m.Info.Name] = m
	}
	criteria := checker.AllCriteria
	rng := rand.New(rand.NewSource(17))
	counts := tally{}
	altered := 0
	for i := 0; i < n; i++ {
		sh := gen(rng)
		before := append([]rop(nil), sh.ops...)
		corruptVersion(rng, &sh)
		for j := range before {
			if before[j].ver != sh.ops[j].ver {
				altered++
				break
			}
		}
		register := sh.keys == 1 && i%2 == 0
		h := sh.history(true, register)
		if !model.UsesVersions(h) {
			t.Fatalf("history %d does not use versions\n%s", i, describe(h))
		}
		m := models["kv"]
		if register {
			m = models["register"]
		}
		for _, c := range criteria {
			want := versionedAgree(t, m, h, c, fmt.Sprintf("history %d", i))
			counts.add(c, want)
		}
	}
	t.Logf("%d histories, %d with an altered version", n, altered)
	if altered < n/5 {
		t.Errorf("only %d of %d histories have an altered version", altered, n)
	}
	counts.balanced(t, criteria, n/20)
}

// versionedAgree fails the test unless the suite's verdict on criterion c
// is the brute force's, which it returns.
func versionedAgree(t *testing.T, m suite.Model, h *history.History, c, what string) bool {
	t.Helper()
	res, err := suite.Run(context.Background(), m, h, c, model.Options{Init: history.IntValue(0)}, suite.Options{Workers: 1, Verify: true})
	if err != nil {
		t.Fatalf("%s, %s: %v\n%s", what, c, err, describe(h))
	}
	want, err := weakref.Decide(h, history.IntValue(0), c)
	if err != nil {
		t.Fatalf("%s, %s: brute force: %v\n%s", what, c, err, describe(h))
	}
	if res.Valid != verdict(want) {
		t.Fatalf("%s, %s: histcheck says %s, the brute force %v\n%s", what, c, res.Valid, want, describe(h))
	}
	return want
}

// versionedFiles lists, per history in testdata/histories/versions, the
// criteria it violates (all others hold), as the README there says.
var versionedFiles = map[string][]string{
	"older-version-after-newer.json": {checker.Linearizable, checker.Sequential, checker.CausalMemory,
		checker.CausalConvergence, checker.Causal, checker.PRAM, checker.MonotonicReads},
	"newer-version-after-older.json": nil,
	"initial-read-with-unknown-version.json": {checker.Linearizable, checker.Sequential, checker.CausalMemory,
		checker.CausalConvergence, checker.Causal, checker.PRAM, checker.ReadYourWrites},
	"value-differs-from-version.json": checker.AllCriteria,
}

// TestVersionedHistories checks the named histories with versions through
// the suite, as histcheck check -c all does: every verdict as expected, and
// a ladder without contradiction.
func TestVersionedHistories(t *testing.T) {
	files, err := filepath.Glob("../../testdata/histories/versions/*.json")
	if err != nil || len(files) != len(versionedFiles) {
		t.Fatalf("want %d files, found %d (%v)", len(versionedFiles), len(files), err)
	}
	m, err := suite.Lookup(suite.Builtin(), "register")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			h, err := format.ReadFile(f, "")
			if err != nil {
				t.Fatal(err)
			}
			if !model.UsesVersions(h) {
				t.Fatal("the history does not use versions")
			}
			violated := map[string]bool{}
			for _, c := range versionedFiles[name] {
				violated[c] = true
			}
			results := map[string]checker.Result{}
			for _, c := range checker.AllCriteria {
				res, err := suite.Run(context.Background(), m, h, c, model.Options{Init: history.IntValue(0)}, suite.Options{Verify: true})
				if err != nil {
					t.Fatalf("%s: %v", c, err)
				}
				if res.Valid != verdict(!violated[c]) {
					t.Errorf("%s: histcheck says %s, expected %v", c, res.Valid, !violated[c])
				}
				results[c] = res
			}
			for _, r := range ladder.Build(results).Table {
				if r.Note != "" {
					t.Errorf("ladder: %s: %s", r.Criterion, r.Note)
				}
			}
		})
	}
}
