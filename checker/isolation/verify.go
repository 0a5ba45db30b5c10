package isolation

import (
	"fmt"
	"sort"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// Verify checks, from the level's definition and independently of the
// algorithms that decide it, that order (transactions' positions in
// h.Ops, in commit order) is a commit order under which h satisfies
// level: it lists every committed transaction once, and those of unknown
// outcome that were read from; it extends session order and reads-from;
// and each read returns the last write of its key, in that order, among
// the transactions visible to its transaction, visibility being the
// smallest the level allows (Cerone, Bernardi and Gotsman's axioms; Biswas
// and Enea's for read committed). It returns nil or what broke first.
func Verify(h *history.History, level string, order []int, init history.Value) error {
	txns, err := txn.FromHistory(h)
	if err != nil {
		return err
	}
	if init.IsNone() {
		init = history.NilValue
	}
	ix, err := build(h, txns, init)
	if err != nil {
		return err
	}
	return verifyIndex(ix, level, order)
}

// verifyIndex is Verify on an index already built.
func verifyIndex(ix *index, level string, order []int) error {
	h := ix.h
	if len(ix.issues) > 0 {
		is := ix.issues[0]
		return fmt.Errorf("%s: a read of %s = %s no order explains (%s)", h.Ops[is.Txn].Label(), is.Key, is.Value, is.Pattern)
	}
	nodeOfOp := map[int]node{}
	for v := 1; v < len(ix.op); v++ {
		nodeOfOp[ix.opOf(node(v))] = node(v)
	}
	co := make([]int32, len(ix.op))
	for i := range co {
		co[i] = -1
	}
	byPos := make([]node, 0, len(order))
	for i, op := range order {
		v, ok := nodeOfOp[op]
		if !ok {
			return fmt.Errorf("the order names operation %d, which is not a committed transaction", op)
		}
		if co[v] >= 0 {
			return fmt.Errorf("the order lists %s twice", h.Ops[op].Label())
		}
		co[v] = int32(i)
		byPos = append(byPos, v)
	}
	if len(order) != len(ix.op)-1 {
		for v := 1; v < len(ix.op); v++ {
			if co[v] < 0 {
				return fmt.Errorf("the order leaves out %s", h.Ops[ix.opOf(node(v))].Label())
			}
		}
	}
	vf := &verifier{ix: ix, co: co, byPos: byPos}
	for _, e := range ix.baseEdges() {
		if e.from != initial && co[e.from] > co[e.to] {
			return fmt.Errorf("the order puts %s after %s, against %s", vf.label(e.from), vf.label(e.to), kindWord[e.kind])
		}
	}
	switch level {
	case ReadCommitted:
		return vf.readCommitted()
	case ReadAtomic:
		return vf.readAtomic()
	case Causal:
		return vf.visible(false)
	case ParallelSnapshot:
		return vf.visible(true)
	case Prefix, SnapshotIsolation, Serializable:
		return vf.prefix(level)
	}
	return fmt.Errorf("unknown level %q", level)
}

var kindWord = map[uint8]string{edgeSO: "session order", edgeWR: "reads-from"}

type verifier struct {
	ix    *index
	co    []int32
	byPos []node
}

func (vf *verifier) label(v node) string {
	if v == initial {
		return "the initial state"
	}
	return vf.ix.h.Ops[vf.ix.opOf(v)].Label()
}

func (vf *verifier) stale(t3 node, r read, newer node) error {
	k, val, _ := vf.ix.readOf(t3, int32(slicesIndex(vf.ix.reads[t3], r)))
	return fmt.Errorf("%s read %s = %s from %s, but %s, visible to it, wrote %s later in the order",
		vf.label(t3), k, val, vf.label(r.src), vf.label(newer), k)
}

func slicesIndex(rs []read, r read) int {
	for i := range rs {
		if rs[i] == r {
			return i
		}
	}
	return 0
}

// pos is v's commit position; the initial transaction comes first.
func (vf *verifier) pos(v node) int32 {
	if v == initial {
		return -1
	}
	return vf.co[v]
}

// readCommitted: a transaction that t3 read from before a read of x,
// and that wrote x, commits before the read's source.
func (vf *verifier) readCommitted() error {
	ix := vf.ix
	for v := 1; v < len(ix.reads); v++ {
		var seen []node
		for _, r := range ix.reads[v] {
			for _, t2 := range seen {
				if t2 != r.src && ix.writesKey(t2, r.key) && vf.pos(t2) > vf.pos(r.src) {
					return vf.stale(node(v), r, t2)
				}
			}
			if r.src != initial {
				seen = append(seen, r.src)
			}
		}
	}
	return nil
}

// readAtomic: what t3's session did before it, and what t3 read from,
// is visible to t3.
func (vf *verifier) readAtomic() error {
	ix := vf.ix
	for _, sess := range ix.sessions {
		latest := map[int32]node{} // per key, the session's writer latest in commit order
		for _, v := range sess {
			for _, r := range ix.reads[v] {
				if t2, ok := latest[r.key]; ok && t2 != r.src && vf.pos(t2) > vf.pos(r.src) {
					return vf.stale(v, r, t2)
				}
				for _, r2 := range ix.reads[v] {
					if t2 := r2.src; t2 != initial && t2 != r.src && ix.writesKey(t2, r.key) && vf.pos(t2) > vf.pos(r.src) {
						return vf.stale(v, r, t2)
					}
				}
			}
			for _, k := range ix.writes[v] {
				if t2, ok := latest[k]; !ok || vf.pos(v) > vf.pos(t2) {
					latest[k] = v
				}
			}
		}
	}
	return nil
}

// visible: visibility is transitive and holds session order and
// reads-from (causal consistency), and with conflicts also orders each
// key's writers as the commit order does (parallel snapshot isolation).
// Each read must return its key's last visible write.
func (vf *verifier) visible(conflicts bool) error {
	vc, err := vf.clocks(conflicts)
	if err != nil {
		return err
	}
	latest := vf.latestWriters()
	ix := vf.ix
	for v := 1; v < len(ix.op); v++ {
		for _, r := range ix.reads[v] {
			newest := initial
			for s := range ix.sessions {
				p := latest[[2]int32{r.key, int32(s)}]
				if p == nil || vc[v][s] < 0 {
					continue
				}
				i := sort.Search(len(p.pos), func(i int) bool { return p.pos[i] > vc[v][s] }) - 1
				if i >= 0 && vf.pos(p.best[i]) > vf.pos(newest) {
					newest = p.best[i]
				}
			}
			if newest != r.src {
				if newest == initial {
					return fmt.Errorf("%s read from %s, which is not visible to it", vf.label(node(v)), vf.label(r.src))
				}
				return vf.stale(node(v), r, newest)
			}
		}
	}
	return nil
}

// clocks gives each node the last position of each session visible to
// it, visibility being session order and reads-from (and, with
// conflicts, each key's writers in commit order), transitively.
func (vf *verifier) clocks(conflicts bool) ([][]int32, error) {
	ix := vf.ix
	n, k := len(ix.op), len(ix.sessions)
	preds := make([][]node, n)
	for _, e := range ix.baseEdges() {
		if e.from != initial {
			preds[e.to] = append(preds[e.to], e.from)
		}
	}
	if conflicts {
		last := map[int32]node{}
		for _, v := range vf.byPos {
			for _, key := range ix.writes[v] {
				if p, ok := last[key]; ok {
					preds[v] = append(preds[v], p)
				}
				last[key] = v
			}
		}
	}
	vc := make([][]int32, n)
	for _, v := range vf.byPos {
		row := make([]int32, k)
		for i := range row {
			row[i] = -1
		}
		for _, p := range preds[v] {
			if vf.co[p] > vf.co[v] {
				return nil, fmt.Errorf("the order puts %s after %s, which sees it", vf.label(p), vf.label(v))
			}
			for i, x := range vc[p] {
				row[i] = max(row[i], x)
			}
			row[ix.sess[p]] = max(row[ix.sess[p]], ix.pos[p])
		}
		vc[v] = row
	}
	return vc, nil
}

// writerPrefix is one session's writers of a key by position, with the
// latest in commit order among each prefix of them.
type writerPrefix struct {
	pos  []int32
	best []node
}

func (vf *verifier) latestWriters() map[[2]int32]*writerPrefix {
	ix := vf.ix
	out := map[[2]int32]*writerPrefix{}
	for si, sess := range ix.sessions {
		for _, v := range sess {
			for _, key := range ix.writes[v] {
				p := out[[2]int32{key, int32(si)}]
				if p == nil {
					p = &writerPrefix{}
					out[[2]int32{key, int32(si)}] = p
				}
				b := v
				if len(p.best) > 0 && vf.co[p.best[len(p.best)-1]] > vf.co[v] {
					b = p.best[len(p.best)-1]
				}
				p.pos = append(p.pos, ix.pos[v])
				p.best = append(p.best, b)
			}
		}
	}
	return out
}

// prefix: each transaction sees a prefix of the commit order, which
// holds its session's and its sources' transactions (prefix
// consistency), and every earlier writer of a key it writes (snapshot
// isolation), or is every transaction before it (serializability). Each
// read returns its key's last write in that prefix.
func (vf *verifier) prefix(level string) error {
	ix := vf.ix
	n := len(ix.op)
	snap := make([]int32, n) // last commit position visible
	for v := 1; v < n; v++ {
		snap[v] = -1
	}
	for _, e := range ix.baseEdges() {
		if e.from != initial {
			snap[e.to] = max(snap[e.to], vf.co[e.from])
		}
	}
	writers := map[int32][]int32{} // per key, commit positions of its writers, in order
	for i, v := range vf.byPos {
		for _, key := range ix.writes[v] {
			if level == SnapshotIsolation {
				if w := writers[key]; len(w) > 0 {
					snap[v] = max(snap[v], w[len(w)-1])
				}
			}
			writers[key] = append(writers[key], int32(i))
		}
	}
	for _, v := range vf.byPos {
		if level == Serializable {
			snap[v] = vf.co[v] - 1
		}
		if snap[v] >= vf.co[v] {
			return fmt.Errorf("%s must see a transaction that commits after it", vf.label(v))
		}
		for _, r := range ix.reads[v] {
			w := writers[r.key]
			i := sort.Search(len(w), func(i int) bool { return w[i] > snap[v] }) - 1
			newest := initial
			if i >= 0 {
				newest = vf.byPos[w[i]]
			}
			if newest != r.src {
				if vf.pos(r.src) > snap[v] {
					return fmt.Errorf("%s read from %s, which commits after its snapshot", vf.label(v), vf.label(r.src))
				}
				return vf.stale(v, r, newest)
			}
		}
	}
	return nil
}
