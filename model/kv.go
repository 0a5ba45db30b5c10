package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/histcheck/histcheck/history"
)

// Operation codes of the key-value model (Op.Kind). Read, write and cas
// share the register's codes so that the register's pruning rule applies.
const (
	kvRead   = regRead
	kvWrite  = regWrite
	kvCAS    = regCAS
	kvAppend = regCAS + 1
)

// kv is a map of independent registers named by each operation's key, with
// string append. Checkers split a history by key and check each key alone
// (Info.Keyed), so the model itself describes one key.
//
// Appends build values no operation wrote, and Step has no Table to intern
// them in, so a kv model keeps its own table of values (vals) and its states
// and compiled operations use ids from it rather than from the Table passed
// to Compile. That table is safe for concurrent use, because checkers may
// search several keys at once with one model value (a Fork's table is for
// one goroutine and takes no locks); it only grows, so use one model value
// per check.
//
// Compile reads the fields before info, which come first so that they
// share a cache line: a keyed check has a kv model per key, seldom in
// cache.
type kv struct {
	vals     *kvValues
	nilAny   bool
	versions bool // compile versions (Options.Versions)
	init     history.Value
	info     Info
}

// NewKV returns the key-value model: every key is a register that starts at
// opts.Init (default nil, meaning absent), with read, write, cas and append.
func NewKV(opts Options) Model[int64] {
	m := &kv{init: opts.Init, nilAny: opts.NilRead == NilIsAny, versions: opts.Versions, vals: newKVValues()}
	if m.init.IsNone() {
		m.init = history.NilValue
	}
	m.info = Info{
		Name: "kv",
		Doc: "A map of independent registers named by each operation's key; every key starts at the initial value " +
			"(nil, absent, by default). Append concatenates strings, and appending to nil appends to \"\".",
		Keyed: true,
		Ops: []OpInfo{
			{Names: []string{"read", "get", "r"}, Value: "any (the value read)", Doc: "returns the key's value", Class: ReadOp},
			{Names: []string{"write", "put", "w"}, Value: "any (the value written)", Doc: "sets the key's value", Class: WriteOp},
			{Names: []string{"append"}, Value: "string (the suffix)", Doc: "appends the suffix to the key's string value"},
			{Names: []string{"cas", "compare-and-set"}, Value: "[from to]", Doc: "sets the key's value to \"to\" if it is \"from\"", Class: CASOp},
		},
	}
	if m.nilAny {
		m.info.Doc += " A read of nil is accepted in every state."
	}
	if m.versions {
		m.info.Doc += " Versions order the writes of each key, and a read returns the write of its version."
	}
	return m
}

func (m *kv) Info() Info { return m.info }

// Fork returns a copy with a table of its own, for one partition searched
// by one goroutine.
func (m *kv) Fork() Model[int64] {
	c := *m
	c.vals = newKVValues()
	c.vals.single = true
	return &c
}

// Reserve implements Reserver: room in the value table for the values of
// n more operations.
func (m *kv) Reserve(n int) { m.vals.reserve(n) }

// Compile interns the operation's values in the model's own table (t only
// numbers the keys of versioned operations: see the type's comment). With
// Options.Versions, reads and writes are compiled with their versions (see
// UsesVersions).
func (m *kv) Compile(op *history.Op, t *Table) (Op, error) {
	switch op.F {
	case "read", "get", "r":
		v := op.Value
		if v.IsNone() {
			v = history.NilValue
		}
		o := Op{Kind: kvRead, A: m.id(v)}
		if m.nilAny && v.IsNil() {
			o.B = anyRead
		}
		if m.versions && o.B != anyRead && op.Status != history.Info {
			return compileVersioned(op, false, o.A, t.ID(op.Key))
		}
		return o, nil
	case "write", "put", "w":
		if op.Value.IsNone() {
			return Op{}, errors.New("write needs a value")
		}
		if m.versions {
			return compileVersioned(op, true, m.vals.id(op.Value), t.ID(op.Key))
		}
		return Op{Kind: kvWrite, A: m.id(op.Value)}, nil
	case "append":
		if m.versions {
			return Op{}, errVersionedOther
		}
		if op.Value.Kind() != history.String {
			return Op{}, fmt.Errorf("append needs a string value, got %s", describeValue(op.Value))
		}
		return Op{Kind: kvAppend, A: m.vals.id(op.Value)}, nil
	case "cas", "compare-and-set":
		if m.versions {
			return Op{}, errVersionedOther
		}
		from, to, err := casArgs(op.Value)
		if err != nil {
			return Op{}, err
		}
		return Op{Kind: kvCAS, A: m.id(from), B: m.id(to)}, nil
	}
	return Op{}, UnknownOpError(m.info, op.F)
}

// Versioned implements VersionOrder.
func (m *kv) Versioned(op *Op) (VersionKind, int64) { return versionedOp(op) }

func (m *kv) Init(*Table) int64 { return m.id(m.init) }

// id returns the id of value x: an integer that canonicalInt takes is its
// own id (see intID), found without the table, unless versions are
// compiled, whose states pack a rank above a table id; any other value
// is the table's.
func (m *kv) id(x history.Value) int64 {
	if !m.versions {
		if n, ok := canonicalInt(x); ok {
			return intID(n)
		}
	}
	return m.vals.id(x)
}

// intTag shifts an integer that canonicalInt takes (of at most 18 digits,
// below 2^60 in magnitude) to its id, far below zero: the table's ids are
// positive, 0 is unused and −1 is noState, so the two never meet. Most
// values of a key-value history are integers, and a long run's writes
// each write a new one: interning each was a fifth of the online check's
// time (a lookup that misses, then an entry, a leaf and a slot, each a
// cache miss on a key's table seldom in cache).
const intTag = 1 << 62

// intID is the id of the integer n (canonicalInt's).
func intID(n int64) int64 { return n - intTag }

// idInt returns the integer whose id is id, if it is one (see intID).
func idInt(id int64) (int64, bool) { return id + intTag, id < -intTag/2 }

// Finish completes versioned reads and writes (see finishVersions), each
// key with a version order of its own; pairs are interned in the model's
// table like every other value.
func (m *kv) Finish(ops []Op, _ *Table) error {
	if !m.versions {
		return nil
	}
	return finishVersions(ops, m.vals.id(m.init), func(val, ver int64) int64 {
		return m.vals.id(history.ListValue(m.vals.value(val), history.IntValue(ver)))
	})
}

// Step applies op to s. An append interns the string it builds in the
// model's table, which keeps Step a pure function of (s, op): see
// kvValues.
func (m *kv) Step(s int64, op *Op) (int64, bool) {
	switch op.Kind {
	case kvRead:
		return s, op.Unknown || op.B == anyRead || op.A == s
	case kvWrite:
		return op.A, true
	case kvCAS:
		if op.A != s {
			return s, false
		}
		return op.B, true
	case kvAppend:
		next, ok := m.vals.appendTo(s, op.A)
		if !ok {
			return s, false
		}
		return next, true
	}
	return stepVersioned(s, op)
}

// Class classifies reads and writes; cas and append are OtherOp.
func (m *kv) Class(op *Op) OpClass { return classify(op, kvRead, kvWrite) }

func (m *kv) Describe(s int64, _ *Table) string {
	id := s
	if m.versions {
		id &= idMask // a rank above the value's id
	}
	return describeState(s, m.vals.value(id))
}

// Explain says why op is illegal in s.
func (m *kv) Explain(s int64, op *Op, _ *Table) string {
	switch op.Kind {
	case kvRead:
		return fmt.Sprintf("read %s but the key holds %s", describeValue(m.vals.value(op.A)), m.Describe(s, nil))
	case kvCAS:
		return fmt.Sprintf("cas from %s but the key holds %s", describeValue(m.vals.value(op.A)), m.Describe(s, nil))
	case kvAppend:
		return fmt.Sprintf("append %s to %s, which is not a string", describeValue(m.vals.value(op.A)), m.Describe(s, nil))
	}
	return explainVersioned(op, "the key", func(id int64) string { return describeValue(m.vals.value(id)) }, m.Describe(s, nil))
}

// Doomed tells, for appends, that a read of string g can no longer succeed
// in a state that is not a prefix of g when every write or cas that could
// set the key to a prefix of g (nil counts as "") has been taken, or was
// called after the read returned: appends only extend a string.
func (m *kv) Doomed(ops []Op) func(s int64, i int, taken []uint64) bool {
	v := m.vals
	v.rlock()
	reads, resets := v.appendReads(ops)
	v.runlock()
	if reads == nil {
		return nil
	}
	p := &prefixes{v: v}
	return func(s int64, i int, taken []uint64) bool {
		if !reads[i] {
			return false
		}
		for _, j := range resets[i] {
			if taken[j>>6]&(1<<(uint(j)&63)) == 0 {
				return false
			}
		}
		a := ops[i].A
		v.rlock()
		defer v.runlock()
		if s <= 0 || s >= int64(len(v.vals)) || s >= 1<<31 || a >= 1<<31 || !v.vals[s].isString() {
			return false
		}
		return !p.of(s, a, v.text(a))
	}
}

// appendReads finds, when some of ops append, the completed reads of a
// string (reads) and, for each, the writes and cas that may precede it
// with a prefix of its string (resets): those that set the key to nil or
// to such a prefix and were called before the read returned. It returns
// nil when no operation appends or no read is of a string. The caller
// holds mu.
func (v *kvValues) appendReads(ops []Op) (reads []bool, resets [][]int32) {
	var writers []int // writes and cas, which may reset the key
	appends := false
	for i := range ops {
		switch ops[i].Kind {
		case kvAppend:
			appends = true
		case kvWrite, kvCAS:
			writers = append(writers, i)
		}
	}
	if !appends {
		return nil, nil
	}
	reads = make([]bool, len(ops))
	resets = make([][]int32, len(ops))
	useful := false
	for i := range ops {
		o := &ops[i]
		if o.Kind != kvRead || o.Unknown || o.B == anyRead || o.A <= 0 || o.A >= int64(len(v.vals)) || !v.vals[o.A].isString() {
			continue
		}
		reads[i], useful = true, true
		var g string // the read's string, built at the first writer that may precede it
		for _, j := range writers {
			w := &ops[j]
			if w.Call > o.Return {
				continue
			}
			val := w.A
			if w.Kind == kvCAS {
				val = w.B
			}
			if g == "" {
				g = v.text(o.A)
			}
			if v.prefixOf(val, g) {
				resets[i] = append(resets[i], int32(j))
			}
		}
	}
	if !useful {
		return nil, nil
	}
	return reads, resets
}

// prefixes memoises whether a state is a prefix of a read's string, for
// one Doomed test (one goroutine at a time). A state extends the state it
// was appended to, so each new state costs one comparison of its last
// piece.
type prefixes struct {
	v     *kvValues
	known idTable // s<<32|a -> 1 yes, 2 no
}

// of reports whether string or nil state s is a prefix of g, the text of
// the read value a; the caller holds mu.
func (p *prefixes) of(s, a int64, g string) bool {
	v := p.v
	e := &v.vals[s]
	switch {
	case !e.isString():
		return e.leaf >= 0 && v.leaves[e.leaf].Kind() == history.Nil
	case e.n > int64(len(g)):
		return false
	case e.leaf >= 0:
		return v.leaves[e.leaf].Text() == g[:e.n]
	}
	key := uint64(s)<<32 | uint64(a)
	if r, ok := p.known.get(key); ok {
		return r == 1
	}
	pn := max(v.vals[e.parent].n, 0) // a nil parent counts as ""
	ok := p.of(int64(e.parent), a, g) && v.equalsText(int64(e.suffix), g[pn:e.n])
	r := int64(2)
	if ok {
		r = 1
	}
	p.known.put(key, r)
	return ok
}

// prefixOf reports whether value id is nil or a string that is a prefix of
// g; the caller holds mu.
func (v *kvValues) prefixOf(id int64, g string) bool {
	if id <= 0 || id >= int64(len(v.vals)) {
		return false
	}
	e := &v.vals[id]
	if !e.isString() {
		return e.leaf >= 0 && v.leaves[e.leaf].Kind() == history.Nil
	}
	return e.n <= int64(len(g)) && v.equalsText(id, g[:e.n])
}

// Keep applies the register's rule (see register.Keep) when no operation
// appends. With appends, reads of unknown outcome are dropped, and so is an
// append of unknown outcome whose suffix is part of no value that a
// completed read returned or that a cas expected. Such an append can be
// left out of any linearization: the key's value contains its suffix from
// the append until the next write or successful cas replaces it, so in
// that window no read and no cas took effect (each would have observed the
// suffix), and leaving the append out changes no state anything observed.
// Operations of several keys may be given together: observations on other
// keys only keep more.
func (m *kv) Keep(ops []Op) []bool {
	appends := false
	for i := range ops {
		if ops[i].Kind == kvAppend {
			appends = true
			break
		}
	}
	if !appends {
		return keepObserved(ops, kvRead, kvWrite, kvCAS)
	}
	keep := make([]bool, len(ops))
	seen, built := "", false
	for j := range ops {
		o := &ops[j]
		switch {
		case !o.Unknown:
			keep[j] = true
		case o.Kind == kvRead:
			keep[j] = false
		case o.Kind == kvAppend:
			suffix := m.vals.value(o.A).Text()
			if suffix != "" && !built {
				// Most histories have no append of unknown outcome:
				// the observed strings, as long as all the reads
				// together, are joined only when one needs them.
				seen, built = m.observed(ops), true
			}
			keep[j] = suffix == "" || strings.Contains(seen, suffix)
		default:
			keep[j] = true
		}
	}
	return keep
}

// observed joins every string a completed read of ops returned or a cas
// of ops expected, each followed by a separator: a suffix found there (even
// across a separator) is kept by Keep, which is always safe.
func (m *kv) observed(ops []Op) string {
	each := func(f func(string)) {
		for i := range ops {
			o := &ops[i]
			var id int64
			switch {
			case o.Kind == kvRead && !o.Unknown && o.B != anyRead:
				id = o.A
			case o.Kind == kvCAS:
				id = o.A
			default:
				continue
			}
			if v := m.vals.value(id); v.Kind() == history.String {
				f(v.Text())
			}
		}
	}
	n := 0
	each(func(t string) { n += len(t) + 1 })
	var b strings.Builder
	b.Grow(n)
	each(func(t string) {
		b.WriteString(t)
		b.WriteByte(0)
	})
	return b.String()
}

// kvValues interns values to ids (0 is unused) and memoises appends.
//
// A string an append builds is kept as a rope node, the ids of the string
// it extends and of the suffix, rather than as text: the search builds one
// per new state, and copying whole strings made appends cost their length.
// Every string, rope or not, is found by a rolling hash of its text and its
// length, so that equal strings always get one id (the search compares
// states by id); the hash only narrows the search and every match is
// confirmed against the text, so collisions cost time, never correctness.
//
// Step adds to this table, yet it is a pure function of (state, op): the
// table is a memo of the function from texts to ids, not state of the
// search. An id, once given, names the same text forever; equal texts
// always share one id; and nothing is ever removed, so a step answered
// once is answered alike again, after any other steps, in any order, on
// any goroutine, and after the search has backtracked past the step that
// built the string (its memo keeps the ids of the states it left). The
// table cannot be filled before the search instead: the strings a
// history's appends may build are every order of every subset of them,
// more than an int64 state could number (30 distinct one-letter appends
// already build 30! strings), so only the strings a search reaches get an
// id. TestKVStepPure checks these properties.
type kvValues struct {
	// single is set for a table used by one goroutine alone (a Fork), which
	// then takes no locks; otherwise mu guards every other field. It comes
	// first with what finding an integer reads (recentInts, ints), so
	// that they share a cache line or two.
	single bool
	// recentInts are the integers a single table interned or found last
	// (see singleIntID).
	recentInts [4]recentInt
	rinext     int
	// ints maps the integers whose text is canonicalInt's to their ids:
	// most values of a key-value history are integers, and a table keyed
	// by the number costs less than the map keyed by the value's text.
	ints   idTable
	mu     sync.RWMutex
	ids    map[history.Value]int64 // values other than strings and ints (see ints)
	vals   []kvEntry
	leaves []history.Value // values given whole, by kvEntry.leaf
	// buckets maps a bucket key (hash and length) to the first string id
	// with it; appends maps s<<32|suffix to 1 + the id of the
	// concatenation, for the appends whose string is not their own rope
	// node (see known).
	buckets, appends idTable
	// recent are the values a single table interned or found last, for
	// a check that compiles operations one at a time as they come (a
	// read mostly returns a value just written).
	recent [4]recentID
	rnext  int
	// reserved is how many values Reserve said to expect: the first
	// string interned makes room for them all. Integers and other values
	// go to ints and ids, and most are read again more than written (a
	// register's integers), so only strings take the hint.
	reserved int
}

// recentInt is an integer canonicalInt takes and its id.
type recentInt struct {
	n, id int64
}

// recentID is a value and its id.
type recentID struct {
	v  history.Value
	id int64
}

// singleID is id for a table one goroutine uses.
func (v *kvValues) singleID(x history.Value) int64 {
	if n, ok := canonicalInt(x); ok {
		return v.singleIntID(n, x)
	}
	for i := range v.recent {
		if r := &v.recent[i]; r.id != 0 && r.v == x {
			return r.id
		}
	}
	id, ok := v.lookup(x)
	if !ok {
		id = v.insert(x)
	}
	v.recent[v.rnext] = recentID{v: x, id: id}
	v.rnext = (v.rnext + 1) % len(v.recent)
	return id
}

// singleIntID is singleID for x, an integer that canonicalInt reads as
// n: compared and looked up by number, without its text.
func (v *kvValues) singleIntID(n int64, x history.Value) int64 {
	for _, r := range v.recentInts {
		if r.id != 0 && r.n == n {
			return r.id
		}
	}
	id, ok := v.ints.get(uint64(n))
	if !ok {
		id = v.add(kvEntry{leaf: int32(len(v.leaves)), n: -1})
		v.leaves = append(v.leaves, x)
		v.ints.put(uint64(n), id)
	}
	v.recentInts[v.rinext] = recentInt{n: n, id: id}
	v.rinext = (v.rinext + 1) % len(v.recentInts)
	return id
}

// kvEntry is an interned value. A value given whole has its index in
// leaves; a rope has leaf −1 and joins parent and suffix. Strings also keep
// the rolling hash of their text, their length, and the next id with the
// same bucket key (0 ends the chain). An entry takes 32 bytes: the search
// makes one per new state.
type kvEntry struct {
	hash           uint64
	n              int64 // the text's length; −1 for a value that is not a string
	next           int32
	parent, suffix int32
	leaf           int32
}

func (e *kvEntry) isString() bool { return e.n >= 0 }

// joins reports whether e is the rope node that appends suffix to s.
func (e *kvEntry) joins(s, suffix int64) bool {
	return e.leaf < 0 && int64(e.parent) == s && int64(e.suffix) == suffix
}

// rollBase is the multiplier of the rolling hash (odd, so powers never vanish
// modulo 2^64).
const rollBase = 0x100000001b3

func newKVValues() *kvValues {
	vals := make([]kvEntry, 1, 16)
	vals[0] = kvEntry{n: -1, leaf: -1}
	return &kvValues{ids: make(map[history.Value]int64), vals: vals}
}

func rollHash(s string) (h uint64) {
	for i := 0; i < len(s); i++ {
		h = h*rollBase + uint64(s[i])
	}
	return h
}

// rollPow returns rollBase^n, the factor that shifts a hash past n bytes.
func rollPow(n int64) uint64 {
	p, b := uint64(1), uint64(rollBase)
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			p *= b
		}
		b *= b
	}
	return p
}

func bucketKey(h uint64, n int64) uint64 { return h ^ uint64(n)*0x9e3779b97f4a7c15 }

func (v *kvValues) rlock() {
	if !v.single {
		v.mu.RLock()
	}
}

func (v *kvValues) runlock() {
	if !v.single {
		v.mu.RUnlock()
	}
}

func (v *kvValues) lock() {
	if !v.single {
		v.mu.Lock()
	}
}

func (v *kvValues) unlock() {
	if !v.single {
		v.mu.Unlock()
	}
}

func (v *kvValues) id(x history.Value) int64 {
	if v.single {
		return v.singleID(x)
	}
	v.rlock()
	id, ok := v.lookup(x)
	v.runlock()
	if ok {
		return id
	}
	v.lock()
	defer v.unlock()
	if id, ok := v.lookup(x); ok {
		return id
	}
	return v.insert(x)
}

// insert adds x, which has no id; the caller holds mu.
func (v *kvValues) insert(x history.Value) int64 {
	var id int64
	e := kvEntry{leaf: int32(len(v.leaves)), n: -1}
	v.leaves = append(v.leaves, x)
	if x.Kind() != history.String {
		id = v.add(e)
		if n, ok := canonicalInt(x); ok {
			v.ints.put(uint64(n), id)
		} else {
			v.ids[x] = id
		}
		return id
	}
	e.n = int64(len(x.Text()))
	e.hash = rollHash(x.Text())
	if n := v.reserved; n > 0 {
		v.reserved = 0
		v.vals = slices.Grow(v.vals, n)
		v.leaves = slices.Grow(v.leaves, n)
		v.buckets.reserve(n)
	}
	return v.addString(e)
}

// lookup finds x's id; the caller holds mu.
func (v *kvValues) lookup(x history.Value) (int64, bool) {
	if x.Kind() != history.String {
		if n, ok := canonicalInt(x); ok {
			return v.ints.get(uint64(n))
		}
		id, ok := v.ids[x]
		return id, ok
	}
	text := x.Text()
	h := rollHash(text)
	first, _ := v.buckets.get(bucketKey(h, int64(len(text))))
	for id := first; id != 0; id = int64(v.vals[id].next) {
		if v.equalsText(id, text) {
			return id, true
		}
	}
	return 0, false
}

// canonicalInt returns the integer x holds when x is an integer written
// as IntValue writes it (an optional minus, no leading zero, no "-0") in at
// most 18 digits, which always fit an int64: two such values are equal
// exactly when their numbers are, so their ids can be found by number.
// Every other value is found by its text, in ids.
func canonicalInt(x history.Value) (int64, bool) {
	if x.Kind() != history.Int {
		return 0, false
	}
	t := x.Text()
	neg := len(t) > 0 && t[0] == '-'
	if neg {
		t = t[1:]
	}
	if len(t) == 0 || len(t) > 18 || t[0] == '0' && (len(t) > 1 || neg) {
		return 0, false
	}
	var n int64
	for i := 0; i < len(t); i++ {
		d := t[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int64(d)
	}
	if neg {
		n = -n
	}
	return n, true
}

// reserve says to expect n more values (see reserved).
func (v *kvValues) reserve(n int) {
	v.lock()
	defer v.unlock()
	v.reserved += n
}

func (v *kvValues) add(e kvEntry) int64 {
	id := int64(len(v.vals))
	v.vals = append(v.vals, e)
	return id
}

// addString adds a string known to be new; the caller holds mu.
func (v *kvValues) addString(e kvEntry) int64 {
	k := bucketKey(e.hash, e.n)
	first, _ := v.buckets.get(k)
	e.next = int32(first)
	id := v.add(e)
	v.buckets.put(k, id)
	return id
}

// text returns the text of string id (nil counts as ""); the caller holds mu.
func (v *kvValues) text(id int64) string {
	e := &v.vals[id]
	if e.leaf >= 0 {
		return v.leaves[e.leaf].Text()
	}
	buf := make([]byte, e.n)
	for end := e.n; e.leaf < 0; e = &v.vals[e.parent] {
		suf := v.text(int64(e.suffix))
		end -= int64(len(suf))
		copy(buf[end:], suf)
	}
	if e.isString() {
		copy(buf, v.leaves[e.leaf].Text())
	}
	return string(buf)
}

// equalsText reports whether string id (nil counting as "") has text t,
// without building its text; the caller holds mu.
func (v *kvValues) equalsText(id int64, t string) bool {
	for {
		e := &v.vals[id]
		if e.leaf >= 0 {
			if !e.isString() {
				return t == ""
			}
			return v.leaves[e.leaf].Text() == t
		}
		if e.n != int64(len(t)) {
			return false
		}
		k := len(t) - int(v.vals[e.suffix].n)
		if !v.equalsText(int64(e.suffix), t[k:]) {
			return false
		}
		id, t = int64(e.parent), t[:k]
	}
}

func (v *kvValues) value(id int64) history.Value {
	if n, ok := idInt(id); ok {
		return history.IntValue(n)
	}
	v.rlock()
	defer v.runlock()
	if id <= 0 || id >= int64(len(v.vals)) {
		return history.Value{}
	}
	if e := &v.vals[id]; e.leaf >= 0 {
		return v.leaves[e.leaf]
	}
	return history.StringValue(v.text(id))
}

// appendTo returns the id of the string value s followed by suffix, where
// nil counts as "", and false if s is neither a string nor nil. It is the
// one place where Step adds to the table, and it keeps Step pure (see
// kvValues): the id it returns depends only on the texts of s and suffix.
func (v *kvValues) appendTo(s, suffix int64) (int64, bool) {
	if s <= 0 || suffix <= 0 {
		// An integer (intID), or not an id: its key below would be
		// another's.
		return 0, false
	}
	key := uint64(s)<<32 | uint64(suffix)
	if !v.single {
		// Look under the read lock first; a single-goroutine table goes
		// straight to the walk below, which finds the node just the same.
		v.rlock()
		id, legal, known := v.known(s, suffix, key)
		v.runlock()
		if known {
			return id, legal
		}
		v.lock()
		defer v.unlock()
	}
	if r, ok := v.appends.get(key); ok {
		return r - 1, true
	}
	bh, bn, ok := v.base(s, suffix)
	if !ok {
		return 0, false
	}
	x := &v.vals[suffix]
	e := kvEntry{hash: bh*rollPow(x.n) + x.hash, n: bn + x.n,
		parent: int32(s), suffix: int32(suffix), leaf: -1}
	k := bucketKey(e.hash, e.n)
	first, _ := v.buckets.get(k)
	for id := first; id != 0; id = int64(v.vals[id].next) {
		if v.vals[id].joins(s, suffix) {
			return id, true // the node an earlier append made
		}
		if v.equalsConcat(id, s, suffix, bn) {
			// The same text under another name (a leaf, or a rope split
			// elsewhere): remember the answer, since comparing texts is
			// slow.
			v.appends.put(key, id+1)
			return id, true
		}
	}
	e.next = int32(first)
	r := v.add(e)
	v.buckets.put(k, r)
	return r, true
}

// base returns the rolling hash and the length of the text of s, which an
// append of suffix extends (nil counts as ""), and false when s is neither
// a string nor nil or either id is not one of the table's; the caller
// holds mu.
func (v *kvValues) base(s, suffix int64) (hash uint64, n int64, ok bool) {
	if s <= 0 || s >= int64(len(v.vals)) || suffix <= 0 || suffix >= int64(len(v.vals)) || s >= 1<<31 || suffix >= 1<<31 {
		return 0, 0, false
	}
	b := &v.vals[s]
	if b.isString() {
		return b.hash, b.n, true
	}
	return 0, 0, b.leaf >= 0 && v.leaves[b.leaf].Kind() == history.Nil
}

// known answers an append of suffix to s from the table as it is, without
// adding to it: an append to a value that is neither a string nor nil is
// illegal, and one taken before finds the string it built, through the
// appends table or its rope node (most appends the search takes again find
// their node by its hash, so that only those whose answer took comparing
// texts need a place in the appends table). known is false when the answer
// needs the walk that may add the string; the caller holds mu.
func (v *kvValues) known(s, suffix int64, key uint64) (id int64, legal, known bool) {
	if r, ok := v.appends.get(key); ok {
		return r - 1, true, true
	}
	bh, bn, ok := v.base(s, suffix)
	if !ok {
		return 0, false, true
	}
	x := &v.vals[suffix]
	first, ok := v.buckets.get(bucketKey(bh*rollPow(x.n)+x.hash, bn+x.n))
	if !ok {
		return 0, false, false
	}
	for id := first; id != 0; id = int64(v.vals[id].next) {
		if v.vals[id].joins(s, suffix) {
			return id, true, true
		}
	}
	return 0, false, false
}

// equalsConcat reports whether string c, which is not the rope node
// joining s and suffix, has the text of s (nil counting as "", of length
// sn) followed by that of suffix; the caller holds mu.
func (v *kvValues) equalsConcat(c, s, suffix, sn int64) bool {
	e := &v.vals[c]
	if e.n != sn+v.vals[suffix].n {
		return false
	}
	t := v.text(c)
	return v.equalsText(s, t[:sn]) && v.equalsText(suffix, t[sn:])
}

// idTable is an open-addressing hash map from uint64 keys to non-zero
// int64 values, without the overhead of a general map on the search's
// hottest path. A key and its value are side by side, so that a lookup
// reads one cache line.
type idTable struct {
	slots []idSlot // value 0: empty slot
	n     int
	bits  uint
}

// idSlot is a key and its value.
type idSlot struct {
	k uint64
	v int64
}

func (t *idTable) slot(k uint64) uint64 { return (k * 0x9e3779b97f4a7c15) >> (64 - t.bits) }

func (t *idTable) get(k uint64) (int64, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.slot(k); ; i = (i + 1) & mask {
		e := &t.slots[i]
		if e.v == 0 {
			return 0, false
		}
		if e.k == k {
			return e.v, true
		}
	}
}

// put sets k to val (non-zero), replacing any value k had.
func (t *idTable) put(k uint64, val int64) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := t.slot(k); ; i = (i + 1) & mask {
		e := &t.slots[i]
		if e.v == 0 {
			*e = idSlot{k: k, v: val}
			t.n++
			return
		}
		if e.k == k {
			e.v = val
			return
		}
	}
}

func (t *idTable) grow() {
	if t.bits == 0 {
		// Small at first: a core's dozens of checks of a few operations
		// each make tables of their own, and fresh pages cost them more
		// than the few doublings a large history's table goes through.
		t.resize(6)
	} else {
		t.resize(t.bits + 1)
	}
}

// reserve makes room for n more keys without growing.
func (t *idTable) reserve(n int) {
	bits := max(t.bits, 6)
	for 2*(t.n+n) > 1<<bits {
		bits++
	}
	if bits > t.bits {
		t.resize(bits)
	}
}

// resize moves the table's keys into 1<<bits slots.
func (t *idTable) resize(bits uint) {
	old := t.slots
	t.bits = bits
	t.slots, t.n = make([]idSlot, 1<<t.bits), 0
	for _, e := range old {
		if e.v != 0 {
			t.put(e.k, e.v)
		}
	}
}

// Value implements Valued: a key's state is its value's id in the
// model's own table (strings that appends built included).
func (m *kv) Value(s int64, _ *Table) (history.Value, bool) {
	v := m.vals.value(s)
	return v, !m.versions && !v.IsNone()
}
