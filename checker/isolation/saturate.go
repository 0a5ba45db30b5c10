package isolation

import (
	"context"
	"fmt"
	"slices"
)

// Why a saturation edge t2 → t1 is forced, for a read of key x from t1 by
// t3 (reason.reader), where t2 also wrote x.
const (
	whySession uint8 = iota // t2 precedes t3 in its session
	whyRead                 // t3 read something else from t2
	whyEarlier              // t3 read something from t2 before reading x
	whyCausal               // t2 happens before t3 through others
)

// reason is why a commit-order edge was added.
type reason struct {
	reader node  // t3
	read   int32 // index of the read of x in reads[t3]
	via    int32 // index of the read of t2's write in reads[t3], or -1
	why    uint8
}

// saturation is the graph a saturated level is decided on.
type saturation struct {
	ix      *index
	level   string
	edges   []edge
	reasons []reason
}

// baseEdges are session order and reads-from.
func (ix *index) baseEdges() []edge {
	n := len(ix.op) // the session order edges: one into each node but the initial
	for v := 1; v < len(ix.reads); v++ {
		n += len(ix.reads[v])
	}
	// Room for a quarter more: the forced edges saturation appends (about
	// one per transaction on a store's history) then fit without a copy.
	out := make([]edge, 0, n+n/4)
	for _, s := range ix.sessions {
		out = append(out, edge{from: initial, to: s[0], kind: edgeSO, key: -1, ref: -1})
		for i := 1; i < len(s); i++ {
			out = append(out, edge{from: s[i-1], to: s[i], kind: edgeSO, key: -1, ref: -1})
		}
	}
	for v := 1; v < len(ix.reads); v++ {
		for ri, r := range ix.reads[v] {
			if r.src != initial {
				out = append(out, edge{from: r.src, to: node(v), kind: edgeWR, key: r.key, ref: int32(ri)})
			}
		}
	}
	return out
}

func (s *saturation) add(t2, t1 node, key int32, rsn reason) {
	s.edges = append(s.edges, edge{from: t2, to: t1, kind: edgeCO, key: key, ref: int32(len(s.reasons))})
	s.reasons = append(s.reasons, rsn)
}

// readCommitted adds Biswas and Enea's read committed edges: a read of x
// from t1 after t3 read anything from t2, which also wrote x, puts t2
// before t1.
func (s *saturation) readCommitted(ctx context.Context) error {
	ix := s.ix
	var earlier []node
	var first []int32
	for v := 1; v < len(ix.reads); v++ {
		if v&4095 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		earlier, first = earlier[:0], first[:0]
		for ri, r := range ix.reads[v] {
			for i, t2 := range earlier {
				if t2 != r.src && ix.writesKey(t2, r.key) {
					s.add(t2, r.src, r.key, reason{reader: node(v), read: int32(ri), via: first[i], why: whyEarlier})
				}
			}
			if r.src != initial && !slices.Contains(earlier, r.src) {
				earlier = append(earlier, r.src)
				first = append(first, int32(ri))
			}
		}
	}
	return nil
}

// readAtomic adds read atomic's edges: t2 before t3 in its session, or
// read by t3, and writing x, comes before the t1 that t3 read x from.
func (s *saturation) readAtomic(ctx context.Context) error {
	ix := s.ix
	lastW := make([]node, len(ix.keys))
	var srcs []node
	var first []int32
	for _, sess := range ix.sessions {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		for _, v := range sess {
			srcs, first = srcs[:0], first[:0]
			for ri, r := range ix.reads[v] {
				if r.src != initial && !slices.Contains(srcs, r.src) {
					srcs = append(srcs, r.src)
					first = append(first, int32(ri))
				}
			}
			for ri, r := range ix.reads[v] {
				if t2 := lastW[r.key]; t2 != 0 && t2 != r.src {
					s.add(t2, r.src, r.key, reason{reader: v, read: int32(ri), via: -1, why: whySession})
				}
				for i, t2 := range srcs {
					if t2 != r.src && ix.writesKey(t2, r.key) {
						s.add(t2, r.src, r.key, reason{reader: v, read: int32(ri), via: first[i], why: whyRead})
					}
				}
			}
			for _, k := range ix.writes[v] {
				lastW[k] = v
			}
		}
		for _, v := range sess {
			for _, k := range ix.writes[v] {
				lastW[k] = 0
			}
		}
	}
	return nil
}

// maxClockBytes bounds the vector clocks of causal consistency.
const maxClockBytes = 3 << 30

// clocks computes, in topological order, each node's vector clock over
// sessions: the last position of each session that happens before it
// (-1: none), the initial transaction left out (it precedes all). g is
// session order and reads-from.
func (s *saturation) clocks(ctx context.Context, g *graph, topo []node) ([]int32, error) {
	ix := s.ix
	k, n := len(ix.sessions), len(ix.op)
	if int64(n)*int64(k)*4 > maxClockBytes {
		return nil, fmt.Errorf("%d transactions in %d sessions need more than %d MB of vector clocks", n-1, k, maxClockBytes>>20)
	}
	vc := make([]int32, n*k)
	for i := range vc {
		vc[i] = -1
	}
	for i, v := range topo {
		if i&4095 == 0 && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if v == initial {
			continue
		}
		row := vc[int(v)*k : int(v)*k+k]
		for _, ei := range g.succ(v) {
			to := g.edges[ei].to
			dst := vc[int(to)*k : int(to)*k+k]
			for j, x := range row {
				dst[j] = max(dst[j], x)
			}
			dst[ix.sess[v]] = max(dst[ix.sess[v]], ix.pos[v])
		}
	}
	return vc, nil
}

// maxLastBytes bounds causal's table of each key's last writer per
// session; past it the sessions are taken a block at a time.
const maxLastBytes = 64 << 20

// causal adds causal consistency's edges: for each session, the last
// writer of x that happens before t3 comes before the t1 t3 read x from
// (earlier writers of that session come before it in session order). The
// happens-before order is kept as vector clocks over sessions (AWDIT's
// O(n·k)); writers already before t1 add nothing. The readers are taken
// session by session: along a session the clocks only grow, so each
// writer session is replayed once per reader session, keeping each key's
// last writer so far in a table, rather than searched per read (a
// binary search in lists that grow with the history, out of the caches).
func (s *saturation) causal(ctx context.Context, g *graph, topo []node) error {
	vc, err := s.clocks(ctx, g, topo)
	if err != nil {
		return err
	}
	ix := s.ix
	k := len(ix.sessions)
	keys := max(1, len(ix.keys))
	block := max(1, min(k, maxLastBytes/4/keys))
	c := &causalSweep{s: s, vc: vc, k: k, last: make([]int32, keys*block), cur: make([]int32, block),
		wrote: ix.keySessions()}
	c.flatWrites()
	for i := range c.last {
		c.last[i] = -1
	}
	for _, readers := range ix.sessions {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		for j0 := 0; j0 < k; j0 += block {
			c.sweep(readers, int32(j0), int32(min(k, j0+block)))
		}
	}
	return nil
}

// causalSweep is causal's state: last holds, per key and writer session
// of the block, the position of that session's last writer of the key
// replayed (cur counts those replayed), -1 for none.
type causalSweep struct {
	s     *saturation
	vc    []int32
	k     int
	last  []int32
	cur   []int32
	wrote [][]int32 // per key, the sessions that write it, ascending
	srcs  []node
	// writes are each session's writes in order, flat (the keys, with
	// at[j][p] the start of position p's): replaying them reads memory
	// in order, where the nodes' lists lie scattered among the other
	// sessions'.
	writes [][]int32
	at     [][]int32
}

// sweep adds the edges of readers' reads for writer sessions j0 to j1.
func (c *causalSweep) sweep(readers []node, j0, j1 int32) {
	ix, b := c.s.ix, j1-j0
	clear(c.cur)
	for _, v := range readers {
		row := c.vc[int(v)*c.k : int(v)*c.k+c.k]
		for j := j0; j < j1; j++ {
			c.replay(j, j-j0, b, row[j])
		}
		c.srcs = c.srcs[:0]
		for _, r := range ix.reads[v] {
			c.srcs = append(c.srcs, r.src)
		}
		for ri, r := range ix.reads[v] {
			ws := c.wrote[r.key]
			lo, _ := slices.BinarySearch(ws, j0)
			for _, j := range ws[lo:] {
				if j >= j1 {
					break
				}
				q := c.last[int(r.key)*int(b)+int(j-j0)]
				if q < 0 || (r.src != initial && c.vc[int(r.src)*c.k+int(j)] >= q) {
					continue // none visible, or before t1 already
				}
				if t2 := ix.sessions[j][q]; t2 != r.src {
					c.s.add(t2, r.src, r.key, causalReason(ix, v, int32(ri), t2, c.srcs))
				}
			}
		}
	}
	for j := j0; j < j1; j++ { // undo the replays
		for _, key := range c.writes[j][:c.at[j][c.cur[j-j0]]] {
			c.last[int(key)*int(b)+int(j-j0)] = -1
		}
	}
}

// replay takes session j's writers up to position p into last.
func (c *causalSweep) replay(j, jb, b, p int32) {
	ws, at := c.writes[j], c.at[j]
	for ; c.cur[jb] <= p; c.cur[jb]++ {
		for _, key := range ws[at[c.cur[jb]]:at[c.cur[jb]+1]] {
			c.last[int(key)*int(b)+int(jb)] = c.cur[jb]
		}
	}
}

// flatWrites lists each session's writes in order, flat.
func (c *causalSweep) flatWrites() {
	ix := c.s.ix
	c.writes, c.at = make([][]int32, len(ix.sessions)), make([][]int32, len(ix.sessions))
	for j, sess := range ix.sessions {
		at := make([]int32, 0, len(sess)+1)
		var ws []int32
		for _, v := range sess {
			at = append(at, int32(len(ws)))
			ws = append(ws, ix.writes[v]...)
		}
		c.writes[j], c.at[j] = ws, append(at, int32(len(ws)))
	}
}

// keySessions lists, per key, the sessions that write it, ascending.
func (ix *index) keySessions() [][]int32 {
	out := make([][]int32, len(ix.keys))
	for si, sess := range ix.sessions {
		for _, v := range sess {
			for _, key := range ix.writes[v] {
				if w := out[key]; len(w) == 0 || w[len(w)-1] != int32(si) {
					out[key] = append(w, int32(si))
				}
			}
		}
	}
	return out
}

// causalReason says how t2 is visible to reader v.
func causalReason(ix *index, v node, ri int32, t2 node, srcs []node) reason {
	switch {
	case ix.sess[t2] == ix.sess[v]:
		return reason{reader: v, read: ri, via: -1, why: whySession}
	case slices.Contains(srcs, t2):
		return reason{reader: v, read: ri, via: int32(slices.Index(srcs, t2)), why: whyRead}
	}
	return reason{reader: v, read: ri, via: -1, why: whyCausal}
}
