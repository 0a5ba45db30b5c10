package elle

import (
	"fmt"
	"slices"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// The list-append inference works on numbers rather than values: each key
// gets an id at its first appearance, each micro-operation a position in
// one array (its transaction's base plus its index), and the writer of
// each element is looked up once. Histories hold millions of
// micro-operations, and maps keyed by values cost more than the rest of
// the inference together.

// appendWriter says which micro-operation appended an element.
type appendWriter struct {
	txn, mop int32
}

// appendAnalysis is the list-append inference of one history.
type appendAnalysis struct {
	txns  []txn.Txn
	cases []Case
	// keys are the keys by id, in the order of their first appearance.
	keys []history.Value
	// base[t] is the position of transaction t's first micro-operation;
	// mopKey and final are indexed by position: the key's id, and
	// whether the micro-operation is its transaction's last append to
	// its key.
	base   []int32
	mopKey []int32
	final  []bool
	// appendOff and appendAt list each key's appends in history order:
	// those of key k are appendAt[appendOff[k]:appendOff[k+1]]. The
	// writer of each element is looked up in a small table per key,
	// built where the key is ordered: one table for the whole history
	// would not fit in any cache.
	appendOff []int32
	appendAt  []appendWriter
	// appendsOf lists, per key, the transactions that did not fail and
	// append to it.
	appendsOf [][]int32
	// reads are the committed reads of each key without repeated
	// elements, in history order.
	reads [][]readOf
	// longestAt is, by position, where the longest read of its key
	// shows an append (-1: it does not); readLen is, by position, the
	// number of elements of a committed read that is a prefix of its
	// key's longest read (-1: any other micro-operation). Fractured reads
	// are found with them, with no value looked up again.
	longestAt, readLen []int32
	// versions are the keys' versions, by id.
	versions []*version
	// longestOf is each key's longest read: its version order.
	longestOf [][]history.Value
}

// readOf is one committed read, by its micro-operation: 16 bytes, for
// the millions a long history holds.
type readOf struct {
	txn, mop int32
	// n is the number of elements read.
	n int32
	// external reports that the transaction had not written the key
	// before this read.
	external bool
}

// readValue is the list r read. A read is a prefix of another exactly
// when its encoding is a prefix of the other's, which spares decoding
// most reads.
func (a *appendAnalysis) readValue(r *readOf) history.Value {
	return a.txns[r.txn].Mops[r.mop].Value
}

// readElems returns the elements r read (nil for none).
func (a *appendAnalysis) readElems(r *readOf) []history.Value {
	if r.n == 0 {
		return nil
	}
	return a.readValue(r).AppendElems(make([]history.Value, 0, r.n))
}

// listText is the encoding of the elements of a value read as a list
// (none for nil or a scalar, which read as the empty list).
func listText(v history.Value) string {
	if v.Kind() < history.List {
		return ""
	}
	return v.Text()
}

// pos is the position of micro-operation mi of transaction t.
func (a *appendAnalysis) pos(t, mi int) int32 { return a.base[t] + int32(mi) }

// inferAppends infers the dependency graph of a list-append history and
// the anomalies found on the way; it leaves the fractured reads, which
// need no graph, to the caller (appendAnalysis.fracturedReads).
func inferAppends(txns []txn.Txn) (*Graph, *appendAnalysis, error) {
	a := &appendAnalysis{txns: txns}
	a.indexKeys()
	// The appends and the reads are indexed at once: neither needs the
	// other.
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.indexWrites()
	}()
	a.indexReads()
	<-done
	g, err := a.orderKeys()
	if err != nil {
		return nil, nil, err
	}
	return g, a, nil
}

// negatives returns n int32s, each -1.
func negatives(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

// indexKeys numbers the keys and the micro-operations.
func (a *appendAnalysis) indexKeys() {
	a.base = make([]int32, len(a.txns)+1)
	total := 0
	for ti := range a.txns {
		a.base[ti] = int32(total)
		total += len(a.txns[ti].Mops)
	}
	a.base[len(a.txns)] = int32(total)
	a.mopKey = make([]int32, total)
	var ids keyIDs
	// The appends of each key and the reads of committed transactions,
	// counted, so that their lists are made once.
	var appends, reads []int32
	for ti := range a.txns {
		committed := a.txns[ti].Committed()
		for mi, m := range a.txns[ti].Mops {
			id, ok := ids.get(m.Key)
			if !ok {
				id = int32(len(a.keys))
				ids.set(m.Key, id)
				a.keys = append(a.keys, m.Key)
				appends, reads = append(appends, 0), append(reads, 0)
			}
			a.mopKey[a.pos(ti, mi)] = id
			switch {
			case m.Kind == txn.Append:
				appends[id]++
			case committed:
				reads[id]++
			}
		}
	}
	a.appendOff = make([]int32, len(a.keys)+1)
	for k, n := range appends {
		a.appendOff[k+1] = a.appendOff[k] + n
	}
	a.appendAt = make([]appendWriter, a.appendOff[len(a.keys)])
	a.appendsOf = make([][]int32, len(a.keys))
	a.reads = make([][]readOf, len(a.keys))
	nreads := 0
	for _, n := range reads {
		nreads += int(n)
	}
	backing := make([]readOf, nreads)
	for k, n := range reads {
		a.reads[k], backing = backing[:0:n], backing[n:]
	}
	a.longestAt, a.readLen = negatives(total), negatives(total)
	a.versions = make([]*version, len(a.keys))
	a.longestOf = make([][]history.Value, len(a.keys))
}

// smallNat returns v as a small non-negative integer, if it is one: the
// keys and elements of most histories are, and an array indexed by them
// costs less than a map hashing their text.
func smallNat(v history.Value, limit int) (int, bool) {
	if v.Kind() != history.Int || len(v.Text()) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range []byte(v.Text()) {
		if c < '0' || c > '9' {
			return 0, false // a sign
		}
		n = n*10 + int(c-'0')
	}
	return n, n < limit
}

// keyIDs numbers keys: small integers in an array, others in a map.
type keyIDs struct {
	dense []int32 // id+1 of key n; 0: none yet
	other map[history.Value]int32
}

// maxDenseKey bounds the keys numbered in the array.
const maxDenseKey = 1 << 20

func (ids *keyIDs) get(k history.Value) (int32, bool) {
	if n, ok := smallNat(k, maxDenseKey); ok {
		if n < len(ids.dense) && ids.dense[n] > 0 {
			return ids.dense[n] - 1, true
		}
		return 0, false
	}
	id, ok := ids.other[k]
	return id, ok
}

func (ids *keyIDs) set(k history.Value, id int32) {
	if n, ok := smallNat(k, maxDenseKey); ok {
		if n >= len(ids.dense) {
			ids.dense = append(ids.dense, make([]int32, n+1-len(ids.dense))...)
		}
		ids.dense[n] = id + 1
		return
	}
	if ids.other == nil {
		ids.other = map[history.Value]int32{}
	}
	ids.other[k] = id
}

// indexWrites lists each key's appends and finds the last append of each
// transaction to each key.
func (a *appendAnalysis) indexWrites() {
	a.final = make([]bool, len(a.mopKey))
	fill := slices.Clone(a.appendOff[:len(a.keys)])
	var last map[int32]int
	for ti := range a.txns {
		t := &a.txns[ti]
		keys := a.mopKey[a.base[ti]:a.base[ti+1]]
		last = lastAppends(t.Mops, keys, last)
		for mi, m := range t.Mops {
			if m.Kind != txn.Append {
				continue
			}
			k := keys[mi]
			a.appendAt[fill[k]] = appendWriter{txn: int32(ti), mop: int32(mi)}
			fill[k]++
			final := isLastAppend(t.Mops, keys, mi, last)
			a.final[a.pos(ti, mi)] = final
			if final && t.Status != history.Fail {
				a.appendsOf[k] = append(a.appendsOf[k], int32(ti))
			}
		}
	}
}

// writersOf fills out's table of key k's elements and their writers. An
// element appended twice to one key makes the history unreadable, since
// the order of a key's appends is read off its elements: it returns the
// second append of the first such element, and the first.
func (a *appendAnalysis) writersOf(k int32, out *keyOutput) (dup, first appendWriter, ok bool) {
	appends := a.appendAt[a.appendOff[k]:a.appendOff[k+1]]
	out.writers.reset(len(appends))
	for _, w := range appends {
		if prev, seen := out.writers.put(a.txns[w.txn].Mops[w.mop].Value, w); seen {
			return w, prev, true
		}
	}
	return appendWriter{}, appendWriter{}, false
}

// writerTable maps one key's elements to their writers: small integers
// (the rule: Jepsen appends 1, 2, 3, … to each key) in an array, the
// others in a map.
type writerTable struct {
	dense []appendWriter // txn+1 in txn; 0: none
	used  []int          // the entries of dense set, to clear them
	limit int
	other map[history.Value]appendWriter
}

// reset empties the table for a key of n appends.
func (t *writerTable) reset(n int) {
	for _, i := range t.used {
		t.dense[i] = appendWriter{}
	}
	t.used = t.used[:0]
	clear(t.other)
	// Elements far above the number of appends go to the map, so that
	// the array stays small.
	t.limit = 4*n + 64
	if len(t.dense) < t.limit {
		t.dense = make([]appendWriter, t.limit)
	}
}

// put records w as the writer of v, unless v has one: then it returns it.
func (t *writerTable) put(v history.Value, w appendWriter) (appendWriter, bool) {
	if prev, ok := t.get(v); ok {
		return prev, true
	}
	if n, ok := smallNat(v, t.limit); ok {
		t.dense[n] = appendWriter{txn: w.txn + 1, mop: w.mop}
		t.used = append(t.used, n)
		return appendWriter{}, false
	}
	if t.other == nil {
		t.other = map[history.Value]appendWriter{}
	}
	t.other[v] = w
	return appendWriter{}, false
}

// get returns the writer of v.
func (t *writerTable) get(v history.Value) (appendWriter, bool) {
	if n, ok := smallNat(v, t.limit); ok {
		w := t.dense[n]
		return appendWriter{txn: w.txn - 1, mop: w.mop}, w.txn > 0
	}
	w, ok := t.other[v]
	return w, ok
}

// duplicateError says which element was appended twice.
func (a *appendAnalysis) duplicateError(dup, first appendWriter) error {
	m := a.txns[dup.txn].Mops[dup.mop]
	return duplicate(true, m.Key, m.Value, fmt.Errorf("%s is appended to key %s twice (%s); "+
		"list-append needs each key's elements to be unique", m.Value, m.Key, where(a.txns[first.txn].Op, a.txns[dup.txn].Op)))
}

// lastAppends maps each key to the position of the transaction's last
// append to it, for transactions too long to scan (nil for the others,
// the rule: a few micro-operations each). It reuses m.
func lastAppends(mops []txn.Mop, keys []int32, m map[int32]int) map[int32]int {
	if len(mops) <= 16 {
		return nil
	}
	if m == nil {
		m = map[int32]int{}
	}
	clear(m)
	for mi, op := range mops {
		if op.Kind == txn.Append {
			m[keys[mi]] = mi
		}
	}
	return m
}

// isLastAppend reports whether no later micro-operation of the
// transaction appends to mops[mi]'s key; last is lastAppends' map.
func isLastAppend(mops []txn.Mop, keys []int32, mi int, last map[int32]int) bool {
	if last != nil {
		return last[keys[mi]] == mi
	}
	for j := mi + 1; j < len(mops); j++ {
		if mops[j].Kind == txn.Append && keys[j] == keys[mi] {
			return false
		}
	}
	return true
}

// indexReads collects the committed reads, checking each transaction's
// reads against its own earlier micro-operations (internal) and for
// repeated elements (duplicate-elements). A long history's transactions
// are read in parts, one per worker, whose reads and cases are then put
// together in history order.
func (a *appendAnalysis) indexReads() {
	parts := 1
	if len(a.txns) >= 1<<14 {
		parts = workers
	}
	a.indexReadsIn(parts)
}

// indexReadsIn is indexReads in the given number of parts.
func (a *appendAnalysis) indexReadsIn(parts int) {
	reads := make([][][]readOf, parts)
	cases := make([][]Case, parts)
	reads[0] = a.reads // the first part fills the index itself
	parallel(parts, func(i int) {
		if i > 0 {
			reads[i] = make([][]readOf, len(a.keys))
		}
		lo, hi := i*len(a.txns)/parts, (i+1)*len(a.txns)/parts
		cases[i] = a.indexReadsOf(lo, hi, reads[i])
	})
	for i := range parts {
		if i > 0 {
			for k, rs := range reads[i] {
				a.reads[k] = append(a.reads[k], rs...)
			}
		}
		a.cases = append(a.cases, cases[i]...)
	}
}

// indexReadsOf is indexReads of transactions lo to hi: it appends their
// reads to reads, by key, and returns their cases.
func (a *appendAnalysis) indexReadsOf(lo, hi int, reads [][]readOf) []Case {
	var cases []Case
	st := newInternalState()
	var dec listDecoder
	// clean[k] is the longest read of k so far without repeated
	// elements (cleanLen[k] of them): its prefixes have none either.
	clean := make([]string, len(a.keys))
	cleanLen := make([]int, len(a.keys))
	touched := make([]int32, len(a.keys))
	for ti := lo; ti < hi; ti++ {
		t := &a.txns[ti]
		if !t.Committed() {
			continue // the reads of a failed or crashed transaction are unknown
		}
		keys := a.mopKey[a.base[ti]:a.base[ti+1]]
		// A transaction that touches each key once knows nothing of a
		// key before it reads it: it has no internal anomaly to check.
		// Nor does it need to follow what it knows: each of its reads is
		// external.
		alone := touchesOnce(keys, touched, int32(ti+1))
		if !alone {
			st.reset()
		}
		for mi, m := range t.Mops {
			k := keys[mi]
			if m.Kind == txn.Append {
				if !alone {
					st.append(k, m.Value)
				}
				continue
			}
			r := readOf{txn: int32(ti), mop: int32(mi), external: alone || !st.wrote[k]}
			var decoded []history.Value
			if alone {
				r.n = int32(m.Value.NumElems())
			} else {
				decoded = dec.decode(m.Value)
				r.n = int32(len(decoded))
				if c, bad := st.check(ti, mi, m, k, decoded, t.Mops[mi+1:], keys[mi+1:]); bad {
					cases = append(cases, c)
				}
			}
			if text := listText(m.Value); !strings.HasPrefix(clean[k], text) {
				list := decoded
				if list == nil {
					list = dec.scratch(m.Value)
				}
				from := 0
				if strings.HasPrefix(text, clean[k]) {
					from = cleanLen[k] // the elements of clean[k] are known distinct
				}
				if d, ok := dec.duplicates(list, from); ok {
					cases = append(cases, Case{Name: "duplicate-elements", Txns: []int{ti}, Key: m.Key, Mop: mi, Element: d,
						Values: []history.Value{m.Value}})
					if !alone {
						st.read(k, decoded)
					}
					continue
				}
				if len(text) > len(clean[k]) {
					clean[k], cleanLen[k] = text, len(list)
				}
			}
			reads[k] = append(reads[k], r)
			if !alone {
				st.read(k, decoded)
			}
		}
	}
	return cases
}

// touchesOnce reports whether no key appears twice in keys; touched[k]
// is set to stamp, unique to the transaction, for each key seen.
func touchesOnce(keys []int32, touched []int32, stamp int32) bool {
	for _, k := range keys {
		if touched[k] == stamp {
			return false
		}
		touched[k] = stamp
	}
	return true
}

// listDecoder decodes the lists read into large shared arenas, or into a
// buffer when they are not kept, and keeps the set the duplicate test of
// long lists reuses.
type listDecoder struct {
	arena, buf []history.Value
	seen       map[history.Value]bool
}

// scratch returns v's elements in a buffer the next call reuses.
func (d *listDecoder) scratch(v history.Value) []history.Value {
	d.buf = v.AppendElems(d.buf[:0])
	return d.buf
}

const arenaChunk = 1 << 16

// decode returns v's elements, in the arena.
func (d *listDecoder) decode(v history.Value) []history.Value {
	if cap(d.arena)-len(d.arena) < arenaChunk/16 {
		d.arena = make([]history.Value, 0, arenaChunk)
	}
	start := len(d.arena)
	d.arena = v.AppendElems(d.arena)
	if len(d.arena) == start {
		return nil
	}
	// The full slice expression keeps appends to one list out of the
	// next.
	return d.arena[start:len(d.arena):len(d.arena)]
}

// duplicates returns the first element of list that repeats an earlier
// one, knowing that the first from elements are distinct. Reads are short
// lists as a rule (keys retire after a few appends), which a pairwise
// scan handles faster than a set.
func (d *listDecoder) duplicates(list []history.Value, from int) (history.Value, bool) {
	if len(list) <= 16 || len(list)-from <= 2 {
		for j := max(from, 1); j < len(list); j++ {
			for i := 0; i < j; i++ {
				if list[i] == list[j] {
					return list[j], true
				}
			}
		}
		return history.Value{}, false
	}
	if d.seen == nil {
		d.seen = map[history.Value]bool{}
	}
	clear(d.seen)
	for _, v := range list {
		if d.seen[v] {
			return v, true
		}
		d.seen[v] = true
	}
	return history.Value{}, false
}

// internalState is what a transaction knows of each key (by id) from its
// own micro-operations: the whole list after a read, or only the
// elements it appended since (a suffix) when it has not read the key.
type internalState struct {
	known  map[int32][]history.Value
	whole  map[int32]bool
	wrote  map[int32]bool
	suffix map[int32][]history.Value
}

func newInternalState() *internalState {
	return &internalState{known: map[int32][]history.Value{}, whole: map[int32]bool{},
		wrote: map[int32]bool{}, suffix: map[int32][]history.Value{}}
}

// reset forgets what the previous transaction knew, keeping the maps.
func (s *internalState) reset() {
	clear(s.known)
	clear(s.whole)
	clear(s.wrote)
	clear(s.suffix)
}

func (s *internalState) append(k int32, v history.Value) {
	s.wrote[k] = true
	if s.whole[k] {
		s.known[k] = append(append([]history.Value(nil), s.known[k]...), v)
		return
	}
	s.suffix[k] = append(s.suffix[k], v)
}

func (s *internalState) read(k int32, list []history.Value) {
	s.known[k], s.whole[k] = list, true
	delete(s.suffix, k)
}

// check compares a read of key k with what the transaction knows: an
// internal anomaly when they differ, a future-read when the read holds an
// element the transaction appends only later (later and laterKeys are
// the micro-operations after the read and their keys).
func (s *internalState) check(ti, mi int, m txn.Mop, k int32, list []history.Value, later []txn.Mop, laterKeys []int32) (Case, bool) {
	for j, n := range later {
		if n.Kind == txn.Append && laterKeys[j] == k && slices.Contains(list, n.Value) {
			return Case{Name: "future-read", Txns: []int{ti}, Key: m.Key, Mop: mi, Element: n.Value}, true
		}
	}
	if s.whole[k] {
		if !slices.Equal(s.known[k], list) {
			return Case{Name: "internal", Txns: []int{ti}, Key: m.Key, Mop: mi, Values: s.known[k]}, true
		}
		return Case{}, false
	}
	suf := s.suffix[k]
	if len(suf) > 0 && (len(list) < len(suf) || !slices.Equal(list[len(list)-len(suf):], suf)) {
		// Values holds the appended suffix; the explanation says "ending with".
		return Case{Name: "internal", Txns: []int{ti}, Key: m.Key, Mop: mi, Values: suf, Element: history.StringValue("suffix")}, true
	}
	return Case{}, false
}
