package elle

import (
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

// fracturedAppends finds list-append's fractured reads: a committed
// transaction whose read of one key holds an element T appended, and
// whose later read of another key T appended to lacks T's element.
func fracturedAppends(txns []txn.Txn) []Case {
	// Only a transaction that appended to two keys or more can be seen
	// in part, and only one that read two keys or more can see it so:
	// the others are left out of the index, which keeps it small.
	writer := map[keyVal]int32{}
	for ti := range txns {
		t := &txns[ti]
		if t.Status == history.Fail || !twoKeys(t.Mops, txn.Append) {
			continue
		}
		for _, m := range t.Mops {
			if m.Kind == txn.Append {
				writer[keyVal{m.Key, m.Value}] = int32(ti)
			}
		}
	}
	if len(writer) == 0 {
		return nil
	}
	var out []Case
	var d listDecoder
	for ti := range txns {
		if txns[ti].Committed() && twoKeys(txns[ti].Mops, txn.Read) {
			out = append(out, fracturedIn(txns, ti, writer, &d)...)
		}
	}
	return out
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

// fracturedIn checks one committed transaction's external reads in its
// order: a writer observed through one key and missed on another by a
// later read is reported once.
func fracturedIn(txns []txn.Txn, ti int, writer map[keyVal]int32, d *listDecoder) []Case {
	mops := txns[ti].Mops
	reads := externalReads(mops)
	var seen observer
	for _, r := range reads {
		for _, e := range d.scratch(mops[r.mop].Value) {
			if w, ok := writer[keyVal{r.key, e}]; ok && int(w) != ti {
				seen.add(int(w), observation{key: r.key, value: e, mop: r.mop})
			}
		}
	}
	if len(seen.order) == 0 {
		return nil
	}
	var out []Case
	reported := map[int]bool{}
	for _, r := range reads {
		var got map[history.Value]bool // r's elements, made when needed
		for _, w := range seen.order {
			if reported[w] {
				continue
			}
			ob, ok := seen.elsewhere(w, r.key, r.mop)
			if !ok {
				continue
			}
			for _, m := range txns[w].Mops {
				if m.Kind != txn.Append || m.Key != r.key {
					continue
				}
				if got == nil {
					got = map[history.Value]bool{}
					for _, e := range d.scratch(mops[r.mop].Value) {
						got[e] = true
					}
				}
				if !got[m.Value] {
					out = append(out, fracturedCase(ti, w, r.mop, r.key, m.Value, ob))
					reported[w] = true
					break
				}
			}
		}
	}
	return out
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
