// Package weakref decides the consistency criteria of small read/write
// histories by brute force, straight from their published definitions:
// linearizability, sequential consistency and the weak criteria. It is the
// reference the polynomial checkers of packages causal and session, and the
// versioned linearizability and sequential consistency engines, are tested
// against, and it shares no code with them: of the project it uses only the
// register model's table of which operation names read and which write.
//
// An execution is what the history says happened: failed operations and
// reads of unknown outcome are left out (they took no effect and observed
// nothing), and each write of unknown outcome either took effect or not.
// Decide tries every choice of the writes of unknown outcome that took
// effect; the history satisfies a criterion when one of those executions
// does.
//
// Reads-from (rf) follows the one rule every criterion shares (docs:
// "Versions" in format.md). When the history uses versions (every
// operation that may have happened carries an integer version, and no two
// writes of a key carry the same one), a read with version v read the write
// of its key with version v and must have returned its value; a read whose
// version no write of its key carries read the initial value and must have
// returned it; any other read returned a value nobody wrote. A cas [from
// to] that took effect is a read of from and, right after it in its
// process, a write of to (it does not read its own write); one of unknown
// outcome took effect, both halves, or did not, neither. Linearizability
// and sequential consistency, in which a cas is atomic, are not decided
// for histories with a cas. The version
// order vo then orders each key's writes, and every serialisation, view and
// arbitration below keeps it (a write is legal only while its key holds an
// older version). Without versions, a read read one of the writes of its
// key that wrote the value it returned, or the initial state when it
// returned the initial value; when values repeat (a value written twice,
// or the initial value written again) Decide tries every such choice of
// every read, and the history satisfies a criterion when one choice (with
// one choice of the writes of unknown outcome that took effect) does. A
// read of a value nobody wrote (a thin-air read) breaks every criterion. Under Options.NilIsAny a read of nil observed nothing
// (Knossos's rule): it keeps its place in every order but may return
// anything.
//
// Definitions, for an execution with process order po (the order of each
// process's operations in the history), reads-from rf and the initial
// value of every key:
//
//   - linearizable (Herlihy and Wing, "Linearizability: a correctness
//     condition for concurrent objects", TOPLAS 1990) and sequential
//     (Lamport, "How to make a multiprocessor computer that correctly
//     executes multiprocess programs", 1979): one serialisation of all the
//     operations, keeping po and, for linearizability, real time (an
//     operation that returned before another was called precedes it), in
//     which every read returns the latest write of its key.
//   - causal, causal-memory, causal-convergence: Bouajjani, Enea, Guerraoui
//     and Hamza, "On verifying causal consistency" (POPL 2017), with the
//     causal order co = (po ∪ rf)+. Any causal order must contain po and rf
//     (a read can only return a write of its causal past), and a larger
//     one only adds operations and constraints to each serialisation, so
//     the smallest one decides. CC: each operation o has a serialisation of
//     the writes of its causal past and o, respecting co, in which o, if a
//     read, returns the latest write of its key. CM: each operation o has
//     such a serialisation of its causal past and o in which every read of
//     o's process up to o returns the latest write. CCv: one total order
//     arb of the writes, extending co, such that every read returns the
//     arb-latest write of its key in its causal past.
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

// ErrTooLarge is returned for a history beyond the brute force's limits.
var ErrTooLarge = errors.New("weakref: history too large for the brute force")

// Limits of the brute force.
const (
	MaxOps   = 16 // operations kept (reads and writes that may have happened)
	MaxMaybe = 6  // writes of unknown outcome
	MaxKeys  = 4
	// MaxExecutions bounds the executions tried: the choices of
	// reads-from times those of the writes of unknown outcome.
	MaxExecutions = 1 << 14
)

// What a read read, besides the index of a write.
const (
	fromInit = -1 // the initial value (also the mark of every write)
	thinAir  = -2 // a value nobody wrote, or a write that did not happen
	anyValue = -3 // nothing: a read of nil under Options.NilIsAny
)

// Criteria lists the weak criteria Decide knows; it also knows
// linearizable and sequential.
var Criteria = []string{checker.Causal, checker.CausalMemory, checker.CausalConvergence, checker.PRAM,
	checker.ReadYourWrites, checker.MonotonicReads, checker.MonotonicWrites, checker.WritesFollowReads}

// Options says how to read a history.
type Options struct {
	// Init is the initial value of every key (None means nil).
	Init history.Value
	// NilIsAny makes a read of nil observe nothing (Knossos's rule).
	NilIsAny bool
}

// Decide reports whether h satisfies criterion, with init the initial value
// of every key (None means nil).
func Decide(h *history.History, init history.Value, criterion string) (bool, error) {
	return DecideWith(h, Options{Init: init}, criterion)
}

// DecideWith reports whether h satisfies criterion, read as opts says.
func DecideWith(h *history.History, opts Options, criterion string) (bool, error) {
	if _, ok := criteria[criterion]; !ok {
		return false, fmt.Errorf("weakref: unknown criterion %q", criterion)
	}
	if opts.Init.IsNone() {
		opts.Init = history.NilValue
	}
	rec, err := collect(h, opts)
	if err != nil {
		return false, err
	}
	if rec.hasCAS() && (criterion == checker.Linearizable || criterion == checker.Sequential) {
		// A cas is atomic in one serialisation of every operation, which
		// its two halves are not.
		return false, fmt.Errorf("weakref: %s of a history with cas is not decided here", criterion)
	}
	maybe := rec.maybe()
	if len(maybe) > MaxMaybe {
		return false, fmt.Errorf("%w: %d writes of unknown outcome", ErrTooLarge, len(maybe))
	}
	if n := rec.readsFromChoices(); n<<len(maybe) > MaxExecutions {
		return false, fmt.Errorf("%w: %d choices of reads-from", ErrTooLarge, n)
	}
	holds := false
	rec.eachReadsFrom(func() bool {
		for took := 0; took < 1<<len(maybe) && !holds; took++ {
			holds = rec.execution(maybe, took).holds(criterion)
		}
		return holds
	})
	return holds, nil
}

// readsFromChoices counts the choices of reads-from, at most
// MaxExecutions+1.
func (rec *record) readsFromChoices() int {
	n := 1
	for _, c := range rec.choices {
		if len(c) > 0 {
			n = min(n*len(c), MaxExecutions+1)
		}
	}
	return n
}

// eachReadsFrom sets every read with a choice to each of its candidates
// in turn, in every combination, calling f after each until it returns
// true.
func (rec *record) eachReadsFrom(f func() bool) {
	var reads []int
	for i, c := range rec.choices {
		if len(c) > 0 {
			reads = append(reads, i)
		}
	}
	var next func(k int) bool
	next = func(k int) bool {
		if k == len(reads) {
			return f()
		}
		r := reads[k]
		for _, w := range rec.choices[r] {
			rec.ops[r].from = w
			if next(k + 1) {
				return true
			}
		}
		return false
	}
	next(0)
}

// holds decides criterion on the execution. A read of a value nobody
// wrote breaks every criterion: no return-value rule allows it.
func (e *exec) holds(criterion string) bool {
	return !e.thinAir() && criteria[criterion](e)
}

// criteria maps each criterion to its decision on one execution without
// thin-air reads.
var criteria = map[string]func(e *exec) bool{
	checker.Linearizable:      (*exec).linearizable,
	checker.Sequential:        (*exec).sequential,
	checker.Causal:            (*exec).causal,
	checker.CausalMemory:      (*exec).causalMemory,
	checker.CausalConvergence: (*exec).causalConvergence,
	checker.PRAM:              (*exec).pram,
	checker.ReadYourWrites:    func(e *exec) bool { return e.session(checker.ReadYourWrites) },
	checker.MonotonicReads:    func(e *exec) bool { return e.session(checker.MonotonicReads) },
	checker.MonotonicWrites:   func(e *exec) bool { return e.session(checker.MonotonicWrites) },
	checker.WritesFollowReads: func(e *exec) bool { return e.session(checker.WritesFollowReads) },
}

// op is a read or a write that may have happened.
type op struct {
	proc      int
	key       int
	write     bool
	maybe     bool // a write of unknown outcome
	val       history.Value
	ver       int64 // the version, when hasVer
	hasVer    bool
	call, ret int64 // Call and Return, for real time
	casRead   bool  // the read of a cas, whose write is the next op
	from      int   // reads: the index of the write read, or fromInit, thinAir, anyValue
}

// record is what Decide reads from a history: the operations that may have
// happened, in history order, each read with what it read.
type record struct {
	ops       []op
	versioned bool
	// choices is, per operation, for a read whose value several writes
	// wrote (or a write and the initial state), what it may have read:
	// write indices, and fromInit.
	choices [][]int
}

// collect keeps the reads and writes that may have happened and finds what
// each read read, by versions when the history uses them, else by values.
func collect(h *history.History, opts Options) (*record, error) {
	ops, keys, err := happened(h)
	if err != nil {
		return nil, err
	}
	if len(ops) > MaxOps || keys > MaxKeys {
		return nil, fmt.Errorf("%w: %d operations on %d keys", ErrTooLarge, len(ops), keys)
	}
	rec := &record{ops: ops, versioned: usesVersions(ops), choices: make([][]int, len(ops))}
	if rec.versioned {
		rec.readFrom(opts, rec.writersByVersion())
	} else {
		rec.readFromValues(opts)
	}
	return rec, nil
}

// happened returns the reads and writes of h that may have happened, with
// keys numbered densely, and the number of keys.
func happened(h *history.History) ([]op, int, error) {
	keys := map[history.Value]int{}
	var ops []op
	// The register model says which names read and which write; the
	// checkers under test ask the same model.
	info := model.NewCASRegister(model.Options{}).Info()
	for i := range h.Ops {
		o := &h.Ops[i]
		var w bool
		switch info.ClassOf(o.F) {
		case model.ReadOp:
		case model.WriteOp:
			w = true
		case model.CASOp:
		default:
			return nil, 0, fmt.Errorf("weakref: %s is neither a read, a write nor a cas", o.F)
		}
		if o.Status == history.Fail || (!w && o.Status == history.Info && info.ClassOf(o.F) == model.ReadOp) {
			continue
		}
		k, ok := keys[o.Key]
		if !ok {
			k = len(keys)
			keys[o.Key] = k
		}
		x := op{proc: o.Process, key: k, write: w, maybe: w && o.Status == history.Info, val: orNil(o.Value), call: o.Call, ret: o.Return}
		if info.ClassOf(o.F) == model.CASOp {
			halves, err := casHalves(info, o, x)
			if err != nil {
				return nil, 0, err
			}
			ops = append(ops, halves...)
			continue
		}
		x.ver, x.hasVer = o.Version.Int()
		ops = append(ops, x)
	}
	return ops, len(keys), nil
}

func orNil(v history.Value) history.Value {
	if v.IsNone() {
		return history.NilValue
	}
	return v
}

// casHalves returns what a cas is when it took effect: a read of the value
// it expected and, right after it in its process, a write of the value it
// stored; a cas of unknown outcome may not have taken effect, and then
// neither half did. A cas carries no version: it would read one and write
// another.
func casHalves(info model.Info, o *history.Op, x op) ([]op, error) {
	from, okF := info.Expected(o)
	to, okT := info.Stored(o)
	if !okF || !okT {
		return nil, fmt.Errorf("weakref: %s has no [from to] value", o.F)
	}
	rd, wr := x, x
	rd.val, rd.maybe, rd.casRead = orNil(from), false, true
	wr.val, wr.write, wr.maybe = orNil(to), true, o.Status == history.Info
	return []op{rd, wr}, nil
}

// keyVer names a write by its key and version.
type keyVer struct {
	key int
	ver int64
}

// keyVal names a write by its key and value.
type keyVal struct {
	key int
	val history.Value
}

// usesVersions reports whether versions say what each read read: every
// operation carries one, and no two writes of a key share one.
func usesVersions(ops []op) bool {
	writers := map[keyVer]bool{}
	for _, o := range ops {
		id := keyVer{o.key, o.ver}
		if !o.hasVer || (o.write && writers[id]) {
			return false
		}
		writers[id] = writers[id] || o.write
	}
	return len(ops) > 0
}

// writersByVersion names each write by its key and version.
func (rec *record) writersByVersion() func(o *op) (int, bool) {
	writer := map[keyVer]int{}
	for i, o := range rec.ops {
		if o.write {
			writer[keyVer{o.key, o.ver}] = i
		}
	}
	return func(o *op) (int, bool) {
		w, ok := writer[keyVer{o.key, o.ver}]
		return w, ok
	}
}

// readFromValues sets what each read read without versions: one of the
// writes of its key and value, or the initial state when it returned the
// initial value; a read with more than one of them gets them as choices.
func (rec *record) readFromValues(opts Options) {
	writers := map[keyVal][]int{}
	for i, o := range rec.ops {
		if o.write {
			id := keyVal{o.key, o.val}
			writers[id] = append(writers[id], i)
		}
	}
	for i := range rec.ops {
		o := &rec.ops[i]
		if o.write {
			o.from = fromInit
			continue
		}
		if opts.NilIsAny && o.val.IsNil() {
			o.from = anyValue
			continue
		}
		var c []int
		for _, w := range writers[keyVal{o.key, o.val}] {
			if !o.casRead || w != i+1 { // a cas does not read what it writes
				c = append(c, w)
			}
		}
		if o.val == opts.Init {
			c = append(c, fromInit)
		}
		switch len(c) {
		case 0:
			o.from = thinAir
		case 1:
			o.from = c[0]
		default:
			o.from, rec.choices[i] = c[0], c
		}
	}
}

// readFrom sets what each read read: the write that names (by version or
// by value) must have written the value the read returned; a read that
// names no write read the initial value, if it returned it.
func (rec *record) readFrom(opts Options, names func(o *op) (int, bool)) {
	for i := range rec.ops {
		o := &rec.ops[i]
		w, named := names(o)
		switch {
		case o.write:
			o.from = fromInit
		case opts.NilIsAny && o.val.IsNil():
			o.from = anyValue
		case named && rec.ops[w].val == o.val:
			o.from = w
		case !named && o.val == opts.Init:
			o.from = fromInit
		default:
			o.from = thinAir // another value than its version's, or a value nobody wrote
		}
	}
}

// hasCAS reports whether the record holds a cas.
func (rec *record) hasCAS() bool {
	for _, o := range rec.ops {
		if o.casRead {
			return true
		}
	}
	return false
}

// maybe lists the writes of unknown outcome.
func (rec *record) maybe() []int {
	var out []int
	for i, o := range rec.ops {
		if o.maybe {
			out = append(out, i)
		}
	}
	return out
}

// execution returns the execution in which, of the writes of unknown
// outcome in maybe, those whose bit is set in took took effect. A read of
// a write that did not take effect read a value nobody wrote.
func (rec *record) execution(maybe []int, took int) *exec {
	kept := make([]bool, len(rec.ops))
	for i := range kept {
		kept[i] = true
	}
	for j, i := range maybe {
		kept[i] = took&(1<<j) != 0
	}
	for i := range rec.ops {
		if rec.ops[i].casRead {
			kept[i] = kept[i+1]
		}
	}
	at := make([]int, len(rec.ops)) // index in rec.ops → index in the execution
	var ops []op
	for i, o := range rec.ops {
		at[i] = thinAir
		if kept[i] {
			at[i] = len(ops)
			ops = append(ops, o)
		}
	}
	for i := range ops {
		if ops[i].from >= 0 {
			ops[i].from = at[ops[i].from]
		}
	}
	return newExec(ops, rec.versioned)
}
