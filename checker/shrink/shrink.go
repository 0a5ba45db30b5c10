// Package shrink reduces a history that violates a consistency criterion to
// a small core that still violates it. The core is data: which operations
// it keeps as recorded, which it weakens, and the checker's violation in
// the reduced history; package report tells it in words.
//
// Deleting operations is unsound: deleting a write can leave a read that
// returns a value nobody wrote, a violation the original did not have. So
// operations outside the core are not deleted but weakened: a write (or any
// operation that changes state) gets unknown outcome, as if its client never
// heard back, so that it may have taken effect at any time after its call,
// or never; and a read is dropped, since a read with unknown result says
// nothing. A weakened operation keeps its client, call and every field a
// model reads (lock holders are told apart by client, fencing by token).
// Weakening maps a history that satisfies the criterion to one that still
// does, so a weakened history that fails proves the original fails; and
// since weakening more operations can only help a history pass, a core from
// which no single operation can be weakened is also minimal: no smaller set
// of operations kept as recorded shows a violation.
//
// A core is therefore a history on its own: its operations as recorded and
// the weakened ones with unknown outcome (Core.Standalone). Minimize checks
// that history once more before it returns, so a core it gives fails alone.
package shrink

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Checker decides one criterion on a history; Minimize calls it many times,
// mostly on small histories. Its Result.Criterion tells Minimize which cuts
// are sound (see Minimize). The history is the checker's only until it
// returns: Minimize builds the next one in the same memory, so a checker
// must not keep it (nor its operations) in anything that outlives the
// call.
type Checker func(ctx context.Context, h *history.History) (checker.Result, error)

// Core is a reduced history that still violates the criterion, and how its
// operations relate to the original's. Positions are in the original
// History.Ops unless said otherwise.
type Core struct {
	// Ops are the core's essential operations, kept as recorded (an
	// operation still running where the history was cut is kept with
	// unknown outcome). Weakening any one of them makes the violation go
	// away when Minimal is set.
	Ops []int
	// Weakened are operations kept only in weakened form, with unknown
	// outcome: the violation needs them to exist (a read in the core
	// returns their value), but not when they took effect, nor whether
	// they finished.
	Weakened []int
	// History is the reduced history: the core's operations and the
	// weakened ones. Everything else was dropped.
	History *history.History
	// Origin[i] is the position in the original of History.Ops[i].
	Origin []int
	// Violation is what the checker reported on History (its positions are
	// in History.Ops).
	Violation checker.Violation
	// Criterion is the criterion the checker decided.
	Criterion string
	// Minimal is set when 1-minimality was established: weakening any one
	// operation of Ops in History makes the checker accept it.
	Minimal bool
	// Checks counts the checker calls it took.
	Checks int
	// Model is the Info of the model the history was shrunk for: which
	// operations read, write and compare-and-set. Reports read the core
	// by it; the zero Info means the cas-register's.
	Model model.Info
}

// Size is the number of operations in the reduced history.
func (c Core) Size() int { return len(c.Ops) + len(c.Weakened) }

// Standalone cuts the core out of h, the history it was found in, as a
// history of its own: the core's operations as recorded and the weakened
// ones with unknown outcome (recorded call, no return), in h's order, read
// as an input would be. This is what a core claims: that this history
// violates the criterion. It is at least as strict as Core.History, which
// may keep apart logical processes that reading merges, weakens a cas to
// an optional write, and gives operations the cut left running unknown
// outcome.
func (c Core) Standalone(h *history.History) (*history.History, error) {
	weak := make(map[int]bool, len(c.Weakened))
	for _, p := range c.Weakened {
		weak[p] = true
	}
	pos := append(append([]int(nil), c.Ops...), c.Weakened...)
	sort.Ints(pos)
	ops := make([]history.Op, 0, len(pos))
	for k, p := range pos {
		if p < 0 || p >= len(h.Ops) || k > 0 && p == pos[k-1] {
			continue
		}
		o := h.Ops[p]
		if weak[p] {
			o.Status, o.Return = history.Info, history.Infinity
		}
		ops = append(ops, o)
	}
	out, err := h.Derive(ops)
	if err != nil {
		return nil, fmt.Errorf("shrink: the core is not a valid history: %w", err)
	}
	out.Meta, out.Warnings = h.Meta, nil
	return out, nil
}

// ErrCoreAccepted is returned by Minimize when the core it found passes
// when checked on its own (see Core.Standalone). That is a bug in the
// shrinker or the checker; no such core is ever returned.
var ErrCoreAccepted = errors.New("shrink: the core does not violate the criterion when checked on its own")

// ErrNotViolating is returned by Minimize for a history the checker
// accepts, or cannot decide.
var ErrNotViolating = errors.New("shrink: the history does not violate the criterion")

// Minimize shrinks a history the checker rejects to a 1-minimal core.
//
// First it cuts: operations that failed and reads of unknown outcome are
// dropped (they change no verdict). For a keyed model and linearizability
// or sequential consistency it keeps only the key of the violation the
// check found (see keyCut): the core is of the key the report names. For linearizability of reads, writes and
// compare-and-sets it then grows a core from the operation the check could
// not place (see grow.go): a small history that keeps a few operations as
// recorded and is a relaxation of the original; once one fails, each of
// its operations is weakened in turn while the checker still rejects it,
// and the result is 1-minimal. Otherwise, when the checker decides
// linearizability, the history is truncated after the earliest return at
// which it already fails (operations still running become of unknown
// outcome, later ones are dropped). Sequential consistency is not local
// and its order is not tied to time, so it is not truncated. Then delta
// debugging (Zeller and Hildebrandt's ddmin) weakens as many operations as
// it can while the checker still rejects the history, weakened writes
// whose value nothing observes (and those beyond what the observers need)
// are dropped, and a last pass confirms that weakening any single
// operation of the core makes the checker accept it.
//
// The work is bounded by ctx: when it ends, the best core found so far is
// returned with Minimal unset. A verdict of Unknown counts as "accepts", so
// the core is always one the checker rejected. Last, the core cut out on
// its own (Core.Standalone) is checked once more. The error is
// ErrNotViolating when the checker does not reject h, ErrCoreAccepted when
// it accepts the core on its own, or the checker's own.
func Minimize(ctx context.Context, h *history.History, check Checker, keyed bool) (Core, error) {
	return MinimizeFor(ctx, h, registerInfo(keyed), check)
}

// MinimizeFor is Minimize for a history of model m: m says which
// operations are reads (dropped when weakened or of unknown outcome),
// writes and compare-and-sets (whose values tell which weakened ones
// nothing observes), and m.Keyed whether the history splits by key.
func MinimizeFor(ctx context.Context, h *history.History, m model.Info, check Checker) (Core, error) {
	return minimize(ctx, h, m, check, nil)
}

// MinimizeFrom is MinimizeFor for a history the checker already rejected:
// known is its result on h itself, with h's positions. Shrinking starts
// from it instead of checking the whole history a second time (dropping
// failed operations and reads of unknown outcome changes no verdict, so
// the violation stands in the cut history too). A known result that is
// not a violation, or whose violation names an operation the cut drops,
// is checked again as MinimizeFor does.
func MinimizeFrom(ctx context.Context, h *history.History, m model.Info, check Checker, known checker.Result) (Core, error) {
	return minimize(ctx, h, m, check, &known)
}

// minimize is MinimizeFor, starting from known when it is not nil.
func minimize(ctx context.Context, h *history.History, m model.Info, check Checker, known *checker.Result) (Core, error) {
	if h == nil {
		return Core{}, errors.New("shrink: no history")
	}
	keyed := m.Keyed
	s := &shrinker{ctx: ctx, h: h, m: m, check: check, cache: make(map[string]bool), pinned: -1}
	s.forms = make([]form, len(h.Ops))
	for i := range h.Ops {
		o := &h.Ops[i]
		switch {
		case o.Status == history.Fail:
			s.forms[i] = dropped
		case o.Status == history.Info && isRead(m, o):
			s.forms[i] = dropped
		default:
			s.forms[i] = kept
		}
	}
	res, fails, firstCheck, err := s.first(known)
	if err != nil {
		return Core{}, err
	}
	s.budget = max(minCheckBudget, checkBudgetFactor*firstCheck)
	if !fails {
		if res.Valid == checker.Unknown && res.Reason != "" {
			return Core{}, fmt.Errorf("%w (%s)", ErrNotViolating, res.Reason)
		}
		return Core{}, ErrNotViolating
	}
	s.last = res
	s.criterion = res.Criterion
	s.standIn = standIn(h, s.criterion)
	if keyed && (s.criterion == checker.Linearizable || s.criterion == checker.Sequential) {
		if res, err = s.keyCut(res); err != nil {
			return Core{}, err
		}
	}
	grown, err := s.grow(res, max(minCheckBudget, growFactor*firstCheck))
	if err != nil {
		return Core{}, err
	}
	if s.criterion == checker.Linearizable && grown == nil {
		if err := s.prefixCut(); err != nil {
			return Core{}, err
		}
	}
	minimal, err := s.reduce(grown)
	if err != nil {
		return Core{}, err
	}
	c, err := s.core(minimal)
	if err != nil {
		return Core{}, err
	}
	if err := s.recheck(c); err != nil {
		return Core{}, err
	}
	c.Checks = s.checks
	return c, nil
}

// reduce weakens what it can of the current forms and reports whether the
// result was shown 1-minimal: a grown core (grown lists its operations,
// most promising first) in one pass over its operations, least promising
// first, anything else by ddmin; then dropUnobserved, and confirm when the
// pass did not show minimality.
func (s *shrinker) reduce(grown []int) (bool, error) {
	shown := false
	if grown != nil {
		var err error
		if shown, err = s.whittle(grown); err != nil {
			return false, err
		}
	} else if err := s.ddmin(); err != nil {
		return false, err
	}
	if err := s.dropUnobserved(); err != nil {
		return false, err
	}
	if shown {
		return true, nil
	}
	return s.confirm()
}

// first is the checker's result on the current forms, whether it rejects
// them, and how long finding that took: known's, moved to the positions of
// the forms' history, when it can be; else a check.
func (s *shrinker) first(known *checker.Result) (checker.Result, bool, time.Duration, error) {
	if known != nil {
		if res, ok := s.fromKnown(*known); ok {
			s.remember(s.forms, true)
			return res, true, known.Elapsed, nil
		}
	}
	start := time.Now()
	res, fails, err := s.test(s.forms)
	return res, fails, time.Since(start), err
}

// fromKnown renames the positions of known, a result on s.h, by those of
// the history the current forms describe. It reports false when known is
// no violation or names an operation the forms drop.
func (s *shrinker) fromKnown(known checker.Result) (checker.Result, bool) {
	if known.Valid != checker.False || known.Criterion == "" || len(known.Violations) == 0 {
		return checker.Result{}, false
	}
	return s.moveResult(known, nil, s.forms, false)
}

// moveResult renames the positions of res, a result on a history whose
// operation at position p is s.h's at origin[p] (nil: s.h itself), by
// those of the history forms describe. It reports false when res names an
// operation the forms drop; with loose, only when the violations' Ops or
// Prefix do, and other positions the forms drop become checker.None
// (checkers leave the facts their pattern does not use at zero, which
// names the first operation of the history they checked). The witness and
// the dropped operations are left out: shrinking reads only the
// violations.
func (s *shrinker) moveResult(res checker.Result, origin []int, forms []form, loose bool) (checker.Result, bool) {
	to := s.originOf(forms)
	ok := true
	rename := func(x int) int {
		if origin != nil {
			x = index(origin, x)
		}
		if y := positionOf(to, x); y >= 0 || !loose {
			ok = ok && y >= 0
			return y
		}
		return checker.None
	}
	out := res
	out.Witness, out.Dropped = nil, nil
	out.Violations = make([]checker.Violation, len(res.Violations))
	for i, v := range res.Violations {
		out.Violations[i] = v.MapOps(rename)
		for _, ps := range [][]int{out.Violations[i].Ops, out.Violations[i].Prefix} {
			ok = ok && !slices.Contains(ps, checker.None)
		}
	}
	return out, ok
}

// index is xs[i], or -1 when i is out of range.
func index(xs []int, i int) int {
	if i < 0 || i >= len(xs) {
		return -1
	}
	return xs[i]
}

// positionOf is the position of original position i in origin, an
// origin as originOf gives it (ascending), or -1 when the history it
// describes does not keep i.
func positionOf(origin []int, i int) int {
	if p, found := slices.BinarySearch(origin, i); found {
		return p
	}
	return -1
}

// originOf is the origin buildFor returns for forms: the position in s.h
// of each operation of the history forms describe, which keeps every
// operation not dropped in order. The last one asked for is remembered, since growing and cutting ask for the same forms
// several times.
func (s *shrinker) originOf(forms []form) []int {
	if s.origin == nil || !slices.Equal(forms, s.originForms) {
		if cap(s.origin) < len(forms) {
			s.origin = make([]int, 0, len(forms)) // once, not by doubling
		}
		s.origin, s.originForms = s.origin[:0], append(s.originForms[:0], forms...)
		for i, f := range forms {
			if f != dropped {
				s.origin = append(s.origin, i)
			}
		}
	}
	return s.origin
}

// recheck checks the core cut out on its own (Core.Standalone) and fails
// with ErrCoreAccepted if the checker accepts it. The search may have used
// up ctx, so the check gets a budget of its own, recheckBudget; the core is
// small and the check quick. A verdict of Unknown keeps the core, which
// Core.History, no stricter, already showed failing.
func (s *shrinker) recheck(c Core) error {
	alone, err := c.Standalone(s.h)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), recheckBudget)
	defer cancel()
	s.checks++
	res, err := s.check(ctx, alone)
	if err != nil {
		return fmt.Errorf("shrink: checking the core on its own: %w", err)
	}
	if res.Valid == checker.True {
		return ErrCoreAccepted
	}
	return nil
}

// recheckBudget bounds the check of a core on its own (see recheck).
const recheckBudget = time.Second

// shrinker holds the state of one Minimize: the current forms always
// describe a history the checker rejected.
type shrinker struct {
	ctx       context.Context
	h         *history.History
	m         model.Info // says which operations read, write and cas
	check     Checker
	criterion string
	forms     []form
	last      checker.Result // the checker's result on the current forms
	cache     map[string]bool
	checks    int
	// budget bounds each check while shrinking (zero: only ctx bounds it);
	// see minCheckBudget.
	budget time.Duration
	// origin and originForms remember the last originOf.
	origin      []int
	originForms []form
	// key is the buffer formsKey packs forms into.
	key []byte
	// scratch holds the operations of the history the last test built.
	scratch []history.Op
	// standIn is set when an earlier-called weakened write can stand in for
	// a later one of the same value (see standIn).
	standIn bool
	// pinned is the operation every core of the current forms keeps, or
	// -1: the one the prefix cut ends at (see prefixCut). ddmin and
	// confirm do not try weakening it.
	pinned int
}

// standIn reports whether, in histories cut from h and checked for
// criterion, a weakened write can stand in for one of the same value
// called later: for linearizability, where only real time orders it, when
// no client's operations touch (a client's order then is real time's) and
// there are no versions (a write then also follows the version order). For
// sequential consistency a write follows its client's earlier operations,
// whenever it was called.
func standIn(h *history.History, criterion string) bool {
	return criterion == checker.Linearizable && !model.UsesVersions(h) && !h.Touching()
}

// A reduced history can be far harder to check than the original: weakened
// operations may take effect at any time, so many of them pending at once
// make the search exponential. Each check while shrinking therefore gets a
// budget, checkBudgetFactor times what the whole history took but at least
// minCheckBudget; a check that runs out counts as "accepts", so the core
// stays sound and only perhaps larger. The final confirmation of
// 1-minimality runs on the small core with no budget but ctx's.
const (
	minCheckBudget    = 250 * time.Millisecond
	checkBudgetFactor = 10
)

// Growing a core (see grow) may take growFactor times what the whole
// history took, but at least minCheckBudget.
const growFactor = 4

// done reports whether the context ended, so that the search stops with
// the best core so far.
func (s *shrinker) done() bool { return s.ctx.Err() != nil }

// test builds the history forms describe and reports whether the checker
// rejects it. Results are cached by forms: ddmin asks again often.
func (s *shrinker) test(forms []form) (checker.Result, bool, error) {
	if f, ok := s.cached(forms); ok && !f {
		return checker.Result{}, false, nil
	}
	// The history is the checker's only during the call (see Checker):
	// the next test builds its own in the same memory.
	hh, _ := buildInto(s.h, s.m, forms, s.scratch)
	defer func() { s.scratch = hh.Ops[:0] }()
	s.checks++
	ctx := s.ctx
	if s.budget > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.budget)
		defer cancel()
	}
	res, err := s.check(ctx, hh)
	if err != nil {
		return res, false, fmt.Errorf("shrink: checking a reduced history: %w", err)
	}
	fails := res.Valid == checker.False
	// An Unknown verdict may only mean the time ran out; do not remember
	// it as an acceptance.
	if res.Valid != checker.Unknown {
		s.remember(forms, fails)
	}
	return res, fails, nil
}

// accept makes forms current if the checker rejects them.
func (s *shrinker) accept(forms []form) (bool, error) {
	res, fails, err := s.test(forms)
	if err != nil || !fails {
		return false, err
	}
	if res.Valid == checker.False {
		s.last = res
	}
	s.forms = forms
	return true, nil
}

// formsKey packs forms into s.key, four to a byte, and returns it: the
// forms span the whole history, and a core's checks ask the cache often.
func (s *shrinker) formsKey(forms []form) []byte {
	b := s.key[:0]
	for i := 0; i < len(forms); i += 4 {
		var x byte
		for k, f := range forms[i:min(i+4, len(forms))] {
			x |= byte(f) << (2 * k)
		}
		b = append(b, x)
	}
	s.key = b
	return b
}

// cached reports what the cache holds for forms: whether the checker
// rejected them, and whether they were checked.
func (s *shrinker) cached(forms []form) (fails, ok bool) {
	fails, ok = s.cache[string(s.formsKey(forms))]
	return fails, ok
}

// remember caches whether the checker rejected forms.
func (s *shrinker) remember(forms []form, fails bool) {
	s.cache[string(s.formsKey(forms))] = fails
}

// keyCut keeps only the key of the violation found, res (with the
// positions of the current forms' history), and returns the violation with
// the positions of the key's history: the core is then one of the key the
// check reported, grown and cut from its violation, and every later check
// is of that key alone. Linearizability is local: the key's operations
// fail on their own with the very violation found, so no check is needed.
// Sequential consistency is not local (a history can fail it although
// every key passes), so the key alone is checked once and kept only if it
// fails; that is sound, since a legal order of the whole history,
// restricted to one key's operations, is a legal order of theirs (the
// keys are independent). When the violation names no key, or its key
// passes alone, the forms and res are left as they are.
func (s *shrinker) keyCut(res checker.Result) (checker.Result, error) {
	keys, groups := checker.Partition(s.h)
	g, ok := s.violationKey(res, keys)
	if !ok || len(keys) < 2 {
		return res, nil
	}
	in := make([]bool, len(s.h.Ops))
	for _, i := range groups[g] {
		in[i] = true
	}
	next := append([]form(nil), s.forms...)
	for i := range next {
		if !in[i] {
			next[i] = dropped
		}
	}
	if s.criterion == checker.Linearizable {
		origin := append([]int(nil), s.originOf(s.forms)...)
		if moved, ok := s.moveResult(res, origin, next, true); ok {
			s.remember(next, true)
			s.forms, s.last = next, moved
			return moved, nil
		}
	}
	r, fails, err := s.test(next)
	if err != nil || !fails {
		return res, err
	}
	s.forms, s.last = next, r
	return r, nil
}

// violationKey returns the index in keys of the key of res's first
// violation: the one it names, else, for linearizability (whose
// violations are all of one key), that of the operation it turns on (the
// first it names). It reports false when there is none.
func (s *shrinker) violationKey(res checker.Result, keys []history.Value) (int, bool) {
	if len(res.Violations) == 0 {
		return 0, false
	}
	v := res.Violations[0]
	ops, ok := s.originals(s.forms, v.Ops)
	for g, k := range keys {
		switch {
		case ok && len(ops) > 0 && k == ops[0].Key && (v.Key == "" && s.criterion == checker.Linearizable || v.Key == k.String()):
			return g, true
		case (!ok || len(ops) == 0) && v.Key != "" && v.Key == k.String():
			return g, true
		}
	}
	return 0, false
}

// truncate returns forms cut at time t: operations called after t are
// dropped and those still running at t get unknown outcome. If a history
// is linearizable, so is every such prefix: an operation's point of effect
// lies in its interval, so the points up to t order the prefix legally.
func (s *shrinker) truncate(forms []form, t int64) []form {
	next := append([]form(nil), forms...)
	for i := range next {
		if next[i] != kept && next[i] != inFlight {
			continue
		}
		o := &s.h.Ops[i]
		switch {
		case o.Call > t:
			next[i] = dropped
		case o.Return > t:
			next[i] = inFlight
		}
	}
	return next
}

// prefixCut truncates the history after the earliest return at which it
// already fails. A shorter prefix is a truncation of a longer one, so
// failing is monotone in the cut time and a binary search finds it; the
// return of the operation the checker could not place is tried first.
//
// When one operation alone returns at the cut and the cut at the return
// before it was accepted, that operation is pinned: every core of the cut
// history keeps it. Weakening it leaves the accepted shorter prefix and
// operations called after each completed one returned, which may all
// take effect at the end, so the weakened history is accepted too; and
// weakening more keeps it so.
func (s *shrinker) prefixCut() error {
	var times []int64
	for i := range s.h.Ops {
		if s.forms[i] == kept && s.h.Ops[i].Status == history.OK {
			times = append(times, s.h.Ops[i].Return)
		}
	}
	sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
	times = dedup(times)
	forms := s.forms
	// lo is the largest index whose cut is known to pass (or -1), hi the
	// smallest known to fail, where len(times) stands for the uncut history.
	lo, hi := -1, len(times)
	loAccepted := true // lo's cut was accepted, not left undecided
	try := func(k int) error {
		next := s.truncate(forms, times[k])
		r, fails, err := s.test(next)
		if err != nil {
			return err
		}
		if fails {
			hi, s.forms, s.last = k, next, r
		} else {
			lo, loAccepted = k, s.accepted(next)
		}
		return nil
	}
	if t, ok := s.failingReturn(s.last, forms); ok {
		if k := sort.Search(len(times), func(i int) bool { return times[i] >= t }); k < len(times) {
			if err := try(k); err != nil {
				return err
			}
		}
	}
	for hi-lo > 1 && !s.done() {
		if err := try((lo + hi) / 2); err != nil {
			return err
		}
	}
	if hi-lo == 1 && hi < len(times) && loAccepted {
		s.pinned = s.onlyReturn(times[hi])
	}
	return nil
}

// accepted reports whether the checker accepted forms (a verdict of
// true, not one left undecided).
func (s *shrinker) accepted(forms []form) bool {
	fails, ok := s.cached(forms)
	return ok && !fails
}

// onlyReturn is the kept operation that completed at time t, or -1 when
// none or several did.
func (s *shrinker) onlyReturn(t int64) int {
	found := -1
	for i, f := range s.forms {
		if f == kept && s.h.Ops[i].Status == history.OK && s.h.Ops[i].Return == t {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// failingReturn is the return time of the completed operation the checker
// could not place in the history forms describe, the natural place to cut.
func (s *shrinker) failingReturn(res checker.Result, forms []form) (int64, bool) {
	if len(res.Violations) == 0 || len(res.Violations[0].Ops) == 0 {
		return 0, false
	}
	ops, ok := s.originals(forms, res.Violations[0].Ops[:1])
	if !ok || ops[0].Status != history.OK {
		return 0, false
	}
	return ops[0].Return, true
}

// originals returns the operations of the original history at positions
// of the history forms describe (where the checker reported them), and
// false if a position is out of range.
func (s *shrinker) originals(forms []form, positions ...[]int) ([]*history.Op, bool) {
	origin := s.originOf(forms)
	var ops []*history.Op
	for _, ps := range positions {
		for _, p := range ps {
			if p < 0 || p >= len(origin) {
				return nil, false
			}
			ops = append(ops, &s.h.Ops[origin[p]])
		}
	}
	return ops, true
}

func dedup(xs []int64) []int64 {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// candidates are the operations ddmin may weaken: those still kept, but
// the pinned one.
func (s *shrinker) candidates() []int {
	var c []int
	for i, f := range s.forms {
		if (f == kept || f == inFlight) && i != s.pinned {
			c = append(c, i)
		}
	}
	return c
}

// keepOnly returns the current forms with every candidate outside keep
// weakened.
func (s *shrinker) keepOnly(cands, keep []int) []form {
	next := append([]form(nil), s.forms...)
	for _, i := range cands {
		next[i] = weakForm(s.m, &s.h.Ops[i])
	}
	for _, i := range keep {
		next[i] = s.forms[i]
	}
	return next
}

// ddmin is Zeller and Hildebrandt's minimising delta debugging over the
// kept operations, with weakening as removal and "the checker rejects it"
// as the test. It ends with every single weakening tried on the result.
func (s *shrinker) ddmin() error {
	cur := s.candidates()
	n := 2
	for len(cur) >= 2 && !s.done() {
		chunks := split(cur, n)
		reduced := false
		for _, c := range chunks {
			if s.done() {
				return nil
			}
			ok, err := s.accept(s.keepOnly(cur, c))
			if err != nil {
				return err
			}
			if ok {
				cur, n, reduced = c, 2, true
				break
			}
		}
		if !reduced && n > 2 {
			for k := range chunks {
				if s.done() {
					return nil
				}
				comp := complement(chunks, k)
				ok, err := s.accept(s.keepOnly(cur, comp))
				if err != nil {
					return err
				}
				if ok {
					cur, n, reduced = comp, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(cur) {
				break
			}
			n = min(2*n, len(cur))
		}
	}
	return nil
}

// split cuts xs into n chunks of nearly equal size, in order.
func split(xs []int, n int) [][]int {
	out := make([][]int, 0, n)
	start := 0
	for k := 0; k < n; k++ {
		end := start + (len(xs)-start)/(n-k)
		out = append(out, xs[start:end])
		start = end
	}
	return out
}

func complement(chunks [][]int, skip int) []int {
	var out []int
	for k, c := range chunks {
		if k != skip {
			out = append(out, c...)
		}
	}
	return out
}

// registerOp reports whether dropUnobserved understands o's value: with
// only reads, writes and cas, a weakened write whose value no read returns
// and no cas expects can be deleted without changing any verdict.
func registerOp(m model.Info, o *history.Op) bool {
	switch m.ClassOf(o.F) {
	case model.ReadOp, model.WriteOp, model.CASOp:
		return true
	}
	return false
}

type keyed struct{ key, val history.Value }

// dropUnobserved deletes weakened writes and cas whose value (per key)
// no operation kept observes (a completed read that returns it, a cas that
// expects it), and, where they can stand in for each other (standIn), of
// those whose value k kept operations observe, all but the k called first. While a register holds a value nobody observes only
// operations blind to it can take effect, so removing the optional
// operation that stored it keeps every order legal; and of the optional
// writes of an observed value an order needs at most one before each
// observer, which the earliest called can stand in for (see grow.go). The
// deletions change no verdict. It applies only to histories of reads,
// writes and cas without fencing tokens, and is kept only if the checker
// still rejects the result.
func (s *shrinker) dropUnobserved() error {
	if s.done() {
		return nil
	}
	next, ok := s.surplus(s.forms)
	if !ok || slices.Equal(next, s.forms) {
		return nil
	}
	_, err := s.accept(next)
	return err
}

// surplus returns forms without the weakened writes and cas that
// dropUnobserved deletes, and false when the history is not one of reads,
// writes and cas without fencing tokens.
func (s *shrinker) surplus(forms []form) ([]form, bool) {
	needs := make(map[keyed]int)
	for i, f := range forms {
		if f == dropped {
			continue
		}
		o := &s.h.Ops[i]
		if !registerOp(s.m, o) || !o.Token.IsNone() {
			return nil, false
		}
		if f == weak {
			// A weakened cas is an optional write of its new value: it
			// compares with nothing.
			continue
		}
		if v, ok := s.m.ReadResult(o); ok {
			needs[keyed{o.Key, v}]++
		}
		if v, ok := s.m.Expected(o); ok {
			needs[keyed{o.Key, v}]++
		}
	}
	// The history is in call order: the first weakened writes of a value
	// met are the earliest called.
	next := append([]form(nil), forms...)
	for i, f := range forms {
		if f != weak {
			continue
		}
		o := &s.h.Ops[i]
		v, ok := s.m.Stored(o)
		if !ok {
			continue
		}
		if needs[keyed{o.Key, v}] == 0 {
			next[i] = dropped
			continue
		}
		if s.standIn {
			needs[keyed{o.Key, v}]--
		}
	}
	return next, true
}

// confirm establishes 1-minimality on the reduced history itself: weakening
// any one core operation must make the checker accept it. An operation
// whose weakening still fails is weakened for good and the pass repeats, so
// the result is 1-minimal even if ddmin was cut short by an Unknown verdict.
func (s *shrinker) confirm() (bool, error) {
	for !s.done() {
		hh, origin := buildFor(s.h, s.m, s.forms)
		allPass := true
		weakened := false
		for j, i := range origin {
			if s.forms[i] != kept && s.forms[i] != inFlight || i == s.pinned {
				continue
			}
			if s.done() {
				return false, nil
			}
			w := WeakenFor(hh, s.m, []int{j})
			s.checks++
			res, err := s.check(s.ctx, w)
			if err != nil {
				return false, fmt.Errorf("shrink: checking a reduced history: %w", err)
			}
			switch res.Valid {
			case checker.True:
				continue
			case checker.False:
				next := append([]form(nil), s.forms...)
				next[i] = weakForm(s.m, &s.h.Ops[i])
				// res speaks of Weaken's history, not of the one next
				// builds; core asks the checker again.
				s.forms, s.last = next, checker.Result{}
				weakened = true
			default:
				allPass = false
			}
			if weakened {
				break
			}
		}
		if weakened {
			if err := s.dropUnobserved(); err != nil {
				return false, err
			}
			continue
		}
		return allPass, nil
	}
	return false, nil
}

// core packages the current forms.
func (s *shrinker) core(minimal bool) (Core, error) {
	hh, origin := buildFor(s.h, s.m, s.forms)
	c := Core{History: hh, Origin: origin, Criterion: s.criterion, Minimal: minimal, Checks: s.checks, Model: s.m}
	for i, f := range s.forms {
		switch f {
		case kept, inFlight:
			c.Ops = append(c.Ops, i)
		case weak:
			c.Weakened = append(c.Weakened, i)
		}
	}
	if s.last.Valid != checker.False {
		// The current forms were accepted from the cache or never re-run:
		// ask once more for the checker's own account of the core.
		s.checks++
		res, err := s.check(s.ctx, hh)
		if err != nil {
			return Core{}, fmt.Errorf("shrink: checking the core: %w", err)
		}
		s.last = res
		c.Checks = s.checks
	}
	if len(s.last.Violations) > 0 {
		c.Violation = s.last.Violations[0]
	}
	return c, nil
}
