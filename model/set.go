package model

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/histcheck/histcheck/history"
)

// Operation codes of the set model (Op.Kind).
const (
	setAdd uint8 = iota
	setRead
)

// set is a grow-only set of values. A state is the sorted Table ids of its
// elements, each written as a uvarint: a string, so states are comparable
// and exact for any number of elements. A compiled add has A = the
// element's id; a read has A = the id, in reads, of the encoding of the
// elements it returned (or B = anyRead), and B = repeatedRead, C = the
// element's id, when it returned an element more than once.
type set struct {
	info    Info
	init    []history.Value
	initErr error
	nilAny  bool
	reads   *Interner[string]
}

// repeatedRead, in Op.B of a compiled set read, marks a read that returned
// an element twice: no state of a set holds it, so it is never legal.
const repeatedRead = 2

// NewSet returns the set model (Knossos's set): add puts a value in the
// set, read returns the whole set. It starts empty, or with the elements of
// opts.Init when that is a list or set.
//
// A read may be a list in any order, but a list that holds an element twice
// is illegal in every state, as Porcupine's set test has it: a set holds
// each element once, so such a read shows a fault (a duplicated delivery,
// say) that a verdict must not hide.
func NewSet(opts Options) Model[string] {
	m := &set{nilAny: opts.NilRead == NilIsAny, reads: new(Interner[string])}
	m.init, m.initErr = initElems("set", opts.Init)
	m.info = Info{
		Name: "set",
		Doc:  "A set of values that only grows; it starts empty (or with the elements of an initial list or set).",
		Ops: []OpInfo{
			{Names: []string{"add"}, Value: "any (the element added)", Doc: "adds the element; adding one already present changes nothing"},
			{Names: []string{"read", "r"}, Value: "list or set (every element read, in any order; an element read twice is a violation)", Doc: "returns the whole set", Class: ReadOp},
		},
	}
	if m.nilAny {
		m.info.Doc += " A read of nil is accepted in every state."
	}
	return m
}

func (m *set) Info() Info { return m.info }

// Compile interns an add's element, and the elements a completed read
// returned as one encoding. A read of unknown outcome observed nothing, so
// its value is not looked at.
func (m *set) Compile(op *history.Op, t *Table) (Op, error) {
	if m.initErr != nil {
		return Op{}, m.initErr
	}
	switch op.F {
	case "add":
		if op.Value.IsNone() {
			return Op{}, fmt.Errorf("add needs the element added")
		}
		return Op{Kind: setAdd, A: t.ID(op.Value)}, nil
	case "read", "r":
		o := Op{Kind: setRead}
		switch v := op.Value; {
		case op.Status == history.Info:
		case v.IsNil() && m.nilAny:
			o.B = anyRead
		case v.Kind() == history.List || v.Kind() == history.Set:
			ids := make([]int64, 0, v.Len())
			for _, e := range v.Elems() {
				ids = append(ids, t.ID(e))
			}
			if dup, ok := firstRepeat(ids); ok {
				o.B, o.C = repeatedRead, dup
			}
			o.A = m.reads.ID(encodeSet(ids))
		default:
			return Op{}, fmt.Errorf("read needs a list or set of the elements read, got %s", describeShape(v))
		}
		return o, nil
	}
	return Op{}, UnknownOpError(m.info, op.F)
}

func (m *set) Init(t *Table) string {
	ids := make([]int64, len(m.init))
	for i, v := range m.init {
		ids[i] = t.ID(v)
	}
	return encodeSet(ids)
}

func (m *set) Step(s string, op *Op) (string, bool) {
	switch op.Kind {
	case setAdd:
		next, _ := insertID(s, op.A, true)
		return next, true
	case setRead:
		return s, op.Unknown || op.B == anyRead || op.B != repeatedRead && m.reads.At(op.A) == s
	}
	return s, false
}

func (m *set) Describe(s string, t *Table) string {
	return "#{" + joinValues(decodeIDs(s), t, true) + "}"
}

// Explain names the elements a read missed and those it should not have seen.
func (m *set) Explain(s string, op *Op, t *Table) string {
	if op.Kind != setRead {
		return ""
	}
	if op.Unknown || op.B == anyRead {
		return ""
	}
	got := m.reads.At(op.A)
	if op.B == repeatedRead {
		return fmt.Sprintf("read %s twice, but a set holds each element once (read %s)", describeValue(t.Value(op.C)), m.Describe(got, t))
	}
	missing, extra := diffSorted(decodeIDs(s), decodeIDs(got))
	var why []string
	if len(missing) > 0 {
		why = append(why, "missing "+joinValues(missing, t, true))
	}
	if len(extra) > 0 {
		why = append(why, "not in the set: "+joinValues(extra, t, true))
	}
	return fmt.Sprintf("read %s but the set holds %s (%s)", m.Describe(got, t), m.Describe(s, t), strings.Join(why, "; "))
}

// Keep drops reads of unknown outcome, and adds of unknown outcome whose
// element no completed read returned.
//
// Why this is exact: dropping optional operations only removes orders, so
// a valid verdict stays valid. Conversely, once an add of x takes effect
// every later read contains x; if no completed read contains x, a legal
// order places the add after every completed read (or never), and then
// deleting it changes nothing any completed operation sees.
func (m *set) Keep(ops []Op) []bool {
	observed := make(map[int64]bool)
	for i := range ops {
		o := &ops[i]
		if o.Kind == setRead && !o.Unknown && o.B != anyRead {
			// A read with a repeat is never legal, so it needs no add
			// kept for it; counting its elements keeps more than needed,
			// which is still exact.
			for _, id := range decodeIDs(m.reads.At(o.A)) {
				observed[id] = true
			}
		}
	}
	keep := make([]bool, len(ops))
	for i := range ops {
		o := &ops[i]
		switch {
		case !o.Unknown:
			keep[i] = true
		case o.Kind == setAdd:
			keep[i] = observed[o.A]
		}
	}
	return keep
}

// firstRepeat returns the first id of ids that an earlier one equals.
func firstRepeat(ids []int64) (int64, bool) {
	seen := make(map[int64]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			return id, true
		}
		seen[id] = true
	}
	return 0, false
}

// initElems reads the initial contents of a collection model: none or nil
// for empty, else a list or set.
func initElems(name string, v history.Value) ([]history.Value, error) {
	switch v.Kind() {
	case history.None, history.Nil:
		return nil, nil
	case history.List, history.Set:
		return v.Elems(), nil
	}
	return nil, fmt.Errorf("the %s model's initial value must be a list of elements or nil (empty), got %s; give --init nil (or init: nil in the file) to start empty",
		name, describeShape(v))
}

// describeShape names a value for an error about its shape.
func describeShape(v history.Value) string {
	switch v.Kind() {
	case history.None:
		return "no value"
	case history.Nil:
		return "nil"
	}
	return fmt.Sprintf("%s %s", v.Kind(), v)
}

// The collection models encode a list of Table ids as a string of
// uvarints: compact (one byte per id below 128), comparable, and exact.

func appendID(b []byte, id int64) []byte { return binary.AppendUvarint(b, uint64(id)) }

// nextID decodes the id at the start of s and returns it with its length
// in bytes; s must be a well-formed encoding.
func nextID(s string) (int64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b < 0x80 {
			return int64(x | uint64(b)<<shift), i + 1
		}
		x |= uint64(b&0x7f) << shift
		shift += 7
	}
	return 0, len(s)
}

func decodeIDs(s string) []int64 {
	var ids []int64
	for len(s) > 0 {
		id, n := nextID(s)
		ids = append(ids, id)
		s = s[n:]
	}
	return ids
}

// encodeSet encodes ids sorted, without repeats.
func encodeSet(ids []int64) string {
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var b []byte
	for i, id := range ids {
		if i == 0 || id != ids[i-1] {
			b = appendID(b, id)
		}
	}
	return string(b)
}

// insertID inserts id into the sorted encoding s, after any equal ids; with
// unique, an id already present is not inserted again. It reports whether
// s changed.
func insertID(s string, id int64, unique bool) (string, bool) {
	at := len(s)
	for off := 0; off < len(s); {
		x, n := nextID(s[off:])
		if x == id && unique {
			return s, false
		}
		if x > id {
			at = off
			break
		}
		off += n
	}
	b := make([]byte, 0, len(s)+binary.MaxVarintLen64)
	b = append(b, s[:at]...)
	b = appendID(b, id)
	b = append(b, s[at:]...)
	return string(b), true
}

// removeID removes the first occurrence of id from the encoding s, and
// reports whether there was one.
func removeID(s string, id int64) (string, bool) {
	for off := 0; off < len(s); {
		x, n := nextID(s[off:])
		if x == id {
			return s[:off] + s[off+n:], true
		}
		off += n
	}
	return s, false
}

// diffSorted returns the ids of want missing from got and those of got not
// in want, both sorted.
func diffSorted(want, got []int64) (missing, extra []int64) {
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j == len(got) || i < len(want) && want[i] < got[j]:
			missing = append(missing, want[i])
			i++
		case i == len(want) || got[j] < want[i]:
			extra = append(extra, got[j])
			j++
		default:
			i++
			j++
		}
	}
	return missing, extra
}

// joinValues renders ids as their values separated by spaces, ordered by
// value when sorted is set, so that reports read naturally.
func joinValues(ids []int64, t *Table, sorted bool) string {
	vals := make([]history.Value, len(ids))
	for i, id := range ids {
		vals[i] = t.Value(id)
	}
	if sorted {
		sort.SliceStable(vals, func(i, j int) bool { return history.Compare(vals[i], vals[j]) < 0 })
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = describeValue(v)
	}
	return strings.Join(parts, " ")
}
