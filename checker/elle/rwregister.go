package elle

import (
	"fmt"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// registerAnalysis is the rw-register inference of one history. Reads
// return single values, so a key's version order is known only in part:
// the initial state (nil) comes before every other version, and the
// assumptions asked for (Options) add what they imply (versions.go).
type registerAnalysis struct {
	txns    []txn.Txn
	h       *history.History
	opts    Options
	g       *Graph
	cases   []Case
	writers map[keyVal]elemWriter
	keys    []history.Value
	// readers lists the committed external reads of each version.
	readers map[keyVal][]int
	// versions holds each key's inferred version order, pair by pair, in
	// the order found (so that reports do not vary from run to run).
	versions map[history.Value]*versionOrder
	// readsOf lists each key's external reads in history order.
	readsOf map[history.Value][]keyRead
}

type vpair struct{ v, next history.Value }

type keyRead struct {
	v   history.Value
	txn int
}

func analyzeRegisters(txns []txn.Txn, h *history.History, o Options) (*Graph, []Case, error) {
	a, err := inferRegisters(txns, h, o)
	if err != nil {
		return nil, nil, err
	}
	for _, k := range a.keys {
		a.keyDeps(k)
	}
	a.fracturedRegisters()
	return a.g, a.cases, nil
}

// inferRegisters indexes the reads and writes, finds the anomalies they
// show directly and infers the version orders.
func inferRegisters(txns []txn.Txn, h *history.History, o Options) (*registerAnalysis, error) {
	a := &registerAnalysis{txns: txns, h: h, opts: o, g: newGraph(len(txns)), writers: map[keyVal]elemWriter{},
		readers: map[keyVal][]int{}, versions: map[history.Value]*versionOrder{}, readsOf: map[history.Value][]keyRead{}}
	if err := a.indexWrites(); err != nil {
		return nil, err
	}
	a.indexReads()
	a.inferVersions()
	return a, nil
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
				return duplicate(false, m.Key, m.Value, fmt.Errorf("%s is written to key %s twice (%s); "+
					"rw-register needs each key's written values to be unique", m.Value, m.Key, where(a.txns[prev.txn].Op, t.Op)))
			}
			a.writers[kv] = elemWriter{txn: ti, mop: mi, final: last[m.Key] == mi}
		}
	}
	return nil
}

// indexReads checks each committed transaction's reads against its own
// micro-operations (internal), finds reads of failed (G1a) and
// intermediate (G1b) writes, and collects the external reads.
func (a *registerAnalysis) indexReads() {
	for ti := range a.txns {
		t := &a.txns[ti]
		if !t.Committed() {
			continue
		}
		known := map[history.Value]history.Value{}
		for mi, m := range t.Mops {
			if m.Kind == txn.Write {
				known[m.Key] = m.Value
				continue
			}
			if v, ok := known[m.Key]; ok {
				if v != m.Value {
					a.cases = append(a.cases, Case{Name: "internal", Txns: []int{ti}, Key: m.Key, Mop: mi, Values: []history.Value{v}})
				}
				continue
			}
			known[m.Key] = m.Value
			a.readers[keyVal{m.Key, m.Value}] = append(a.readers[keyVal{m.Key, m.Value}], ti)
			a.readsOf[m.Key] = append(a.readsOf[m.Key], keyRead{v: m.Value, txn: ti})
			a.dirtyRead(ti, mi, m)
		}
	}
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

// keyDeps adds k's dependencies: each inferred pair of versions v < v'
// gives ww (from v's writer to the writer of v') and rw (from each reader
// of v to the writer of v'); each external read of a written value gives
// wr.
func (a *registerAnalysis) keyDeps(k history.Value) {
	if vo := a.versions[k]; vo != nil {
		for _, p := range vo.pairs {
			a.pairDeps(k, p)
		}
	}
	for _, r := range a.readsOf[k] {
		if r.v.IsNil() {
			continue
		}
		w, ok := a.writers[keyVal{k, r.v}]
		// An intermediate write read is a G1b, not a dependency: Elle
		// draws wr edges from each transaction's last write of a key.
		if !ok || a.txns[w.txn].Status == history.Fail || !w.final {
			continue
		}
		a.g.add(w.txn, r.txn, Why{Type: WR, Key: k, Value: r.v})
	}
}

func (a *registerAnalysis) pairDeps(k history.Value, p vpair) {
	v, n := p.v, p.next
	nw, ok := a.writers[keyVal{k, n}]
	if !ok || a.txns[nw.txn].Status == history.Fail {
		return
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
