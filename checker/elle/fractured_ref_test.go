package elle

import (
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// This file keeps the first search for list-append's fractured reads,
// which looked up every element read in a map keyed by values, as the
// reference the search over the inferred version orders is tested
// against.

// fracturedAppendsReference finds list-append's fractured reads: a committed
// transaction whose read of one key holds an element T appended, and
// whose later read of another key T appended to lacks T's element.
func fracturedAppendsReference(txns []txn.Txn) []Case {
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
			out = append(out, fracturedInReference(txns, ti, writer, &d)...)
		}
	}
	return out
}

// fracturedInReference checks one committed transaction's external reads in its
// order: a writer observed through one key and missed on another by a
// later read is reported once.
func fracturedInReference(txns []txn.Txn, ti int, writer map[keyVal]int32, d *listDecoder) []Case {
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
