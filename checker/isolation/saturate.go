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
	var out []edge
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

// sessWrites are one session's writers of a key, by position.
type sessWrites struct {
	sess int32
	pos  []int32
}

// clocks computes, in topological order, each node's vector clock over
// sessions: the last position of each session that happens before it
// (-1: none), the initial transaction left out (it precedes all).
func (s *saturation) clocks(ctx context.Context, topo []node) ([]int32, error) {
	ix := s.ix
	k, n := len(ix.sessions), len(ix.op)
	if int64(n)*int64(k)*4 > maxClockBytes {
		return nil, fmt.Errorf("%d transactions in %d sessions need more than %d MB of vector clocks", n-1, k, maxClockBytes>>20)
	}
	vc := make([]int32, n*k)
	for i := range vc {
		vc[i] = -1
	}
	g := newGraph(n, ix.baseEdges())
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

// writerLists lists each key's writers, per session, by position.
func (ix *index) writerLists() [][]sessWrites {
	writers := make([][]sessWrites, len(ix.keys))
	for si, sess := range ix.sessions {
		for _, v := range sess {
			for _, key := range ix.writes[v] {
				w := writers[key]
				if len(w) == 0 || w[len(w)-1].sess != int32(si) {
					w = append(w, sessWrites{sess: int32(si)})
				}
				w[len(w)-1].pos = append(w[len(w)-1].pos, ix.pos[v])
				writers[key] = w
			}
		}
	}
	return writers
}

// causal adds causal consistency's edges: for each session, the last
// writer of x that happens before t3 comes before the t1 t3 read x from
// (earlier writers of that session come before it in session order). The
// happens-before order is kept as vector clocks over sessions (AWDIT's
// O(n·k)); writers already before t1 add nothing.
func (s *saturation) causal(ctx context.Context, topo []node) error {
	vc, err := s.clocks(ctx, topo)
	if err != nil {
		return err
	}
	ix := s.ix
	k := len(ix.sessions)
	writers := ix.writerLists()
	var srcs []node
	for v := 1; v < len(ix.op); v++ {
		if v&4095 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		row := vc[v*k : v*k+k]
		srcs = srcs[:0]
		for _, r := range ix.reads[v] {
			srcs = append(srcs, r.src)
		}
		for ri, r := range ix.reads[v] {
			for _, sw := range writers[r.key] {
				if t2, ok := s.lastVisible(vc, row, r.src, sw); ok {
					s.add(t2, r.src, r.key, causalReason(ix, node(v), int32(ri), t2, srcs))
				}
			}
		}
	}
	return nil
}

// lastVisible is the last writer of sw's session that happens before the
// reader (whose clock is row) and not before t1, its source.
func (s *saturation) lastVisible(vc, row []int32, t1 node, sw sessWrites) (node, bool) {
	ix := s.ix
	k := len(ix.sessions)
	p := row[sw.sess]
	if p < 0 || (t1 != initial && vc[int(t1)*k+int(sw.sess)] >= p) {
		return 0, false // what the reader sees of that session, t1 saw already
	}
	i, found := slices.BinarySearch(sw.pos, p)
	if !found {
		i--
	}
	if i < 0 {
		return 0, false
	}
	t2 := ix.sessions[sw.sess][sw.pos[i]]
	if t2 == t1 || (t1 != initial && vc[int(t1)*k+int(sw.sess)] >= sw.pos[i]) {
		return 0, false // t1 itself, or before t1 already
	}
	return t2, true
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
