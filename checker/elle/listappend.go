package elle

import (
	"sort"
	"strings"

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

// version is key k's inferred order: its longest read, with the writer of
// each element looked up once. Most reads are prefixes of the longest and
// share those lookups, which spares a hash of every element of every read.
type version struct {
	k       int32
	key     history.Value
	longest []history.Value
	text    string
	writers []appendWriter
	known   []bool
	// failed lists the positions in longest of elements that failed
	// transactions appended, in order.
	failed []int
}

func (a *appendAnalysis) newVersion(k int32, longest []history.Value, text string, out *keyOutput) *version {
	v := &version{k: k, key: a.keys[k], longest: longest, text: text,
		writers: make([]appendWriter, len(longest)), known: make([]bool, len(longest))}
	for i, e := range longest {
		w, ok := out.writers.get(e)
		v.writers[i], v.known[i] = w, ok
		if ok {
			a.longestAt[a.pos(int(w.txn), int(w.mop))] = int32(i)
			if a.failed(w) {
				v.failed = append(v.failed, i)
			}
		}
	}
	return v
}

// writer returns the writer of list[i]; prefix says that list is a prefix
// of the longest read.
func writer(ver *version, list []history.Value, i int, prefix bool, out *keyOutput) (appendWriter, bool) {
	if prefix {
		return ver.writers[i], ver.known[i]
	}
	return out.writers.get(list[i])
}

func (a *appendAnalysis) failed(w appendWriter) bool { return a.txns[w.txn].Status == history.Fail }

func (a *appendAnalysis) isFinal(w appendWriter) bool { return a.final[a.pos(int(w.txn), int(w.mop))] }

// The evidence of list-append dependencies is kept by reference: a value
// is an element of its key's longest read, by position (≥ 0), or an
// append no read shows, by its micro-operation's position p (-2-p), or
// none (noRef).
const noRef int32 = -1

func mopRef(p int32) int32 { return -2 - p }

// resolver turns references back into values, for explanations.
func (a *appendAnalysis) resolver() func(EdgeType, whyRef) Why {
	keys, longest, txns, base := a.keys, a.longestOf, a.txns, a.base
	val := func(k, ref int32) history.Value {
		switch {
		case ref == noRef:
			return history.Value{}
		case ref >= 0:
			return longest[k][ref]
		}
		p := -2 - ref
		t := sort.Search(len(txns), func(t int) bool { return base[t+1] > p })
		return txns[t].Mops[p-base[t]].Value
	}
	return func(t EdgeType, r whyRef) Why {
		return Why{Type: t, Key: keys[r.key], Value: val(r.key, r.value), Next: val(r.key, r.next), Appends: true}
	}
}

// keyOutput is what the inference of some keys found: their dependencies
// and anomalies, kept apart so that keys can be inferred in parallel and
// their findings joined in key order, as one pass would have made them.
type keyOutput struct {
	g     *Graph
	cases []Case
	// writers is the table of the elements of the key being ordered.
	writers writerTable
	// dup and first are the first element appended twice, if any (ok).
	dup, first appendWriter
	ok         bool
}

// orderKeys infers every key's version order and dependencies, keys in
// parallel, and joins what they found in key order.
func (a *appendAnalysis) orderKeys() (*Graph, error) {
	outs := make([]keyOutput, 0, 2*workers)
	ranges := a.keyRanges(cap(outs))
	// Each append makes about one ww dependency, each read a wr and an
	// rw one: room for them up front spares growing the arrays. The runs
	// of keys fill parts of one array each for the dependencies and their
	// evidence, which are then joined where they lie (joinParts).
	room := make([]int, len(ranges))
	for i, r := range ranges {
		for k := r[0]; k < r[1]; k++ {
			room[i] += len(a.appendsOf[k]) + 2*len(a.reads[k])
		}
	}
	total := 0
	for _, n := range room {
		total += n
	}
	pend, refs := make([]pending, total), make([]whyRef, total)
	off := 0
	for _, n := range room {
		outs = append(outs, keyOutput{g: &Graph{n: len(a.txns), pend: pend[off : off : off+n], refs: refs[off : off : off+n]}})
		off += n
	}
	parallel(len(ranges), func(i int) {
		out := &outs[i]
		for k := ranges[i][0]; k < ranges[i][1]; k++ {
			if dup, first, ok := a.writersOf(int32(k), out); ok {
				if !out.ok || a.pos(int(dup.txn), int(dup.mop)) < a.pos(int(out.dup.txn), int(out.dup.mop)) {
					out.dup, out.first, out.ok = dup, first, true
				}
				continue
			}
			a.orderKey(int32(k), out)
		}
	})
	if err := a.firstDuplicate(outs); err != nil {
		return nil, err
	}
	for _, o := range outs {
		a.cases = append(a.cases, o.cases...)
	}
	g := &Graph{n: len(a.txns), resolve: a.resolver()}
	if !joinParts(g, pend, refs, outs, room) {
		deps := 0
		for _, o := range outs {
			deps += len(o.g.pend)
		}
		g.pend, g.refs = make([]pending, 0, deps), make([]whyRef, 0, deps)
		for _, o := range outs {
			g.absorb(o.g)
		}
	}
	return g, nil
}

// joinParts makes g's dependencies and evidence those of the parts, in
// order, moved to the front of the arrays they were written in, when
// every part kept to its room there; it reports false, with g left as it
// was, when one outgrew it (its append then moved it elsewhere). Each
// dependency's evidence is its part's at the same place, 1:1 (addRef).
func joinParts(g *Graph, pend []pending, refs []whyRef, outs []keyOutput, room []int) bool {
	for i, o := range outs {
		if len(o.g.pend) > room[i] || len(o.g.refs) != len(o.g.pend) || len(o.g.evidence) > 0 {
			return false
		}
	}
	w := 0 // where the next part goes: never past where it lies
	for _, o := range outs {
		n := len(o.g.pend)
		copy(pend[w:w+n], o.g.pend)
		copy(refs[w:w+n], o.g.refs)
		w += n
	}
	g.pend, g.refs = pend[:w], refs[:w]
	g.frozen = false
	return true
}

// firstDuplicate is the error of the element appended twice whose second
// append comes first in the history, if any.
func (a *appendAnalysis) firstDuplicate(outs []keyOutput) error {
	var best *keyOutput
	for i := range outs {
		o := &outs[i]
		if o.ok && (best == nil || a.pos(int(o.dup.txn), int(o.dup.mop)) < a.pos(int(best.dup.txn), int(best.dup.mop))) {
			best = o
		}
	}
	if best == nil {
		return nil
	}
	return a.duplicateError(best.dup, best.first)
}

// keyRanges splits the keys into at most n runs of about equal work.
func (a *appendAnalysis) keyRanges(n int) [][2]int {
	total := 0
	weight := func(k int) int { return 1 + len(a.reads[k]) + len(a.appendsOf[k]) }
	for k := range a.keys {
		total += weight(k)
	}
	var out [][2]int
	lo, acc := 0, 0
	for k := range a.keys {
		acc += weight(k)
		if acc*n >= total*(len(out)+1) || k == len(a.keys)-1 {
			out = append(out, [2]int{lo, k + 1})
			lo = k + 1
		}
	}
	return out
}

// orderKey infers key k's version order from its longest read, checks
// every other read against it, and adds the key's dependencies to out.
func (a *appendAnalysis) orderKey(k int32, out *keyOutput) {
	reads := a.reads[k]
	ver, prefix := a.longest(k, reads, out)
	a.abortedAndIntermediate(ver, reads, prefix, out)
	a.dirtyUpdates(ver, out)
	// ww: each element's writer precedes the next element's; elements of
	// failed transactions are skipped.
	prev, prevVal := -1, int32(0)
	for i := range ver.longest {
		w, ok := ver.writers[i], ver.known[i]
		if !ok || a.failed(w) {
			continue
		}
		if prev >= 0 {
			out.g.addRef(prev, int(w.txn), WW, whyRef{key: k, value: prevVal, next: int32(i)})
		}
		prev, prevVal = int(w.txn), int32(i)
	}
	unseen := a.unobserved(k)
	for _, u := range unseen {
		if prev >= 0 {
			out.g.addRef(prev, u.txn, WW, whyRef{key: k, value: prevVal, next: u.ref})
		}
	}
	for i, r := range reads {
		if !r.external || !prefix[i] {
			continue
		}
		a.readDeps(ver, r, unseen, out)
	}
}

// longest picks the longest committed read of k, reports every read that
// is not a prefix of it (incompatible-order) and returns k's version;
// prefix[i] says whether reads[i] is a prefix of the longest.
func (a *appendAnalysis) longest(k int32, reads []readOf, out *keyOutput) (*version, []bool) {
	var best *readOf
	for i := range reads {
		if best == nil || reads[i].n > best.n {
			best = &reads[i]
		}
	}
	var longest []history.Value
	var text string
	if best != nil {
		longest, text = a.readElems(best), listText(a.readValue(best))
	}
	var reported map[string]bool
	prefix := make([]bool, len(reads))
	for i, r := range reads {
		if prefix[i] = strings.HasPrefix(text, listText(a.readValue(&r))); prefix[i] {
			continue
		}
		list := a.readElems(&r)
		id := history.ListValue(list...).String()
		if reported == nil {
			reported = map[string]bool{}
		}
		if reported[id] {
			continue
		}
		reported[id] = true
		out.cases = append(out.cases, Case{Name: "incompatible-order", Txns: []int{int(r.txn)}, Key: a.keys[k], Mop: int(r.mop),
			Values: []history.Value{history.ListValue(list...), history.ListValue(longest...)}})
	}
	a.longestOf[k] = longest
	for i, r := range reads {
		if prefix[i] {
			a.readLen[a.pos(int(r.txn), int(r.mop))] = int32(r.n)
		}
	}
	v := a.newVersion(k, longest, text, out)
	a.versions[k] = v
	return v, prefix
}

type unseenAppend struct {
	txn int
	// ref is the append by reference (see resolver).
	ref int32
}

// unobserved lists the committed transactions' final appends to k that no
// read shows: they come after every element read. Appends of crashed
// transactions that nobody read may never have happened.
func (a *appendAnalysis) unobserved(k int32) []unseenAppend {
	var out []unseenAppend
	for _, ti := range a.appendsOf[k] {
		t := &a.txns[ti]
		if !t.Committed() {
			continue
		}
		for mi, m := range t.Mops {
			p := a.pos(int(ti), mi)
			if m.Kind == txn.Append && a.mopKey[p] == k && a.longestAt[p] < 0 && a.final[p] {
				out = append(out, unseenAppend{txn: int(ti), ref: mopRef(p)})
			}
		}
	}
	return out
}

// readDeps adds the dependencies of one external read of k, a prefix of
// the longest: wr from the writer of its last element, rw to the writer
// of the next element (or to every unobserved append when it read the
// whole list).
func (a *appendAnalysis) readDeps(ver *version, r readOf, unseen []unseenAppend, out *keyOutput) {
	k := ver.k
	read := noRef // the initial, empty list
	if n := r.n; n > 0 {
		read = int32(n - 1)
		if w, ok := ver.writers[n-1], ver.known[n-1]; ok && !a.failed(w) {
			out.g.addRef(int(w.txn), int(r.txn), WR, whyRef{key: k, value: read, next: noRef})
		}
	}
	for i := int(r.n); i < len(ver.longest); i++ {
		w, ok := ver.writers[i], ver.known[i]
		if !ok || a.failed(w) {
			continue
		}
		out.g.addRef(int(r.txn), int(w.txn), RW, whyRef{key: k, value: read, next: int32(i)})
		return
	}
	for _, u := range unseen {
		out.g.addRef(int(r.txn), u.txn, RW, whyRef{key: k, value: read, next: u.ref})
	}
}

// abortedAndIntermediate reports committed reads of elements that failed
// transactions appended (G1a) and reads that end on an element its writer
// followed with another append to the same key (G1b).
func (a *appendAnalysis) abortedAndIntermediate(ver *version, reads []readOf, prefix []bool, out *keyOutput) {
	for ri, r := range reads {
		list := ver.longest[:r.n] // the same elements
		if !prefix[ri] {
			list = a.readElems(&r)
		}
		a.abortedReads(ver, r, list, prefix[ri], out)
		if n := len(list); n > 0 {
			w, ok := writer(ver, list, n-1, prefix[ri], out)
			if ok && !a.isFinal(w) && int(w.txn) != int(r.txn) && !a.failed(w) {
				out.cases = append(out.cases, Case{Name: "G1b", Txns: []int{int(r.txn), int(w.txn)}, Key: ver.key, Mop: int(r.mop),
					Element: list[n-1]})
			}
		}
	}
}

// abortedReads reports the elements of one read (list) that failed
// transactions appended, in the read's order: for a prefix of the longest
// read, those the version lists.
func (a *appendAnalysis) abortedReads(ver *version, r readOf, list []history.Value, prefix bool, out *keyOutput) {
	g1a := func(w appendWriter, v history.Value) {
		out.cases = append(out.cases, Case{Name: "G1a", Txns: []int{int(r.txn), int(w.txn)}, Key: ver.key, Mop: int(r.mop), Element: v})
	}
	if prefix {
		for _, i := range ver.failed {
			if i >= len(list) {
				break
			}
			g1a(ver.writers[i], list[i])
		}
		return
	}
	for _, v := range list {
		if w, ok := out.writers.get(v); ok && a.failed(w) {
			g1a(w, v)
		}
	}
}

// dirtyUpdates reports an element of a failed transaction followed, in
// the version order, by one a committed transaction appended: the
// committed write built on an aborted one.
func (a *appendAnalysis) dirtyUpdates(ver *version, out *keyOutput) {
	longest := ver.longest
	for _, i := range ver.failed {
		w := ver.writers[i]
		for j := i + 1; j < len(longest); j++ {
			nw, ok := ver.writers[j], ver.known[j]
			if ok && a.txns[nw.txn].Committed() {
				out.cases = append(out.cases, Case{Name: "dirty-update", Txns: []int{int(w.txn), int(nw.txn)}, Key: ver.key, Mop: -1,
					Values: []history.Value{longest[i], longest[j]}})
				break
			}
		}
	}
}
