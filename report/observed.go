package report

import (
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// keyRead is what a committed transaction read of a key: the read's list
// of elements, with the position of its transaction. A cycle's step that
// rests on the order of a key's appends says whether a read shows that
// order or it was inferred, from these.
type keyRead struct {
	op    int
	elems []history.Value
}

// readIndex holds the committed reads of a history by key, built on first
// use and shared by the explanations of one result, so that a long history
// is read once however many steps ask.
type readIndex struct {
	h     *history.History
	byKey map[history.Value][]keyRead
}

func newReadIndex(h *history.History) *readIndex { return &readIndex{h: h} }

func (x *readIndex) committedReads(key history.Value) []keyRead {
	if x.byKey == nil {
		x.byKey = indexReads(x.h)
	}
	return x.byKey[key]
}

// indexReads is every committed read of h by key.
func indexReads(h *history.History) map[history.Value][]keyRead {
	out := make(map[history.Value][]keyRead)
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Status != history.OK || o.F != txn.F {
			continue
		}
		mops, err := txn.Parse(o.Value)
		if err != nil {
			continue
		}
		for _, m := range mops {
			if m.Kind == txn.Read && !m.Value.IsNil() && !m.Value.IsNone() {
				out[m.Key] = append(out[m.Key], keyRead{op: i, elems: m.Value.Elems()})
			}
		}
	}
	return out
}

// showsOrder returns a committed transaction that read key with a before b
// (right before it when next is set; a None a asks for b first).
func (x *readIndex) showsOrder(key, a, b history.Value, next bool) (int, bool) {
	for _, r := range x.committedReads(key) {
		ia, ib := -1, -1
		for j, e := range r.elems {
			if e == a && ia < 0 {
				ia = j
			}
			if e == b && ib < 0 {
				ib = j
			}
		}
		switch {
		case ib < 0:
		case a.IsNone() && (ib == 0 || !next):
			return r.op, true
		case ia < 0:
		case next && ib == ia+1, !next && ia < ib:
			return r.op, true
		}
	}
	return 0, false
}

// appendsOf lists the elements the transaction at p appended to key.
func appendsOf(h *history.History, p int, key history.Value) []history.Value {
	mops, err := txn.Parse(h.Ops[p].Value)
	if err != nil {
		return nil
	}
	var out []history.Value
	for _, m := range mops {
		if m.Kind == txn.Append && m.Key == key {
			out = append(out, m.Value)
		}
	}
	return out
}

// readAll reports whether some committed read of key holds every one of
// elems.
func (x *readIndex) readAll(key history.Value, elems []history.Value) bool {
	for _, r := range x.committedReads(key) {
		all := true
		for _, e := range elems {
			found := false
			for _, x := range r.elems {
				if x == e {
					found = true
					break
				}
			}
			all = all && found
		}
		if all {
			return true
		}
	}
	return false
}
