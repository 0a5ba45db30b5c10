// Package weakref decides the weak consistency criteria of small read/write
// histories by brute force, straight from their published definitions. It
// is the reference the polynomial checkers of packages causal and session
// are tested against, and it shares no code with them.
//
// An execution is what the history says happened: failed operations and
// reads of unknown outcome are left out (they took no effect and observed
// nothing), and each write of unknown outcome either took effect or not.
// Decide tries every choice of the writes of unknown outcome that took
// effect; the history satisfies a criterion when one of those executions
// does. Written values must be unique per key and differ from the initial
// value, so that each read names the one write it read (reads-from).
//
// Definitions, for an execution with process order po (the order of each
// process's operations in the history), reads-from rf and the initial
// value of every key:
//
//   - causal, causal-memory, causal-convergence: Bouajjani, Enea, Guerraoui
//     and Hamza, "On verifying causal consistency" (POPL 2017), with the
//     causal order co = (po ∪ rf)+. Any causal order must contain po and rf
//     (a read can only return a write of its causal past), and a larger
//     one only adds operations and constraints to each serialisation, so
//     the smallest one decides. CC: each read r has a serialisation of the
//     writes of its causal past and r, respecting co, in which r returns the
//     latest write of its key. CM: each operation o has such a serialisation
//     of its causal past in which every read of o's process up to o returns
//     the latest write. CCv: one total order arb of the writes, extending
//     co, such that every read returns the arb-latest write of its key in
//     its causal past.
//   - pram (Lipton and Sandberg, "PRAM: a scalable shared memory", 1988):
//     each process has a serialisation of all writes and its own reads that
//     keeps every process's order, in which each of its reads returns the
//     latest write of its key.
//   - read-your-writes, monotonic-reads, monotonic-writes,
//     writes-follow-reads: the session guarantees of Terry et al. ("Session
//     guarantees for weakly consistent replicated data", PDIS 1994) in the
//     axiomatic form of Viotti and Vukolić ("Consistency in
//     non-transactional distributed storage systems", ACM Computing Surveys
//     2016): an abstract execution has a visibility relation vis (which
//     writes each read sees) and one arbitration order ar, a total order of
//     all writes that every session shares (Terry et al.'s single write
//     order). Every read returns the ar-latest write of its key it sees, or
//     the initial value if it sees none (the return-value rule), and
//     RYW: so[wr→rd] ⊆ vis; MR: vis;so[rd→rd] ⊆ vis; MW: so[wr→wr] ⊆ ar;
//     WFR: vis;so[rd→wr] ⊆ ar. Decide tries every ar; for vis it takes the
//     least relation that contains rf and is closed under the guarantee's
//     rule, which is exact: any vis that works contains it, and shrinking
//     vis to it keeps the returned write the ar-latest visible one and only
//     removes constraints on ar. A test compares this with trying every vis
//     on tiny histories.
package weakref

import (
	"errors"
	"fmt"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// ErrAmbiguous is returned for a history whose reads-from is not a
// function: a value written twice to a key, or the initial value written.
var ErrAmbiguous = errors.New("weakref: reads-from is ambiguous")

// ErrTooLarge is returned for a history beyond the brute force's limits.
var ErrTooLarge = errors.New("weakref: history too large for the brute force")

// Limits of the brute force.
const (
	MaxOps   = 16 // operations kept (reads and writes that may have happened)
	MaxMaybe = 6  // writes of unknown outcome
	MaxKeys  = 4
	thinAir  = -2
	fromInit = -1
)

// Criteria lists the criteria Decide knows.
var Criteria = []string{checker.Causal, checker.CausalMemory, checker.CausalConvergence, checker.PRAM,
	checker.ReadYourWrites, checker.MonotonicReads, checker.MonotonicWrites, checker.WritesFollowReads}

type op struct {
	proc  int
	key   int
	write bool
	maybe bool // a write of unknown outcome
	val   history.Value
}

// Decide reports whether h satisfies criterion, with init the initial value
// of every key (None means nil).
func Decide(h *history.History, init history.Value, criterion string) (bool, error) {
	known := false
	for _, c := range Criteria {
		known = known || c == criterion
	}
	if !known {
		return false, fmt.Errorf("weakref: unknown criterion %q", criterion)
	}
	if init.IsNone() {
		init = history.NilValue
	}
	ops, err := collect(h, init)
	if err != nil {
		return false, err
	}
	var maybe []int
	for i, o := range ops {
		if o.maybe {
			maybe = append(maybe, i)
		}
	}
	if len(maybe) > MaxMaybe {
		return false, fmt.Errorf("%w: %d writes of unknown outcome", ErrTooLarge, len(maybe))
	}
	for took := 0; took < 1<<len(maybe); took++ {
		var kept []op
		skip := map[int]bool{}
		for j, i := range maybe {
			if took&(1<<j) == 0 {
				skip[i] = true
			}
		}
		for i, o := range ops {
			if !skip[i] {
				kept = append(kept, o)
			}
		}
		if newExec(kept, init).holds(criterion) {
			return true, nil
		}
	}
	return false, nil
}

// collect keeps the reads and writes that may have happened, in history
// order, and checks that reads-from is a function.
func collect(h *history.History, init history.Value) ([]op, error) {
	keys := map[history.Value]int{}
	written := map[[2]history.Value]bool{}
	var ops []op
	// The register model says which names read and which write; the
	// checkers under test ask the same model.
	info := model.NewRegister(model.Options{}).Info()
	for i := range h.Ops {
		o := &h.Ops[i]
		var w bool
		switch info.ClassOf(o.F) {
		case model.ReadOp:
		case model.WriteOp:
			w = true
		default:
			return nil, fmt.Errorf("weakref: %s is neither a read nor a write", o.F)
		}
		if o.Status == history.Fail || (!w && o.Status == history.Info) {
			continue
		}
		k, ok := keys[o.Key]
		if !ok {
			k = len(keys)
			keys[o.Key] = k
		}
		v := o.Value
		if v.IsNone() {
			v = history.NilValue
		}
		if w {
			id := [2]history.Value{o.Key, v}
			if v == init || written[id] {
				return nil, fmt.Errorf("%w: %s written twice or equal to the initial value", ErrAmbiguous, v)
			}
			written[id] = true
		}
		ops = append(ops, op{proc: o.Process, key: k, write: w, maybe: w && o.Status == history.Info, val: v})
	}
	if len(ops) > MaxOps || len(keys) > MaxKeys {
		return nil, fmt.Errorf("%w: %d operations on %d keys", ErrTooLarge, len(ops), len(keys))
	}
	return ops, nil
}

// exec is one execution: the operations that happened, with reads-from.
type exec struct {
	ops    []op
	rf     []int    // per read: the write it read, fromInit or thinAir
	po     [][]bool // po[a][b]: a precedes b in their process
	writes []int
}

func newExec(ops []op, init history.Value) *exec {
	n := len(ops)
	e := &exec{ops: ops, rf: make([]int, n), po: make([][]bool, n)}
	for a := range ops {
		e.po[a] = make([]bool, n)
		for b := a + 1; b < n; b++ {
			e.po[a][b] = ops[a].proc == ops[b].proc
		}
		if ops[a].write {
			e.writes = append(e.writes, a)
		}
	}
	for r, o := range ops {
		e.rf[r] = fromInit
		if o.write {
			continue
		}
		e.rf[r] = thinAir
		if o.val == init {
			e.rf[r] = fromInit
		}
		for _, w := range e.writes {
			if ops[w].key == o.key && ops[w].val == o.val {
				e.rf[r] = w
			}
		}
	}
	return e
}

func (e *exec) holds(criterion string) bool {
	for r, o := range e.ops {
		if !o.write && e.rf[r] == thinAir {
			return false // no write produced the value: no return-value rule holds
		}
	}
	switch criterion {
	case checker.Causal, checker.CausalMemory, checker.CausalConvergence:
		return e.causal(criterion)
	case checker.PRAM:
		return e.pram()
	}
	return e.session(criterion)
}

// causalOrder returns (po ∪ rf)+ and whether it is a strict partial order.
func (e *exec) causalOrder() ([][]bool, bool) {
	n := len(e.ops)
	co := make([][]bool, n)
	for a := range co {
		co[a] = append([]bool(nil), e.po[a]...)
	}
	for r := range e.ops {
		if !e.ops[r].write && e.rf[r] >= 0 {
			co[e.rf[r]][r] = true
		}
	}
	for k := 0; k < n; k++ {
		for a := 0; a < n; a++ {
			if !co[a][k] {
				continue
			}
			for b := 0; b < n; b++ {
				if co[k][b] {
					co[a][b] = true
				}
			}
		}
	}
	for a := 0; a < n; a++ {
		if co[a][a] {
			return co, false
		}
	}
	return co, true
}

func (e *exec) causal(criterion string) bool {
	co, ok := e.causalOrder()
	if !ok {
		return false
	}
	n := len(e.ops)
	pastWrites := func(o int) uint32 {
		var m uint32
		for _, w := range e.writes {
			if co[w][o] {
				m |= 1 << w
			}
		}
		return m
	}
	prec := func(a, b int) bool { return co[a][b] }
	switch criterion {
	case checker.Causal:
		for r := 0; r < n; r++ {
			if !e.ops[r].write && !e.serialisable(pastWrites(r)|1<<r, prec, 1<<r) {
				return false
			}
		}
		return true
	case checker.CausalMemory:
		for o := 0; o < n; o++ {
			var reads uint32
			for r := 0; r <= o; r++ {
				if !e.ops[r].write && (r == o || e.po[r][o]) {
					reads |= 1 << r
				}
			}
			if !e.serialisable(pastWrites(o)|reads, prec, reads) {
				return false
			}
		}
		return true
	}
	// Causal convergence: arb extends co on the writes, and each read
	// returns the arb-latest write of its key in its causal past.
	return e.orderExists(func(placed uint32, w int) bool {
		for _, u := range e.writes {
			if placed&(1<<u) == 0 && u != w && co[u][w] {
				return false // arb must extend co
			}
		}
		for r := 0; r < n; r++ {
			o := &e.ops[r]
			if o.write || o.key != e.ops[w].key || !co[w][r] {
				continue
			}
			if e.rf[r] == fromInit {
				return false // a write of the key is in the past of an initial read
			}
			if f := e.rf[r]; f != w && placed&(1<<f) != 0 {
				return false // w would be arb-later than the write r returned
			}
		}
		return true
	})
}

func (e *exec) pram() bool {
	prec := func(a, b int) bool { return e.po[a][b] }
	var all uint32
	for _, w := range e.writes {
		all |= 1 << w
	}
	procs := map[int]bool{}
	for _, o := range e.ops {
		procs[o.proc] = true
	}
	for p := range procs {
		var reads uint32
		for r, o := range e.ops {
			if !o.write && o.proc == p {
				reads |= 1 << r
			}
		}
		if reads != 0 && !e.serialisable(all|reads, prec, reads) {
			return false
		}
	}
	return true
}

// serialisable reports whether the operations in set have a total order
// that respects prec in which every read in check returns the latest write
// of its key before it (the initial value when there is none). Reads not in
// check are unconstrained.
func (e *exec) serialisable(set uint32, prec func(a, b int) bool, check uint32) bool {
	n := len(e.ops)
	need := make([]uint32, n)
	for b := 0; b < n; b++ {
		for a := 0; a < n; a++ {
			if a != b && set&(1<<a) != 0 && set&(1<<b) != 0 && prec(a, b) {
				need[b] |= 1 << a
			}
		}
	}
	type state struct {
		done uint32
		last [MaxKeys]int8 // per key: 1 + the latest write, 0 for none
	}
	failed := map[state]bool{}
	var dfs func(s state) bool
	dfs = func(s state) bool {
		if s.done == set {
			return true
		}
		if failed[s] {
			return false
		}
		for i := 0; i < n; i++ {
			bit := uint32(1) << i
			if set&bit == 0 || s.done&bit != 0 || need[i]&^s.done != 0 {
				continue
			}
			o := &e.ops[i]
			t := s
			t.done |= bit
			if o.write {
				t.last[o.key] = int8(i + 1)
			} else if check&bit != 0 && int(s.last[o.key])-1 != e.rf[i] {
				continue
			}
			if dfs(t) {
				return true
			}
		}
		failed[s] = true
		return false
	}
	return dfs(state{})
}

// orderExists reports whether the writes have a total order, built from
// first to last, in which ok(placed, w) holds whenever w is placed after
// the writes in placed.
func (e *exec) orderExists(ok func(placed uint32, w int) bool) bool {
	var all uint32
	for _, w := range e.writes {
		all |= 1 << w
	}
	failed := map[uint32]bool{}
	var dfs func(placed uint32) bool
	dfs = func(placed uint32) bool {
		if placed == all {
			return true
		}
		if failed[placed] {
			return false
		}
		for _, w := range e.writes {
			if placed&(1<<w) == 0 && ok(placed, w) && dfs(placed|1<<w) {
				return true
			}
		}
		failed[placed] = true
		return false
	}
	return dfs(0)
}

// visibility returns, per read, the least set of writes it must see under
// criterion: what it read, plus the guarantee's closure rule.
func (e *exec) visibility(criterion string) []uint32 {
	n := len(e.ops)
	vis := make([]uint32, n)
	for r := range e.ops {
		if !e.ops[r].write && e.rf[r] >= 0 {
			vis[r] = 1 << e.rf[r]
		}
	}
	switch criterion {
	case checker.ReadYourWrites: // so[wr→rd] ⊆ vis
		for r := range e.ops {
			for _, w := range e.writes {
				if !e.ops[r].write && e.po[w][r] {
					vis[r] |= 1 << w
				}
			}
		}
	case checker.MonotonicReads: // vis;so[rd→rd] ⊆ vis, to a fixpoint
		for changed := true; changed; {
			changed = false
			for a := range e.ops {
				for b := range e.ops {
					if !e.ops[a].write && !e.ops[b].write && e.po[a][b] && vis[a]&^vis[b] != 0 {
						vis[b] |= vis[a]
						changed = true
					}
				}
			}
		}
	}
	return vis
}

// session decides a session guarantee: an arbitration order of all writes
// that satisfies the guarantee's rule on ar and the return-value rule for
// the least visibility.
func (e *exec) session(criterion string) bool {
	vis := e.visibility(criterion)
	for r, o := range e.ops {
		if o.write || e.rf[r] != fromInit {
			continue
		}
		for _, w := range e.writes {
			if vis[r]&(1<<w) != 0 && e.ops[w].key == o.key {
				return false // sees a write of its key yet returned the initial value
			}
		}
	}
	// mustPrecede reports that the guarantee puts a before b in ar.
	mustPrecede := func(a, b int) bool {
		switch criterion {
		case checker.MonotonicWrites: // so[wr→wr] ⊆ ar
			return e.po[a][b]
		case checker.WritesFollowReads: // vis;so[rd→wr] ⊆ ar
			for r, o := range e.ops {
				if !o.write && vis[r]&(1<<a) != 0 && e.po[r][b] {
					return true
				}
			}
		}
		return false
	}
	for _, w := range e.writes {
		if mustPrecede(w, w) {
			return false // ar is irreflexive
		}
	}
	return e.orderExists(func(placed uint32, w int) bool {
		for _, u := range e.writes {
			if placed&(1<<u) == 0 && u != w && mustPrecede(u, w) {
				return false
			}
		}
		// Return value: a read that sees w and returned another write of
		// w's key needs w ar-before that write.
		for r, o := range e.ops {
			if o.write || o.key != e.ops[w].key || vis[r]&(1<<w) == 0 {
				continue
			}
			if f := e.rf[r]; f != w && placed&(1<<f) != 0 {
				return false
			}
		}
		return true
	})
}
