package elle

import (
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// This file finds fractured reads, the anomaly monotonic atomic view
// rules out (Bailis et al., "Highly Available Transactions"): once a
// transaction has observed one of T's effects, its later reads observe
// all of them. A committed transaction that read T's write to one key and
// later, in its own order, read another key T wrote without T's write
// saw T only in part. Elle has no such anomaly (it checks monotonic
// atomic view as read committed); histcheck names it fractured-read, as
// Cerone et al. and Plume name a read atomic violation of this shape.

// observation is what a transaction observed of a writer: the key and
// value (the element read, for list-append) at mop.
type observation struct {
	key, value history.Value
	mop        int
}

// fracturedCase is a fractured read: reader (Txns[0]) observed writer
// (Txns[1]) through obs, then read Key at Mop without writer's Element.
func fracturedCase(reader, writer, mop int, key, missed history.Value, obs observation) Case {
	return Case{Name: "fractured-read", Txns: []int{reader, writer}, Key: key, Mop: mop, Element: missed,
		Values: []history.Value{obs.key, obs.value}}
}

// fracturedAppends finds list-append's fractured reads: a committed
// transaction whose read of one key holds an element T appended, and
// whose later read of another key T appended to lacks T's element.
func fracturedAppends(txns []txn.Txn) []Case {
	writer := map[keyVal]int{}
	// appended lists, per transaction that appended to more than one
	// key, its elements per key: only those can be seen in part.
	appended := map[int]map[history.Value][]history.Value{}
	for ti := range txns {
		t := &txns[ti]
		if t.Status == history.Fail {
			continue
		}
		per := map[history.Value][]history.Value{}
		for _, m := range t.Mops {
			if m.Kind == txn.Append {
				writer[keyVal{m.Key, m.Value}] = ti
				per[m.Key] = append(per[m.Key], m.Value)
			}
		}
		if len(per) > 1 {
			appended[ti] = per
		}
	}
	var out []Case
	for ti := range txns {
		if txns[ti].Committed() {
			out = append(out, fracturedIn(ti, txns[ti].Mops, writer, appended)...)
		}
	}
	return out
}

// fracturedIn checks one committed transaction's external reads in its
// order, reporting each writer seen in part once.
func fracturedIn(ti int, mops []txn.Mop, writer map[keyVal]int, appended map[int]map[history.Value][]history.Value) []Case {
	var out []Case
	observed := map[int]observation{}
	var order []int // the writers observed, in the order first observed
	reported := map[int]bool{}
	wrote := map[history.Value]bool{}
	for mi, m := range mops {
		if m.Kind != txn.Read {
			wrote[m.Key] = true
			continue
		}
		if wrote[m.Key] {
			continue // not an external read
		}
		elems := m.Value.Elems()
		read := make(map[history.Value]bool, len(elems))
		for _, e := range elems {
			read[e] = true
		}
		for _, w := range order {
			obs := observed[w]
			if reported[w] || obs.key == m.Key {
				continue
			}
			for _, e := range appended[w][m.Key] {
				if !read[e] {
					out = append(out, fracturedCase(ti, w, mi, m.Key, e, obs))
					reported[w] = true
					break
				}
			}
		}
		for _, e := range elems {
			w, ok := writer[keyVal{m.Key, e}]
			if !ok || w == ti || appended[w] == nil {
				continue
			}
			if _, seen := observed[w]; !seen {
				observed[w] = observation{key: m.Key, value: e, mop: mi}
				order = append(order, w)
			}
		}
	}
	return out
}

// fracturedRegisters finds rw-register's fractured reads: a committed
// transaction that read T's last write to one key, and later read
// another key T wrote at a version the inferred version order puts
// before T's (the initial state, at least).
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
		observed := map[int]observation{}
		var order []int
		reported := map[int]bool{}
		wrote := map[history.Value]bool{}
		for mi, m := range t.Mops {
			if m.Kind != txn.Read {
				wrote[m.Key] = true
				continue
			}
			if wrote[m.Key] {
				continue
			}
			for _, w := range order {
				obs := observed[w]
				v, ok := finals[w][m.Key]
				if reported[w] || obs.key == m.Key || !ok || v == m.Value || !a.before(succ, m.Key, m.Value, v) {
					continue
				}
				a.cases = append(a.cases, fracturedCase(ti, w, mi, m.Key, v, obs))
				reported[w] = true
			}
			w, ok := a.writers[keyVal{m.Key, m.Value}]
			if !ok || !w.final || w.txn == ti || len(finals[w.txn]) < 2 {
				continue
			}
			if _, seen := observed[w.txn]; !seen {
				observed[w.txn] = observation{key: m.Key, value: m.Value, mop: mi}
				order = append(order, w.txn)
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
