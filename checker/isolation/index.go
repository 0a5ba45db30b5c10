package isolation

import (
	"fmt"
	"slices"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// node is a transaction of the index: 0 is the initial transaction, which
// writes every key's initial value before everything else.
type node = int32

const initial node = 0

// read is one external read of a committed transaction: the first read of
// a key the transaction has not written before it, or a later one.
type read struct {
	key int32
	src node  // the transaction whose final write it returned
	mop int32 // its position in the transaction
}

// index is a history's committed transactions as the levels see them:
// sessions, external reads with their sources, final writes.
type index struct {
	h    *history.History
	txns []txn.Txn
	// op is each node's transaction (position in txns and h.Ops); -1 for
	// the initial transaction.
	op       []int
	sess     []int32 // -1 for the initial transaction
	pos      []int32 // position in its session
	sessions [][]node
	reads    [][]read
	// writes are each node's keys, with the final value written, sorted
	// by key.
	writes [][]int32
	keys   []history.Value
	// vals are the values each node wrote last, parallel to writes.
	vals [][]history.Value
	// readers lists, per node and key it wrote, the nodes that read that
	// write (external reads; a node once per key); indexReaders fills it.
	readers map[uint64][]node
	// issues are the reads no commit order can explain (ThinAirRead,
	// AbortedRead, ...), found while indexing.
	issues []Issue
	init   history.Value
}

// Issue is a read that no commit order explains, found from the
// transaction and the writes alone, under its pattern's name.
type Issue struct {
	Pattern string
	Txn     int // op position of the reading transaction
	Mop     int
	Key     history.Value
	Value   history.Value
	// Writer is the transaction that wrote Value (op position), or -1.
	Writer int
	// Own is the transaction's own write the read should have returned.
	Own history.Value
}

type keyVal struct {
	key int32
	val history.Value
}

// writeIndex finds a write by its key and value. Each key's writes are
// indexed apart; those of small non-negative integers, as stores that
// count each key's versions write, in a slice by value, and the others in
// a map. A read mostly returns one of its key's recent writes, which the
// slice keeps near each other, where one map of every write grows out of
// the caches: on a million transactions the maps took a third of a causal
// check.
type writeIndex []keyWrites

// keyWrites are one key's writes.
type keyWrites struct {
	// dense holds the writes of values 0 to len-1 (txn -1: none).
	dense []writeRef
	other map[history.Value]writeRef
	count int
}

// denseSlack bounds dense's length to 4·count+denseSlack, so that a key
// whose values are spread out (a counter shared by every key) uses the
// map rather than a slice mostly empty.
const denseSlack = 8

func (w writeIndex) get(kv keyVal) (writeRef, bool) {
	if int(kv.key) >= len(w) {
		return writeRef{}, false
	}
	kw := &w[kv.key]
	if x, ok := kv.val.Int(); ok && x >= 0 && x < int64(len(kw.dense)) && kw.dense[x].txn >= 0 {
		return kw.dense[x], true
	}
	r, ok := kw.other[kv.val] // a value put before the slice reached it
	return r, ok
}

func (w *writeIndex) put(kv keyVal, r writeRef) {
	for int(kv.key) >= len(*w) {
		*w = append(*w, keyWrites{})
	}
	kw := &(*w)[kv.key]
	kw.count++
	if x, ok := kv.val.Int(); ok && x >= 0 && x < 4*int64(kw.count)+denseSlack {
		for int64(len(kw.dense)) <= x {
			kw.dense = append(kw.dense, writeRef{txn: -1})
		}
		kw.dense[x] = r
		return
	}
	if kw.other == nil {
		kw.other = map[history.Value]writeRef{}
	}
	kw.other[kv.val] = r
}

type writeRef struct {
	txn   int32
	mop   int32
	final bool
}

// NotUniqueError is a history whose writes are not unique: a value
// written twice to one key, or the initial value written.
type NotUniqueError struct{ Err error }

func (e *NotUniqueError) Error() string { return e.Err.Error() }

// builder holds what build learns on the way.
type builder struct {
	ix     *index
	keyID  map[history.Value]int32
	writes writeIndex
	nodeOf []node
}

// build indexes h's transactions. init is the value every key holds first.
func build(h *history.History, txns []txn.Txn, init history.Value) (*index, error) {
	b := &builder{ix: &index{h: h, txns: txns, init: init}, keyID: map[history.Value]int32{}}
	if err := b.indexWrites(); err != nil {
		return nil, err
	}
	b.chooseNodes()
	b.indexReads()
	return b.ix, nil
}

func (b *builder) intern(k history.Value) int32 {
	id, ok := b.keyID[k]
	if !ok {
		id = int32(len(b.ix.keys))
		b.keyID[k] = id
		b.ix.keys = append(b.ix.keys, k)
	}
	return id
}

// indexWrites finds every write by its key and value (each key's in a
// map of its own: many small maps stay in the caches where one map of
// every write would not), refusing writes that are not unique.
func (b *builder) indexWrites() error {
	h, txns, init := b.ix.h, b.ix.txns, b.ix.init
	last := map[int32]int32{}
	for ti := range txns {
		t := &txns[ti]
		clear(last)
		for mi, m := range t.Mops {
			switch m.Kind {
			case txn.Append:
				return fmt.Errorf("operation %d: %s: the isolation levels of rw-register histories take reads and writes only", ti+1, m)
			case txn.Write:
				last[b.intern(m.Key)] = int32(mi)
			}
		}
		for mi, m := range t.Mops {
			if m.Kind != txn.Write {
				continue
			}
			k := b.keyID[m.Key]
			kv := keyVal{k, m.Value}
			if m.Value == init {
				return &NotUniqueError{history.Errorf(h.Ops[t.Op].Line, "operation %s writes %s to key %s, the initial value, so a read of it names no single write",
					h.Ops[t.Op].Label(), m.Value, m.Key)}
			}
			if prev, dup := b.writes.get(kv); dup {
				return &NotUniqueError{history.Errorf(h.Ops[t.Op].Line, "value %s is written to key %s twice (by %s and %s): the levels need unique writes",
					m.Value, m.Key, h.Ops[txns[prev.txn].Op].Label(), h.Ops[t.Op].Label())}
			}
			b.writes.put(kv, writeRef{txn: int32(ti), mop: int32(mi), final: last[k] == int32(mi)})
		}
	}
	return nil
}

// chooseNodes numbers the transactions the levels order: every committed
// one, and those of unknown outcome some committed one read from (they
// committed); the others need not have, and leaving them out only removes
// constraints. Sessions are processes.
func (b *builder) chooseNodes() {
	ix, txns := b.ix, b.ix.txns
	needed := make([]bool, len(txns))
	for ti := range txns {
		t := &txns[ti]
		if !t.Committed() {
			continue
		}
		needed[ti] = true
		for _, m := range t.Mops {
			if m.Kind != txn.Read {
				continue
			}
			if id, ok := b.keyID[m.Key]; ok {
				if w, ok := b.writes.get(keyVal{id, m.Value}); ok && txns[w.txn].Status == history.Info {
					needed[w.txn] = true
				}
			}
		}
	}
	b.nodeOf = make([]node, len(txns))
	ix.op = append(make([]int, 0, len(txns)+1), -1)
	ix.sess = append(make([]int32, 0, len(txns)+1), -1)
	ix.pos = append(make([]int32, 0, len(txns)+1), -1)
	sessOf := map[int]int32{}
	for ti := range txns {
		b.nodeOf[ti] = -1
		if !needed[ti] {
			continue
		}
		n := node(len(ix.op))
		b.nodeOf[ti] = n
		s, ok := sessOf[txns[ti].Process]
		if !ok {
			s = int32(len(ix.sessions))
			sessOf[txns[ti].Process] = s
			ix.sessions = append(ix.sessions, nil)
		}
		ix.op = append(ix.op, ti)
		ix.sess = append(ix.sess, s)
		ix.pos = append(ix.pos, int32(len(ix.sessions[s])))
		ix.sessions[s] = append(ix.sessions[s], n)
	}
}

// indexReads classifies each node's reads and lists its final writes.
func (b *builder) indexReads() {
	ix := b.ix
	n := len(ix.op)
	ix.reads = make([][]read, n)
	ix.writes = make([][]int32, n)
	ix.vals = make([][]history.Value, n)
	// Each node's reads, keys and values are cut from arenas, as many as
	// the micro-operations (three small slices per node cost more to
	// allocate and grow than the reading itself).
	mops := 0
	for v := 1; v < n; v++ {
		mops += len(ix.txns[ix.op[v]].Mops)
	}
	reads, keys, vals := make([]read, 0, mops), make([]int32, 0, mops), make([]history.Value, 0, mops)
	own := map[int32]history.Value{}
	ownAll := map[keyVal]bool{}
	for v := 1; v < n; v++ {
		t := &ix.txns[ix.op[v]]
		clear(own)
		clear(ownAll)
		ix.reads[v] = reads[len(reads) : len(reads) : len(reads)+len(t.Mops)]
		for mi, m := range t.Mops {
			if m.Kind == txn.Write {
				k := b.keyID[m.Key]
				own[k] = m.Value
				ownAll[keyVal{k, m.Value}] = true
				continue
			}
			if t.Committed() { // the reads of a transaction of unknown outcome are unknown
				ix.readOne(t, mi, m, b.keyID, b.writes, b.nodeOf, own, ownAll, v)
			}
		}
		reads = reads[:len(reads)+len(ix.reads[v])]
		at := len(keys)
		for k := range own {
			keys = append(keys, k)
		}
		ix.writes[v] = keys[at:len(keys):len(keys)]
		slices.Sort(ix.writes[v])
		for _, k := range ix.writes[v] {
			vals = append(vals, own[k])
		}
		ix.vals[v] = vals[at:len(vals):len(vals)]
	}
}

// indexReaders fills readers, which only the searches need.
func (ix *index) indexReaders() {
	if ix.readers != nil {
		return
	}
	ix.readers = map[uint64][]node{}
	var seen []int32
	for v := 1; v < len(ix.reads); v++ {
		seen = seen[:0]
		for _, r := range ix.reads[v] {
			if !slices.Contains(seen, r.key) {
				seen = append(seen, r.key)
				ix.readers[pairKey(r.src, r.key)] = append(ix.readers[pairKey(r.src, r.key)], node(v))
			}
		}
	}
}

func pairKey(n node, k int32) uint64 { return uint64(uint32(n))<<32 | uint64(uint32(k)) }

// readOne classifies read m (position mi) of committed node v.
func (ix *index) readOne(t *txn.Txn, mi int, m txn.Mop, keyID map[history.Value]int32, writes writeIndex,
	nodeOf []node, own map[int32]history.Value, ownAll map[keyVal]bool, v int) {
	issue := func(p string, writer int, ownv history.Value) {
		ix.issues = append(ix.issues, Issue{Pattern: p, Txn: t.Op, Mop: mi, Key: m.Key, Value: m.Value, Writer: writer, Own: ownv})
	}
	k, known := keyID[m.Key]
	if known {
		if ov, ok := own[k]; ok {
			switch {
			case ov == m.Value:
			case ownAll[keyVal{k, m.Value}]:
				issue("NotMyLastWrite", -1, ov)
			default:
				issue("NotMyOwnWrite", -1, ov)
			}
			return
		}
	}
	if m.Value == ix.init {
		if !known {
			k = int32(len(ix.keys))
			keyID[m.Key] = k
			ix.keys = append(ix.keys, m.Key)
		}
		ix.reads[v] = append(ix.reads[v], read{key: k, src: initial, mop: int32(mi)})
		return
	}
	w, ok := writes.get(keyVal{k, m.Value})
	switch {
	case !known || !ok:
		issue("ThinAirRead", -1, history.Value{})
	case int(w.txn) == ix.op[v]:
		issue("FutureRead", -1, history.Value{})
	case ix.txns[w.txn].Status == history.Fail:
		issue("AbortedRead", ix.txns[w.txn].Op, history.Value{})
	case !w.final:
		issue("IntermediateRead", ix.txns[w.txn].Op, history.Value{})
	default:
		ix.reads[v] = append(ix.reads[v], read{key: k, src: nodeOf[w.txn], mop: int32(mi)})
	}
}

// writesKey reports whether node v's final writes include key k.
func (ix *index) writesKey(v node, k int32) bool {
	if v == initial {
		return true
	}
	_, ok := slices.BinarySearch(ix.writes[v], k)
	return ok
}

// opOf is node v's operation position, or checker.Initial.
func (ix *index) opOf(v node) int {
	if v == initial {
		return -2
	}
	return ix.txns[ix.op[v]].Op
}
