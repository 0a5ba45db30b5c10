package model

import (
	"errors"
	"fmt"
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
// search several keys at once with one model value; it only grows, so use
// one model value per check.
type kv struct {
	info   Info
	init   history.Value
	nilAny bool
	vals   *kvValues
}

// NewKV returns the key-value model: every key is a register that starts at
// opts.Init (default nil, meaning absent), with read, write, cas and append.
func NewKV(opts Options) Model[int64] {
	m := &kv{init: opts.Init, nilAny: opts.NilRead == NilIsAny, vals: newKVValues()}
	if m.init.IsNone() {
		m.init = history.NilValue
	}
	m.info = Info{
		Name: "kv",
		Doc: "A map of independent registers named by each operation's key; every key starts at the initial value " +
			"(nil, absent, by default). Append concatenates strings, and appending to nil appends to \"\".",
		Keyed: true,
		Ops: []OpInfo{
			{Names: []string{"read", "get", "r"}, Value: "any (the value read)", Doc: "returns the key's value"},
			{Names: []string{"write", "put", "w"}, Value: "any (the value written)", Doc: "sets the key's value"},
			{Names: []string{"append"}, Value: "string (the suffix)", Doc: "appends the suffix to the key's string value"},
			{Names: []string{"cas", "compare-and-set"}, Value: "[from to]", Doc: "sets the key's value to \"to\" if it is \"from\""},
		},
	}
	if m.nilAny {
		m.info.Doc += " A read of nil is accepted in every state."
	}
	return m
}

func (m *kv) Info() Info { return m.info }

// Fork returns a copy with a table of its own, for one partition searched
// by one goroutine.
func (m *kv) Fork() Model[int64] {
	c := *m
	c.vals = newKVValues()
	return &c
}

// Compile interns the operation's values in the model's own table (t is not
// used: see the type's comment).
func (m *kv) Compile(op *history.Op, _ *Table) (Op, error) {
	switch op.F {
	case "read", "get", "r":
		v := op.Value
		if v.IsNone() {
			v = history.NilValue
		}
		o := Op{Kind: kvRead, A: m.vals.id(v)}
		if m.nilAny && v.IsNil() {
			o.B = anyRead
		}
		return o, nil
	case "write", "put", "w":
		if op.Value.IsNone() {
			return Op{}, errors.New("write needs a value")
		}
		return Op{Kind: kvWrite, A: m.vals.id(op.Value)}, nil
	case "append":
		if op.Value.Kind() != history.String {
			return Op{}, fmt.Errorf("append needs a string value, got %s", describeValue(op.Value))
		}
		return Op{Kind: kvAppend, A: m.vals.id(op.Value)}, nil
	case "cas", "compare-and-set":
		from, to, err := casArgs(op.Value)
		if err != nil {
			return Op{}, err
		}
		return Op{Kind: kvCAS, A: m.vals.id(from), B: m.vals.id(to)}, nil
	}
	return Op{}, UnknownOpError(m.info, op.F)
}

func (m *kv) Init(*Table) int64 { return m.vals.id(m.init) }

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
	return s, false
}

func (m *kv) Describe(s int64, _ *Table) string { return describeValue(m.vals.value(s)) }

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
	return ""
}

// Keep applies the register's rule (see register.Keep) when no operation
// appends; an append builds on whatever value it finds, so then only reads
// of unknown outcome are dropped. Operations of several keys may be given
// together: observations on other keys only keep more.
func (m *kv) Keep(ops []Op) []bool {
	for i := range ops {
		if ops[i].Kind == kvAppend {
			keep := make([]bool, len(ops))
			for j := range ops {
				keep[j] = !ops[j].Unknown || ops[j].Kind != kvRead
			}
			return keep
		}
	}
	return keepObserved(ops, kvRead, kvWrite, kvCAS)
}

// kvValues interns values to ids (0 is unused) and memoises appends.
// Strings are found by a rolling hash of their text, so that an append's
// result is looked up without hashing the whole concatenation again; the
// hash only narrows the search and every match is confirmed by comparing
// text, so collisions cost time, never correctness.
type kvValues struct {
	mu      sync.RWMutex
	ids     map[history.Value]int64 // values other than strings
	vals    []kvEntry
	buckets map[uint64]int64 // bucket key to the first string id
	// appends maps (value id, suffix id) to the id of the concatenation, or
	// to 0 when the value is not a string.
	appends map[[2]int64]int64
}

// kvEntry is an interned value; for strings also the rolling hash of the
// text, rollBase^len, and the next id with the same bucket key (0 ends the
// chain).
type kvEntry struct {
	val             history.Value
	hash, pow, next uint64
}

// rollBase is the multiplier of the rolling hash (odd, so powers never vanish
// modulo 2^64).
const rollBase = 0x100000001b3

func newKVValues() *kvValues {
	return &kvValues{ids: make(map[history.Value]int64), vals: []kvEntry{{pow: 1}},
		buckets: make(map[uint64]int64), appends: make(map[[2]int64]int64)}
}

func rollHash(s string) (h, pow uint64) {
	pow = 1
	for i := 0; i < len(s); i++ {
		h = h*rollBase + uint64(s[i])
		pow *= rollBase
	}
	return h, pow
}

func bucketKey(h uint64, n int) uint64 { return h ^ uint64(n)*0x9e3779b97f4a7c15 }

func (v *kvValues) id(x history.Value) int64 {
	v.mu.RLock()
	id, ok := v.lookup(x)
	v.mu.RUnlock()
	if ok {
		return id
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if id, ok := v.lookup(x); ok {
		return id
	}
	if x.Kind() == history.String {
		h, pw := rollHash(x.Text())
		return v.addString(x, h, pw)
	}
	id = v.add(x, 0, 1)
	v.ids[x] = id
	return id
}

// lookup finds x's id; the caller holds mu.
func (v *kvValues) lookup(x history.Value) (int64, bool) {
	if x.Kind() != history.String {
		id, ok := v.ids[x]
		return id, ok
	}
	text := x.Text()
	h, _ := rollHash(text)
	for id := v.buckets[bucketKey(h, len(text))]; id != 0; id = int64(v.vals[id].next) {
		if v.vals[id].val.Text() == text {
			return id, true
		}
	}
	return 0, false
}

func (v *kvValues) add(x history.Value, h, pw uint64) int64 {
	id := int64(len(v.vals))
	v.vals = append(v.vals, kvEntry{val: x, hash: h, pow: pw})
	return id
}

// addString adds a string known to be new, with its hash; the caller holds mu.
func (v *kvValues) addString(x history.Value, h, pw uint64) int64 {
	id := v.add(x, h, pw)
	k := bucketKey(h, len(x.Text()))
	v.vals[id].next = uint64(v.buckets[k])
	v.buckets[k] = id
	return id
}

func (v *kvValues) value(id int64) history.Value {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if id <= 0 || id >= int64(len(v.vals)) {
		return history.Value{}
	}
	return v.vals[id].val
}

// appendTo returns the id of the string value s followed by suffix, where
// nil counts as "", and false if s is neither a string nor nil.
func (v *kvValues) appendTo(s, suffix int64) (int64, bool) {
	key := [2]int64{s, suffix}
	v.mu.RLock()
	r, ok := v.appends[key]
	v.mu.RUnlock()
	if ok {
		return r, r != 0
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if r, ok := v.appends[key]; ok {
		return r, r != 0
	}
	if s <= 0 || s >= int64(len(v.vals)) || suffix <= 0 || suffix >= int64(len(v.vals)) {
		return 0, false
	}
	var base string
	var bh uint64
	switch b := v.vals[s].val; b.Kind() {
	case history.Nil:
	case history.String:
		base, bh = b.Text(), v.vals[s].hash
	default:
		v.appends[key] = 0
		return 0, false
	}
	suf := v.vals[suffix].val.Text()
	h := bh*v.vals[suffix].pow + v.vals[suffix].hash
	n := len(base) + len(suf)
	r = 0
	for id := v.buckets[bucketKey(h, n)]; id != 0; id = int64(v.vals[id].next) {
		if t := v.vals[id].val.Text(); len(t) == n && t[:len(base)] == base && t[len(base):] == suf {
			r = id
			break
		}
	}
	if r == 0 {
		pw := v.vals[suffix].pow
		if base != "" {
			pw *= v.vals[s].pow
		}
		r = v.addString(history.StringValue(base+suf), h, pw)
	}
	v.appends[key] = r
	return r, true
}
