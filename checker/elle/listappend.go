package elle

import (
	"fmt"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// Case is one anomaly that is not a cycle: a transaction that saw what no
// order of committed transactions could show it.
type Case struct {
	// Name is the anomaly as Elle spells it (G1a, G1b, internal,
	// dirty-update, ...).
	Name string
	// Txns are the transactions involved, the one that observed first.
	Txns []int
	Key  history.Value
	// Mop is the micro-operation of Txns[0] that shows it (-1: none).
	Mop int
	// Element is the value at fault: the element read (G1a, G1b), the
	// duplicated element.
	Element history.Value
	// Values are the versions or elements the case rests on: the two
	// incompatible reads, the values of a dirty update, what an internal
	// read should have been.
	Values []history.Value
}

// elemWriter says which micro-operation appended (or wrote) a value.
type elemWriter struct {
	txn, mop int
	// final reports that no later micro-operation of the same
	// transaction writes the key again.
	final bool
}

type keyVal struct{ k, v history.Value }

// lastAppends returns, for a key, the position of the transaction's last
// append to it (-1: none). Most transactions are a few micro-operations,
// which a scan serves faster than a map built for each.
func lastAppends(mops []txn.Mop) func(k history.Value) int {
	if len(mops) <= 16 {
		return func(k history.Value) int {
			for i := len(mops) - 1; i >= 0; i-- {
				if mops[i].Kind == txn.Append && mops[i].Key == k {
					return i
				}
			}
			return -1
		}
	}
	last := map[history.Value]int{}
	for mi, m := range mops {
		if m.Kind == txn.Append {
			last[m.Key] = mi
		}
	}
	return func(k history.Value) int {
		if i, ok := last[k]; ok {
			return i
		}
		return -1
	}
}

// version is key k's inferred order: its longest read, with the writer of
// each element looked up once. Most reads are prefixes of the longest and
// share those lookups, which spares a hash of every element of every read.
type version struct {
	k       history.Value
	longest []history.Value
	writers []elemWriter
	known   []bool
}

func (a *appendAnalysis) newVersion(k history.Value, longest []history.Value) *version {
	v := &version{k: k, longest: longest, writers: make([]elemWriter, len(longest)), known: make([]bool, len(longest))}
	for i, e := range longest {
		v.writers[i], v.known[i] = a.writers[keyVal{k, e}]
	}
	return v
}

// writer returns the writer of list[i]; prefix says that list is a prefix
// of the longest read.
func (a *appendAnalysis) writer(ver *version, list []history.Value, i int, prefix bool) (elemWriter, bool) {
	if prefix {
		return ver.writers[i], ver.known[i]
	}
	w, ok := a.writers[keyVal{ver.k, list[i]}]
	return w, ok
}

// appendAnalysis is the list-append inference of one history.
type appendAnalysis struct {
	txns    []txn.Txn
	g       *Graph
	cases   []Case
	writers map[keyVal]elemWriter
	// appendsOf lists, per key, the transactions that append to it.
	appendsOf map[history.Value][]int
	// reads are the committed reads of each key: transaction, mop, list.
	reads map[history.Value][]readOf
	keys  []history.Value
}

type readOf struct {
	txn, mop int
	list     []history.Value
	// external reports that the transaction had not written the key
	// before this read.
	external bool
}

// analyzeAppends infers the dependency graph of a list-append history
// and the anomalies that are not cycles.
func analyzeAppends(txns []txn.Txn) (*Graph, []Case, error) {
	a := &appendAnalysis{txns: txns, g: newGraph(len(txns)), writers: map[keyVal]elemWriter{},
		appendsOf: map[history.Value][]int{}, reads: map[history.Value][]readOf{}}
	if err := a.indexWrites(); err != nil {
		return nil, nil, err
	}
	a.indexReads()
	for _, k := range a.keys {
		a.orderKey(k)
	}
	return a.g, a.cases, nil
}

// indexWrites finds the writer of every element; an element appended
// twice to one key makes the history unreadable, since the order of a
// key's appends is read off its elements.
func (a *appendAnalysis) indexWrites() error {
	seenKey := map[history.Value]bool{}
	// Room for every element up front spares growing the map.
	appends := 0
	for ti := range a.txns {
		for _, m := range a.txns[ti].Mops {
			if m.Kind == txn.Append {
				appends++
			}
		}
	}
	a.writers = make(map[keyVal]elemWriter, appends)
	for ti := range a.txns {
		t := &a.txns[ti]
		for _, m := range t.Mops {
			if !seenKey[m.Key] {
				seenKey[m.Key] = true
				a.keys = append(a.keys, m.Key)
			}
		}
		last := lastAppends(t.Mops)
		for mi, m := range t.Mops {
			if m.Kind != txn.Append {
				continue
			}
			kv := keyVal{m.Key, m.Value}
			if prev, dup := a.writers[kv]; dup {
				return fmt.Errorf("%s is appended to key %s twice (transactions at operations %d and %d); "+
					"list-append needs each key's elements to be unique", m.Value, m.Key, a.txns[prev.txn].Op, t.Op)
			}
			final := last(m.Key) == mi
			a.writers[kv] = elemWriter{txn: ti, mop: mi, final: final}
			if final && t.Status != history.Fail {
				a.appendsOf[m.Key] = append(a.appendsOf[m.Key], ti)
			}
		}
	}
	return nil
}

// indexReads collects the committed reads, checking each transaction's
// reads against its own earlier micro-operations (internal) and for
// repeated elements (duplicate-elements).
func (a *appendAnalysis) indexReads() {
	st := newInternalState()
	for ti := range a.txns {
		t := &a.txns[ti]
		if !t.Committed() {
			continue // the reads of a failed or crashed transaction are unknown
		}
		st.reset()
		for mi, m := range t.Mops {
			if m.Kind == txn.Append {
				st.append(m.Key, m.Value)
				continue
			}
			list := m.Value.Elems()
			if m.Value.IsNil() {
				list = nil
			}
			if c, bad := st.check(ti, mi, m, list, t.Mops[mi+1:]); bad {
				a.cases = append(a.cases, c)
			}
			if d, ok := duplicates(list); ok {
				a.cases = append(a.cases, Case{Name: "duplicate-elements", Txns: []int{ti}, Key: m.Key, Mop: mi, Element: d,
					Values: []history.Value{m.Value}})
				st.read(m.Key, list)
				continue
			}
			a.reads[m.Key] = append(a.reads[m.Key], readOf{txn: ti, mop: mi, list: list, external: !st.wrote[m.Key]})
			st.read(m.Key, list)
		}
	}
}

// duplicates returns the first element of list that repeats an earlier
// one. Reads are short lists as a rule (keys retire after a few
// appends), which a pairwise scan handles faster than a map.
func duplicates(list []history.Value) (history.Value, bool) {
	if len(list) <= 16 {
		for j := 1; j < len(list); j++ {
			for i := 0; i < j; i++ {
				if list[i] == list[j] {
					return list[j], true
				}
			}
		}
		return history.Value{}, false
	}
	seen := make(map[history.Value]bool, len(list))
	for _, v := range list {
		if seen[v] {
			return v, true
		}
		seen[v] = true
	}
	return history.Value{}, false
}

// internalState is what a transaction knows of each key from its own
// micro-operations: the whole list after a read, or only the elements it
// appended since (a suffix) when it has not read the key.
type internalState struct {
	known  map[history.Value][]history.Value
	whole  map[history.Value]bool
	wrote  map[history.Value]bool
	suffix map[history.Value][]history.Value
}

func newInternalState() *internalState {
	return &internalState{known: map[history.Value][]history.Value{}, whole: map[history.Value]bool{},
		wrote: map[history.Value]bool{}, suffix: map[history.Value][]history.Value{}}
}

// reset forgets what the previous transaction knew, keeping the maps.
func (s *internalState) reset() {
	clear(s.known)
	clear(s.whole)
	clear(s.wrote)
	clear(s.suffix)
}

func (s *internalState) append(k, v history.Value) {
	s.wrote[k] = true
	if s.whole[k] {
		s.known[k] = append(append([]history.Value(nil), s.known[k]...), v)
		return
	}
	s.suffix[k] = append(s.suffix[k], v)
}

func (s *internalState) read(k history.Value, list []history.Value) {
	s.known[k], s.whole[k] = list, true
	delete(s.suffix, k)
}

// check compares a read with what the transaction knows: an internal
// anomaly when they differ, a future-read when the read holds an element
// the transaction appends only later.
func (s *internalState) check(ti, mi int, m txn.Mop, list []history.Value, later []txn.Mop) (Case, bool) {
	for _, n := range later {
		if n.Kind == txn.Append && n.Key == m.Key && contains(list, n.Value) {
			return Case{Name: "future-read", Txns: []int{ti}, Key: m.Key, Mop: mi, Element: n.Value}, true
		}
	}
	if s.whole[m.Key] {
		if !equalLists(s.known[m.Key], list) {
			return Case{Name: "internal", Txns: []int{ti}, Key: m.Key, Mop: mi, Values: s.known[m.Key]}, true
		}
		return Case{}, false
	}
	suf := s.suffix[m.Key]
	if len(suf) > 0 && (len(list) < len(suf) || !equalLists(list[len(list)-len(suf):], suf)) {
		// Values holds the appended suffix; the explanation says "ending with".
		return Case{Name: "internal", Txns: []int{ti}, Key: m.Key, Mop: mi, Values: suf, Element: history.StringValue("suffix")}, true
	}
	return Case{}, false
}

func contains(list []history.Value, v history.Value) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func equalLists(a, b []history.Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// orderKey infers key k's version order from its longest read, checks
// every other read against it, and adds the key's dependencies.
func (a *appendAnalysis) orderKey(k history.Value) {
	reads := a.reads[k]
	longest, prefix := a.longest(k, reads)
	pos := make(map[history.Value]int, len(longest))
	for i, v := range longest {
		pos[v] = i
	}
	ver := a.newVersion(k, longest)
	a.abortedAndIntermediate(ver, reads, prefix)
	a.dirtyUpdates(ver)
	// ww: each element's writer precedes the next element's; elements of
	// failed transactions are skipped.
	prev := -1
	var prevVal history.Value
	for i, v := range longest {
		w, ok := ver.writers[i], ver.known[i]
		if !ok || a.txns[w.txn].Status == history.Fail {
			continue
		}
		if prev >= 0 {
			a.g.add(prev, w.txn, Why{Type: WW, Key: k, Value: prevVal, Next: v, Appends: true})
		}
		prev, prevVal = w.txn, v
	}
	unseen := a.unobserved(k, pos)
	for _, u := range unseen {
		if prev >= 0 {
			a.g.add(prev, u.txn, Why{Type: WW, Key: k, Value: prevVal, Next: u.v, Appends: true})
		}
	}
	for i, r := range reads {
		if !r.external || !prefix[i] {
			continue
		}
		a.readDeps(ver, r, unseen)
	}
}

// longest picks the longest committed read of k and reports every read
// that is not a prefix of it (incompatible-order); prefix[i] says whether
// reads[i] is one.
func (a *appendAnalysis) longest(k history.Value, reads []readOf) (longest []history.Value, prefix []bool) {
	for _, r := range reads {
		if len(r.list) > len(longest) {
			longest = r.list
		}
	}
	reported := map[string]bool{}
	prefix = make([]bool, len(reads))
	for i, r := range reads {
		if prefix[i] = isPrefix(r.list, longest); prefix[i] {
			continue
		}
		id := history.ListValue(r.list...).String()
		if reported[id] {
			continue
		}
		reported[id] = true
		a.cases = append(a.cases, Case{Name: "incompatible-order", Txns: []int{r.txn}, Key: k, Mop: r.mop,
			Values: []history.Value{history.ListValue(r.list...), history.ListValue(longest...)}})
	}
	return longest, prefix
}

func isPrefix(p, l []history.Value) bool {
	return len(p) <= len(l) && equalLists(p, l[:len(p)])
}

type unseenAppend struct {
	txn int
	v   history.Value
}

// unobserved lists the committed transactions' final appends to k that no
// read shows: they come after every element read. Appends of crashed
// transactions that nobody read may never have happened.
func (a *appendAnalysis) unobserved(k history.Value, pos map[history.Value]int) []unseenAppend {
	var out []unseenAppend
	for _, ti := range a.appendsOf[k] {
		if !a.txns[ti].Committed() {
			continue
		}
		for _, m := range a.txns[ti].Mops {
			if m.Kind != txn.Append || m.Key != k {
				continue
			}
			if _, seen := pos[m.Value]; !seen && a.writers[keyVal{k, m.Value}].final {
				out = append(out, unseenAppend{txn: ti, v: m.Value})
			}
		}
	}
	return out
}

// readDeps adds the dependencies of one external read of k: wr from the
// writer of its last element, rw to the writer of the next element (or to
// every unobserved append when it read the whole list).
func (a *appendAnalysis) readDeps(ver *version, r readOf, unseen []unseenAppend) {
	k := ver.k
	if n := len(r.list); n > 0 {
		last := r.list[n-1]
		if w, ok := a.writer(ver, r.list, n-1, true); ok && a.txns[w.txn].Status != history.Fail {
			a.g.add(w.txn, r.txn, Why{Type: WR, Key: k, Value: last, Appends: true})
		}
	}
	var read history.Value // None: the initial, empty list
	if n := len(r.list); n > 0 {
		read = r.list[n-1]
	}
	for i := len(r.list); i < len(ver.longest); i++ {
		v := ver.longest[i]
		w, ok := ver.writers[i], ver.known[i]
		if !ok || a.txns[w.txn].Status == history.Fail {
			continue
		}
		a.g.add(r.txn, w.txn, Why{Type: RW, Key: k, Value: read, Next: v, Appends: true})
		return
	}
	for _, u := range unseen {
		a.g.add(r.txn, u.txn, Why{Type: RW, Key: k, Value: read, Next: u.v, Appends: true})
	}
}

// abortedAndIntermediate reports committed reads of elements that failed
// transactions appended (G1a) and reads that end on an element its writer
// followed with another append to the same key (G1b).
func (a *appendAnalysis) abortedAndIntermediate(ver *version, reads []readOf, prefix []bool) {
	k := ver.k
	for ri, r := range reads {
		for i, v := range r.list {
			w, ok := a.writer(ver, r.list, i, prefix[ri])
			if ok && a.txns[w.txn].Status == history.Fail {
				a.cases = append(a.cases, Case{Name: "G1a", Txns: []int{r.txn, w.txn}, Key: k, Mop: r.mop, Element: v})
			}
		}
		if n := len(r.list); n > 0 {
			w, ok := a.writer(ver, r.list, n-1, prefix[ri])
			if ok && !w.final && w.txn != r.txn && a.txns[w.txn].Status != history.Fail {
				a.cases = append(a.cases, Case{Name: "G1b", Txns: []int{r.txn, w.txn}, Key: k, Mop: r.mop, Element: r.list[n-1]})
			}
		}
	}
}

// dirtyUpdates reports an element of a failed transaction followed, in
// the version order, by one a committed transaction appended: the
// committed write built on an aborted one.
func (a *appendAnalysis) dirtyUpdates(ver *version) {
	k, longest := ver.k, ver.longest
	for i, v := range longest {
		w, ok := ver.writers[i], ver.known[i]
		if !ok || a.txns[w.txn].Status != history.Fail {
			continue
		}
		for j := i + 1; j < len(longest); j++ {
			next := longest[j]
			nw, ok := ver.writers[j], ver.known[j]
			if ok && a.txns[nw.txn].Committed() {
				a.cases = append(a.cases, Case{Name: "dirty-update", Txns: []int{w.txn, nw.txn}, Key: k, Mop: -1,
					Values: []history.Value{v, next}})
				break
			}
		}
	}
}
