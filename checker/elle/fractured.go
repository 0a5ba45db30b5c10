package elle

import (
	"sync"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// This file finds fractured reads, the anomaly monotonic atomic view
// rules out (Bailis et al., "Highly Available Transactions": if a
// transaction reads a version that T wrote, a later read of its own
// cannot return a value older than T's write of that object). A
// committed transaction that read T's write to one key and later, in its
// own order, read another key T wrote without T's write saw T only in
// part. The other order, a read that misses T and a later one that sees
// it, is allowed: a store that takes a snapshot per statement, as
// PostgreSQL's read committed does, shows it, and monotonic atomic view
// ("once a write of T1 is observed by T2, all effects of T1 should be
// visible to T2") constrains only what follows the observation. Ruling
// out both orders is Cerone et al.'s read atomic, a stronger level. Elle
// has no such anomaly (it checks monotonic atomic view as read
// committed); histcheck names it fractured-read, as Cerone et al. and
// Plume name a read atomic violation of this shape.

// observation is what a transaction observed of a writer: the key and
// value (the element read, for list-append) at mop.
type observation struct {
	key, value history.Value
	mop        int
}

// fracturedCase is a fractured read: reader (Txns[0]) observed writer
// (Txns[1]) through obs, and read Key at Mop without writer's Element.
func fracturedCase(reader, writer, mop int, key, missed history.Value, obs observation) Case {
	return Case{Name: "fractured-read", Txns: []int{reader, writer}, Key: key, Mop: mop, Element: missed,
		Values: []history.Value{obs.key, obs.value}}
}

// twoKeys reports whether micro-operations of kind k touch two keys or
// more.
func twoKeys(mops []txn.Mop, k txn.Kind) bool {
	first := -1
	for i, m := range mops {
		if m.Kind != k {
			continue
		}
		if first < 0 {
			first = i
		} else if m.Key != mops[first].Key {
			return true
		}
	}
	return false
}

// externalRead is one read of a key the transaction had not written
// before it.
type externalRead struct {
	mop int
	key history.Value
}

// externalReads lists a transaction's external reads, in its order.
func externalReads(mops []txn.Mop) []externalRead {
	var out []externalRead
	var wrote map[history.Value]bool
	for mi, m := range mops {
		if m.Kind != txn.Read {
			if wrote == nil {
				wrote = map[history.Value]bool{}
			}
			wrote[m.Key] = true
			continue
		}
		if !wrote[m.Key] {
			out = append(out, externalRead{mop: mi, key: m.Key})
		}
	}
	return out
}

// observer keeps, for one reader, the writers it observed in the order
// first observed, and where.
type observer struct {
	order []int
	obs   map[int][]observation
}

func (o *observer) add(w int, ob observation) {
	if o.obs == nil {
		o.obs = map[int][]observation{}
	}
	if _, ok := o.obs[w]; !ok {
		o.order = append(o.order, w)
	}
	o.obs[w] = append(o.obs[w], ob)
}

// elsewhere is an observation of w through a key other than k, made by a
// read before the one at mop.
func (o *observer) elsewhere(w int, k history.Value, mop int) (observation, bool) {
	for _, ob := range o.obs[w] {
		if ob.key != k && ob.mop < mop {
			return ob, true
		}
	}
	return observation{}, false
}

// fracturedRegisters finds rw-register's fractured reads: a committed
// transaction that read T's last write to one key, and later read another
// key T wrote at a version the inferred version order puts before T's (the
// initial state, at least).
func (a *registerAnalysis) fracturedRegisters() {
	// final writes, per transaction writing more than one key.
	finals := map[int]map[history.Value]history.Value{}
	for kv, w := range a.writers {
		if w.final && a.txns[w.txn].Status != history.Fail {
			if finals[w.txn] == nil {
				finals[w.txn] = map[history.Value]history.Value{}
			}
			finals[w.txn][kv.k] = kv.v
		}
	}
	succ := map[history.Value]map[history.Value][]history.Value{}
	for ti := range a.txns {
		t := &a.txns[ti]
		if !t.Committed() {
			continue
		}
		reads := externalReads(t.Mops)
		var seen observer
		for _, r := range reads {
			v := t.Mops[r.mop].Value
			if w, ok := a.writers[keyVal{r.key, v}]; ok && w.final && w.txn != ti && len(finals[w.txn]) > 1 {
				seen.add(w.txn, observation{key: r.key, value: v, mop: r.mop})
			}
		}
		reported := map[int]bool{}
		for _, r := range reads {
			got := t.Mops[r.mop].Value
			for _, w := range seen.order {
				v, ok := finals[w][r.key]
				if reported[w] || !ok || v == got {
					continue
				}
				ob, ok := seen.elsewhere(w, r.key, r.mop)
				if !ok || !a.before(succ, r.key, got, v) {
					continue
				}
				a.cases = append(a.cases, fracturedCase(ti, w, r.mop, r.key, v, ob))
				reported[w] = true
			}
		}
	}
}

// before reports whether key k's inferred version order puts v before
// v2: v is the initial state, or a chain of known pairs leads from v to
// v2. succ caches each key's successors.
func (a *registerAnalysis) before(succ map[history.Value]map[history.Value][]history.Value, k, v, v2 history.Value) bool {
	if v.IsNil() {
		return true
	}
	next, ok := succ[k]
	if !ok {
		next = map[history.Value][]history.Value{}
		if vo := a.versions[k]; vo != nil {
			for _, p := range vo.pairs {
				next[p.v] = append(next[p.v], p.next)
			}
		}
		succ[k] = next
	}
	seen := map[history.Value]bool{v: true}
	stack := []history.Value{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, y := range next[x] {
			if y == v2 {
				return true
			}
			if !seen[y] {
				seen[y] = true
				stack = append(stack, y)
			}
		}
	}
	return false
}

// fracturedReads finds list-append's fractured reads: a committed
// transaction whose read of one key holds an element T appended, and
// whose later read of another key T appended to lacks T's element. It
// runs on the inferred versions: the writers of a read that is a prefix
// of its key's longest read are those of the longest read's first
// elements, and an append is in such a read when its place in the longest
// read comes before the read's end. Only other reads (of repeated
// elements, or incompatible with the longest) are decoded and looked up
// by value. Transactions are searched in parts, in parallel, and the
// parts' findings joined in their order.
func (a *appendAnalysis) fracturedReads() []Case {
	// Only a transaction that appended to two keys or more can be seen
	// in part.
	multi := make([]bool, len(a.txns))
	anyMulti := false
	for ti := range a.txns {
		t := &a.txns[ti]
		multi[ti] = t.Status != history.Fail && a.twoKeys(ti, txn.Append)
		anyMulti = anyMulti || multi[ti]
	}
	if !anyMulti {
		return nil
	}
	f := &fractureSearch{a: a, multi: multi}
	parts := 1
	if len(a.txns) >= 1<<12 {
		parts = 4 * workers
	}
	outs := make([][]Case, parts)
	// A scratch space per worker, not per part: each holds arrays the
	// length of the history. The readers' stamps are unique in the whole
	// history, so a part may use another's.
	scratches := make(chan *fractureScratch, parts)
	parallel(parts, func(i int) {
		var s *fractureScratch
		select {
		case s = <-scratches:
		default:
			s = newFractureScratch(len(a.txns), len(a.keys))
		}
		defer func() { scratches <- s }()
		for ti := i * len(a.txns) / parts; ti < (i+1)*len(a.txns)/parts; ti++ {
			if a.txns[ti].Committed() && a.twoKeys(ti, txn.Read) {
				outs[i] = f.in(ti, s, outs[i])
			}
		}
	})
	var out []Case
	for _, o := range outs {
		out = append(out, o...)
	}
	return out
}

// twoKeys reports whether micro-operations of kind k of transaction ti
// touch two keys or more.
func (a *appendAnalysis) twoKeys(ti int, k txn.Kind) bool {
	keys := a.mopKey[a.base[ti]:a.base[ti+1]]
	first := int32(-1)
	for i, m := range a.txns[ti].Mops {
		if m.Kind != k {
			continue
		}
		if first < 0 {
			first = keys[i]
		} else if keys[i] != first {
			return true
		}
	}
	return false
}

// fractureSearch is what the search for fractured reads shares between
// its parts.
type fractureSearch struct {
	a *appendAnalysis
	// multi marks the transactions that did not fail and appended to two
	// keys or more.
	multi []bool
	// byValue maps a key and element to its writer among those, for the
	// reads the versions do not cover; made when first needed.
	byValueOnce sync.Once
	byValue     map[keyVal]int32
}

// seenAt is one observation of a writer: the key (by id) and element
// read, at mop.
type seenAt struct {
	key   int32
	mop   int32
	value history.Value
}

// writerSeen is what a reader observed of one writer: its first
// observation and the first through another key than that one, which
// are all that finding an observation through a key other than a given
// one needs.
type writerSeen struct {
	txn             int32
	first, other    seenAt
	hasOther, found bool
}

// fractureScratch is one part's scratch space, reused from reader to
// reader: slot[w] is w's place in seen while stamp[w] is the reader's.
type fractureScratch struct {
	stamp, slot []int32
	wrote       []int32 // wrote[k] is the reader's stamp once it appended to k
	seen        []writerSeen
	reads       []int32 // the reader's external reads
	elems       []history.Value
}

func newFractureScratch(txns, keys int) *fractureScratch {
	return &fractureScratch{stamp: make([]int32, txns), slot: make([]int32, txns), wrote: make([]int32, keys)}
}

// observe records that the reader (stamp) saw writer w's element through
// key k at mop.
func (s *fractureScratch) observe(stamp, w int32, at seenAt) {
	if s.stamp[w] != stamp {
		s.stamp[w], s.slot[w] = stamp, int32(len(s.seen))
		s.seen = append(s.seen, writerSeen{txn: w, first: at})
		return
	}
	ws := &s.seen[s.slot[w]]
	if !ws.hasOther && at.key != ws.first.key {
		ws.other, ws.hasOther = at, true
	}
}

// elsewhere is ws's first observation through a key other than k, made
// by a read before mop.
func (ws *writerSeen) elsewhere(k, mop int32) (seenAt, bool) {
	at, ok := ws.first, true
	if at.key == k {
		at, ok = ws.other, ws.hasOther
	}
	return at, ok && at.mop < mop
}

// in checks one committed transaction's external reads in its order: a
// writer observed through one key and missed on another by a later read
// is reported once. It appends what it finds to out.
func (f *fractureSearch) in(ti int, s *fractureScratch, out []Case) []Case {
	a := f.a
	mops := a.txns[ti].Mops
	keys := a.mopKey[a.base[ti]:a.base[ti+1]]
	stamp := int32(ti + 1)
	s.reads, s.seen = s.reads[:0], s.seen[:0]
	for mi, m := range mops {
		if m.Kind != txn.Read {
			s.wrote[keys[mi]] = stamp
		} else if s.wrote[keys[mi]] != stamp {
			s.reads = append(s.reads, int32(mi))
		}
	}
	// What the last read observes is never used: a miss counts only
	// after an observation, by a later read.
	for _, mi := range s.reads[:max(len(s.reads)-1, 0)] {
		f.observeRead(ti, mi, s)
	}
	if len(s.seen) == 0 {
		return out
	}
	for _, mi := range s.reads {
		k, n := keys[mi], a.readLen[a.pos(ti, int(mi))]
		var got map[history.Value]bool // the read's elements, when it is no prefix
		for i := range s.seen {
			ws := &s.seen[i]
			if ws.found {
				continue
			}
			at, ok := ws.elsewhere(k, mi)
			if !ok {
				continue
			}
			w := int(ws.txn)
			for wj, m := range a.txns[w].Mops {
				p := a.pos(w, wj)
				if m.Kind != txn.Append || a.mopKey[p] != k {
					continue
				}
				var in bool
				if n >= 0 {
					in = a.longestAt[p] >= 0 && a.longestAt[p] < n
				} else {
					if got == nil {
						got = map[history.Value]bool{}
						for _, e := range mops[mi].Value.Elems() {
							got[e] = true
						}
					}
					in = got[m.Value]
				}
				if !in {
					out = append(out, fracturedCase(ti, w, int(mi), a.keys[k], m.Value,
						observation{key: a.keys[at.key], value: at.value, mop: int(at.mop)}))
					ws.found = true
					break
				}
			}
		}
	}
	return out
}

// observeRead records the writers whose elements read mi of transaction
// ti shows: from its key's version when it is a prefix of the longest
// read, else by value.
func (f *fractureSearch) observeRead(ti int, mi int32, s *fractureScratch) {
	a := f.a
	p := a.pos(ti, int(mi))
	k, stamp := a.mopKey[p], int32(ti+1)
	if n := a.readLen[p]; n >= 0 {
		ver := a.versions[k]
		for i := range n {
			w, ok := ver.writers[i], ver.known[i]
			if ok && f.multi[w.txn] && int(w.txn) != ti {
				s.observe(stamp, w.txn, seenAt{key: k, mop: mi, value: ver.longest[i]})
			}
		}
		return
	}
	f.byValueOnce.Do(f.indexByValue)
	m := a.txns[ti].Mops[mi]
	s.elems = m.Value.AppendElems(s.elems[:0])
	for _, e := range s.elems {
		if w, ok := f.byValue[keyVal{m.Key, e}]; ok && int(w) != ti {
			s.observe(stamp, w, seenAt{key: k, mop: mi, value: e})
		}
	}
}

// indexByValue maps each key and element appended by a transaction of
// multi to the transaction (the last such, in history order).
func (f *fractureSearch) indexByValue() {
	f.byValue = map[keyVal]int32{}
	for ti := range f.a.txns {
		if !f.multi[ti] {
			continue
		}
		for _, m := range f.a.txns[ti].Mops {
			if m.Kind == txn.Append {
				f.byValue[keyVal{m.Key, m.Value}] = int32(ti)
			}
		}
	}
}
