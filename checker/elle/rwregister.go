package elle

import (
	"fmt"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// registerAnalysis is the rw-register inference of one history. Reads
// return single values, so a key's version order is known only in part:
// the initial state (nil) comes before every written value, and a
// transaction that read v and then wrote v' puts v before v'.
type registerAnalysis struct {
	txns    []txn.Txn
	g       *Graph
	cases   []Case
	writers map[keyVal]elemWriter
	keys    []history.Value
	// readers lists the committed external reads of each version.
	readers map[keyVal][]int
	// pairs holds each key's inferred version order, pair by pair, in
	// the order found (so that reports do not vary from run to run).
	pairs map[history.Value][]vpair
	// written lists each key's committed (or possibly committed) writes.
	written map[history.Value][]history.Value
	// readsOf lists each key's external reads in history order.
	readsOf map[history.Value][]keyRead
}

type vpair struct{ v, next history.Value }

type keyRead struct {
	v   history.Value
	txn int
}

func analyzeRegisters(txns []txn.Txn) (*Graph, []Case, error) {
	a := &registerAnalysis{txns: txns, g: newGraph(len(txns)), writers: map[keyVal]elemWriter{},
		readers: map[keyVal][]int{}, pairs: map[history.Value][]vpair{},
		written: map[history.Value][]history.Value{}, readsOf: map[history.Value][]keyRead{}}
	if err := a.indexWrites(); err != nil {
		return nil, nil, err
	}
	a.indexReads()
	for _, k := range a.keys {
		a.keyDeps(k)
	}
	return a.g, a.cases, nil
}

func (a *registerAnalysis) indexWrites() error {
	seenKey := map[history.Value]bool{}
	for ti := range a.txns {
		t := &a.txns[ti]
		last := map[history.Value]int{}
		for mi, m := range t.Mops {
			if !seenKey[m.Key] {
				seenKey[m.Key] = true
				a.keys = append(a.keys, m.Key)
			}
			if m.Kind == txn.Write {
				last[m.Key] = mi
			}
		}
		for mi, m := range t.Mops {
			if m.Kind != txn.Write {
				continue
			}
			if m.Value.IsNil() {
				return fmt.Errorf("operation %d writes nil to key %s; nil is the initial state of every register", t.Op, m.Key)
			}
			kv := keyVal{m.Key, m.Value}
			if prev, dup := a.writers[kv]; dup {
				return fmt.Errorf("%s is written to key %s twice (transactions at operations %d and %d); "+
					"rw-register needs each key's written values to be unique", m.Value, m.Key, a.txns[prev.txn].Op, t.Op)
			}
			a.writers[kv] = elemWriter{txn: ti, mop: mi, final: last[m.Key] == mi}
			if last[m.Key] == mi && t.Status != history.Fail {
				a.written[m.Key] = append(a.written[m.Key], m.Value)
			}
		}
	}
	return nil
}

// indexReads checks each committed transaction's reads against its own
// micro-operations (internal), finds reads of failed (G1a) and
// intermediate (G1b) writes, and collects the external reads and the
// version orders they give.
func (a *registerAnalysis) indexReads() {
	for ti := range a.txns {
		t := &a.txns[ti]
		if !t.Committed() {
			continue
		}
		known := map[history.Value]history.Value{}
		external := map[history.Value]history.Value{} // the first read of each key, before any own write
		for mi, m := range t.Mops {
			if m.Kind == txn.Write {
				if r, ok := external[m.Key]; ok && a.firstWrite(t, m.Key, mi) {
					a.order(m.Key, r, m.Value)
				}
				known[m.Key] = m.Value
				continue
			}
			if v, ok := known[m.Key]; ok {
				if v != m.Value {
					a.cases = append(a.cases, Case{Name: "internal", Txns: []int{ti}, Key: m.Key, Mop: mi, Values: []history.Value{v}})
				}
				continue
			}
			known[m.Key], external[m.Key] = m.Value, m.Value
			a.readers[keyVal{m.Key, m.Value}] = append(a.readers[keyVal{m.Key, m.Value}], ti)
			a.readsOf[m.Key] = append(a.readsOf[m.Key], keyRead{v: m.Value, txn: ti})
			a.dirtyRead(ti, mi, m)
		}
	}
}

// firstWrite reports whether mi is t's first write of k.
func (a *registerAnalysis) firstWrite(t *txn.Txn, k history.Value, mi int) bool {
	for _, m := range t.Mops[:mi] {
		if m.Kind == txn.Write && m.Key == k {
			return false
		}
	}
	return true
}

func (a *registerAnalysis) dirtyRead(ti, mi int, m txn.Mop) {
	if m.Value.IsNil() {
		return
	}
	w, ok := a.writers[keyVal{m.Key, m.Value}]
	if !ok {
		return // a value nobody wrote: Elle draws no conclusion from it, nor do we
	}
	switch {
	case a.txns[w.txn].Status == history.Fail:
		a.cases = append(a.cases, Case{Name: "G1a", Txns: []int{ti, w.txn}, Key: m.Key, Mop: mi, Element: m.Value})
	case !w.final && w.txn != ti:
		a.cases = append(a.cases, Case{Name: "G1b", Txns: []int{ti, w.txn}, Key: m.Key, Mop: mi, Element: m.Value})
	}
}

// order records that version v of k came before v'.
func (a *registerAnalysis) order(k, v, next history.Value) {
	a.pairs[k] = append(a.pairs[k], vpair{v, next})
}

// keyDeps adds k's dependencies: the initial state precedes every
// committed write; each inferred pair of versions gives ww and rw; each
// external read of a written value gives wr. A cycle among the versions is
// cyclic-versions.
func (a *registerAnalysis) keyDeps(k history.Value) {
	for _, v := range a.written[k] {
		a.order(k, history.NilValue, v)
	}
	a.cyclicVersions(k)
	for _, p := range a.pairs[k] {
		v, n := p.v, p.next
		{
			nw, ok := a.writers[keyVal{k, n}]
			if !ok || a.txns[nw.txn].Status == history.Fail {
				continue
			}
			read := v
			if v.IsNil() {
				read = history.Value{}
			}
			if w, ok := a.writers[keyVal{k, v}]; ok && a.txns[w.txn].Status != history.Fail {
				a.g.add(w.txn, nw.txn, Why{Type: WW, Key: k, Value: v, Next: n})
			}
			for _, r := range a.readers[keyVal{k, v}] {
				a.g.add(r, nw.txn, Why{Type: RW, Key: k, Value: read, Next: n})
			}
		}
	}
	for _, r := range a.readsOf[k] {
		if r.v.IsNil() {
			continue
		}
		w, ok := a.writers[keyVal{k, r.v}]
		if !ok || a.txns[w.txn].Status == history.Fail {
			continue
		}
		a.g.add(w.txn, r.txn, Why{Type: WR, Key: k, Value: r.v})
	}
}

// cyclicVersions reports a cycle in k's inferred version order.
func (a *registerAnalysis) cyclicVersions(k history.Value) {
	const (
		white = iota
		grey
		black
	)
	next := map[history.Value][]history.Value{}
	for _, p := range a.pairs[k] {
		next[p.v] = append(next[p.v], p.next)
	}
	colour := map[history.Value]int{}
	var stack []history.Value
	var found []history.Value
	var visit func(v history.Value) bool
	visit = func(v history.Value) bool {
		colour[v] = grey
		stack = append(stack, v)
		for _, n := range next[v] {
			switch colour[n] {
			case grey:
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i] == n {
						found = append([]history.Value(nil), stack[i:]...)
						return true
					}
				}
			case white:
				if visit(n) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		colour[v] = black
		return false
	}
	for _, p := range a.pairs[k] {
		if colour[p.v] == white && visit(p.v) {
			var ts []int
			for _, v := range found {
				if w, ok := a.writers[keyVal{k, v}]; ok {
					ts = append(ts, w.txn)
				}
			}
			a.cases = append(a.cases, Case{Name: "cyclic-versions", Txns: ts, Key: k, Mop: -1, Values: found})
			return
		}
	}
}
