package ladder_test

import (
	"context"
	"math/rand"
	"path/filepath"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Brute force with versions, from the one definition every criterion
// follows (model.UsesVersions): a read with version v read the write of its
// key with version v and must return that write's value (a read whose
// version no write carries read the initial value, and must return it),
// and the writes of a key are ordered by version (vo) in every
// serialisation, view and arbitration.

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

// versionRF maps each read to the write it read by version, as the
// definition says, and reports whether a read's value differs from the
// value of its version's write (a history on which the session checkers,
// which map reads by version alone, read other facts).
func versionRF(h *small) (mismatch bool) {
	for i := range h.ops {
		o := &h.ops[i]
		if o.write {
			o.rf = -1
			continue
		}
		w := -1
		for j, x := range h.ops {
			if x.write && x.key == o.key && x.ver == o.ver {
				w = j
			}
		}
		switch {
		case w >= 0 && h.ops[w].val == o.val:
			o.rf = w
		case w >= 0:
			o.rf, mismatch = -2, true
		case o.val == 0:
			o.rf = -1
		default:
			o.rf = -2
		}
	}
	return mismatch
}

// vo reports whether a and b are writes of one key with a's version older.
func (h *small) vo(a, b int) bool {
	x, y := &h.ops[a], &h.ops[b]
	return x.write && y.write && x.key == y.key && x.ver < y.ver
}

// refVersioned decides a criterion with versions by brute force: the
// definitions of refLinearizable, refSequential and refCausal with vo
// added to every order they serialise by.
func (h *small) refVersioned(crit string) bool {
	all := uint32(1)<<len(h.ops) - 1
	switch crit {
	case checker.Linearizable:
		return h.serializable(all, func(a, b int) bool { return h.ops[a].ret < h.ops[b].call || h.vo(a, b) }, all)
	case checker.Sequential:
		return h.serializable(all, func(a, b int) bool { return h.po(a, b) || h.vo(a, b) }, all)
	}
	c, ok := h.co()
	if !ok || h.thinAir() {
		return false
	}
	n := len(h.ops)
	past := func(o int) uint32 {
		var m uint32
		for a := 0; a < n; a++ {
			if h.ops[a].write && c[a][o] {
				m |= 1 << a
			}
		}
		return m
	}
	prec := func(a, b int) bool { return c[a][b] || h.vo(a, b) }
	switch crit {
	case checker.Causal:
		// Every operation's causal past serialises respecting co and vo,
		// with the operation itself legal (a write always is).
		for o := 0; o < n; o++ {
			check := uint32(1) << o
			if h.ops[o].write {
				check = 0
			}
			if !h.serializable(past(o)|1<<o, prec, check) {
				return false
			}
		}
		return true
	case checker.CausalMemory:
		for o := 0; o < n; o++ {
			var reads uint32
			for r := 0; r < n; r++ {
				if !h.ops[r].write && (r == o || h.po(r, o)) {
					reads |= 1 << r
				}
			}
			if !h.serializable(past(o)|1<<o|reads, prec, reads) {
				return false
			}
		}
		return true
	case checker.CausalConvergence:
		var ws []int
		for i, o := range h.ops {
			if o.write {
				ws = append(ws, i)
			}
		}
		return permute(ws, func(arb []int) bool {
			pos := make([]int, n)
			for i, w := range arb {
				pos[w] = i
			}
			for i := range arb {
				for j := i + 1; j < len(arb); j++ {
					if prec(arb[j], arb[i]) {
						return false
					}
				}
			}
			for r := 0; r < n; r++ {
				o := &h.ops[r]
				if o.write {
					continue
				}
				best := -1
				for _, w := range arb {
					if h.ops[w].key == o.key && c[w][r] && (best < 0 || pos[w] > pos[best]) {
						best = w
					}
				}
				if best != o.rf {
					return false
				}
			}
			return true
		})
	}
	panic(crit)
}

// TestVersionedCriteriaAgainstBruteForce compares linearizability,
// sequential consistency and the causal criteria, computed through the
// suite as the command line does, with the brute force above on random
// differentiated histories whose operations all carry versions, a third of
// them altered so that versions disagree with the values or their order.
func TestVersionedCriteriaAgainstBruteForce(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 1500
	}
	models := map[string]suite.Model{}
	for _, m := range suite.Builtin() {
		models[m.Info.Name] = m
	}
	criteria := []string{checker.Linearizable, checker.Sequential, checker.Causal, checker.CausalMemory, checker.CausalConvergence}
	mopts := model.Options{Init: history.IntValue(0)}
	rng := rand.New(rand.NewSource(17))
	counts := map[string][2]int{}
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
		versionRF(&sh)
		register := sh.keys == 1 && i%2 == 0
		h := sh.history(true, register)
		if !model.UsesVersions(h) {
			t.Fatalf("history %d does not use versions\n%s", i, sh.String())
		}
		m := models["kv"]
		if register {
			m = models["register"]
		}
		for _, c := range criteria {
			res, err := suite.Run(context.Background(), m, h, c, mopts, suite.Options{Workers: 1, Verify: true})
			if err != nil {
				t.Fatalf("history %d, %s: %v\n%s", i, c, err, describe(h))
			}
			want := checker.False
			if sh.refVersioned(c) {
				want = checker.True
			}
			if res.Valid != want {
				t.Fatalf("history %d, %s: histcheck says %s, the brute force %s\n%s", i, c, res.Valid, want, describe(h))
			}
			k := counts[c]
			if want == checker.True {
				k[0]++
			} else {
				k[1]++
			}
			counts[c] = k
		}
	}
	t.Logf("%d histories, %d with an altered version", n, altered)
	if altered < n/5 {
		t.Errorf("only %d of %d histories have an altered version", altered, n)
	}
	for _, c := range criteria {
		k := counts[c]
		t.Logf("%-20s %5d true %5d false", c, k[0], k[1])
		if k[0] < n/20 || k[1] < n/20 {
			t.Errorf("%s: the random histories are unbalanced (%d true, %d false)", c, k[0], k[1])
		}
	}
}

// versionedFiles lists, per history in testdata/histories/versions, the
// criteria it violates (all others hold), as the README there says.
var versionedFiles = map[string][]string{
	"older-version-after-newer.json": {checker.Linearizable, checker.Sequential, checker.CausalMemory,
		checker.CausalConvergence, checker.Causal, checker.PRAM, checker.MonotonicReads},
	"newer-version-after-older.json":  nil,
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
