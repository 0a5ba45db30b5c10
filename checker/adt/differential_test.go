package adt

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/adtref"
	"github.com/histcheck/histcheck/model"
)

// diffModels are the models of the differential test: every model the
// brute force decides the weak criteria for (adtref.WeakModels, which
// leaves out the unordered queue).
var diffModels = adtref.WeakModels

// checkFunc runs Check with a model built from opts.
type checkFunc func(opts model.Options, h *history.History, crit string, noSeq bool) (checker.Result, error)

func bindCheck[S comparable](newModel func(model.Options) model.Model[S]) checkFunc {
	return func(opts model.Options, h *history.History, crit string, noSeq bool) (checker.Result, error) {
		return checkOne(newModel(opts), h, crit, noSeq)
	}
}

// checkers are the models of the differential test by name.
var checkers = map[string]checkFunc{
	"register": bindCheck(model.NewRegister), "cas-register": bindCheck(model.NewCASRegister),
	"kv": bindCheck(model.NewKV), "mutex": bindCheck(model.NewMutex), "lock": bindCheck(model.NewLock),
	"fenced-register": bindCheck(model.NewFencedRegister), "set": bindCheck(model.NewSet),
	"fifo-queue": bindCheck(model.NewFIFOQueue), "counter": bindCheck(model.NewCounter),
	"multi-register": bindCheck(model.NewMultiRegister),
}

// checkNamed runs Check with the named model built from opts.
func checkNamed(name string, opts model.Options, h *history.History, crit string, noSeq bool) (checker.Result, error) {
	c, ok := checkers[name]
	if !ok {
		return checker.Result{}, fmt.Errorf("no model %q", name)
	}
	return c(opts, h, crit, noSeq)
}

// checkOne runs Check and verifies a true verdict's witness; a witness
// that does not verify is an error.
func checkOne[S comparable](m model.Model[S], h *history.History, crit string, noSeq bool) (checker.Result, error) {
	res, err := Check(context.Background(), m, h, crit, Options{NoSequentialFirst: noSeq})
	if err != nil || res.Valid != checker.True {
		return res, err
	}
	if verr := VerifyWitness(m, h, crit, res); verr != nil {
		return res, fmt.Errorf("%w: %v", errWitness, verr)
	}
	return res, nil
}

var errWitness = errors.New("the witness does not verify")

// diffTally counts, per model and criterion, the histories compared and
// those Check left undecided.
type diffTally struct {
	compared, undecided, disagree map[string]int
}

func (d diffTally) key(name, crit string) string { return name + " " + crit }

// TestAgreesWithBruteForce is the differential test: on random small
// histories of every model with weak criteria (adtref.Generate: repeated
// values, crashed and failed operations, ties, corrupt answers, cas),
// every weak criterion's verdict from Check, with and without the
// sequential witness first, equals adtref's when decided, every true
// verdict's witness verifies, and undecided verdicts are rare.
func TestAgreesWithBruteForce(t *testing.T) {
	n := 600
	if testing.Short() {
		n = 100
	}
	d := diffTally{compared: map[string]int{}, undecided: map[string]int{}, disagree: map[string]int{}}
	for mi, name := range diffModels {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(2016, uint64(mi)))
			for i := 0; i < n; i++ {
				h, opts, err := adtref.Generate(r, name)
				if err != nil {
					t.Fatalf("generate %s: %v", name, err)
				}
				diffOne(t, d, name, opts, h, i)
			}
		})
	}
	report(t, d)
}

// diffOne compares every criterion on one history.
func diffOne(t *testing.T, d diffTally, name string, opts model.Options, h *history.History, i int) {
	t.Helper()
	engine := map[string]checker.Verdict{}
	defer func() { assertLadder(t, name, h, engine, i) }()
	for _, crit := range Criteria {
		want, err := adtref.DecideNamed(name, opts, h, crit)
		if errors.Is(err, adtref.ErrTooLarge) {
			continue
		}
		if err != nil {
			t.Fatalf("%s history %d %s: brute force: %v", name, i, crit, err)
		}
		for _, noSeq := range []bool{false, true} {
			got, err := checkNamed(name, opts, h, crit, noSeq)
			if errors.Is(err, errWitness) {
				d.disagree[d.key(name, crit)+" witness"]++
				t.Errorf("%s history %d %s (search alone %v): %v\n%s", name, i, crit, noSeq, err, dump(h))
				continue
			}
			if err != nil {
				t.Fatalf("%s history %d %s (search alone %v): %v\n%s", name, i, crit, noSeq, err, dump(h))
			}
			if !noSeq {
				engine[crit] = got.Valid
			}
			k := d.key(name, crit)
			d.compared[k]++
			if got.Valid == checker.Unknown {
				d.undecided[k]++
				continue
			}
			if (got.Valid == checker.True) != want {
				d.disagree[k]++
				if d.disagree[k] <= 2 {
					t.Errorf("%s history %d %s (search alone %v): Check says %s (%s), the brute force %v\n%s",
						name, i, crit, noSeq, got.Valid, got.Reason, want, dump(h))
				}
			}
		}
	}
}

// assertLadder fails when Check's decided verdicts on one history break
// an edge of the ladder: a criterion holds while one it implies does not.
// The brute force's verdicts are held to the edges by adtref's own tests;
// this holds the engine's, which the comparison above sees only one
// criterion at a time. Memory-only edges bind read/write histories only.
func assertLadder(t *testing.T, name string, h *history.History, v map[string]checker.Verdict, i int) {
	t.Helper()
	memory := adtref.MemoryHistory(name, h)
	for _, e := range ladder.Implies() {
		if e.MemoryOnly && !memory {
			continue
		}
		if v[e.Strong] == checker.True && v[e.Weak] == checker.False {
			t.Errorf("%s history %d: Check says %s holds and %s does not, which it implies\n%s", name, i, e.Strong, e.Weak, dump(h))
		}
	}
}

// maxUndecided is the share of verdicts Check may leave undecided for a
// criterion it decides exactly.
const maxUndecided = 0.05

// report logs the counts and fails on disagreements and on too many
// undecided verdicts.
func report(t *testing.T, d diffTally) {
	t.Helper()
	var keys []string
	for k := range d.compared {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var lines []string
	total := 0
	for _, n := range d.disagree {
		total += n
	}
	for _, k := range keys {
		rate := float64(d.undecided[k]) / float64(d.compared[k])
		lines = append(lines, fmt.Sprintf("%s: %d compared, %d undecided (%.1f%%), %d disagree",
			k, d.compared[k], d.undecided[k], 100*rate, d.disagree[k]))
		if rate > maxUndecided {
			t.Errorf("%s: %.1f%% undecided (at most %.0f%%)", k, 100*rate, 100*maxUndecided)
		}
	}
	t.Logf("differential counts:\n%s", strings.Join(lines, "\n"))
	if total > 0 {
		t.Errorf("%d verdicts disagree with the brute force", total)
	}
}
