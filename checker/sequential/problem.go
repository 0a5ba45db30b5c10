package sequential

import (
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// problem is a history prepared for the refutation and the search: the
// compiled operations grouped by process, each with the index of its key.
type problem[S comparable] struct {
	m     model.Model[S]
	h     *history.History
	c     *checker.Compiled
	keyed bool
	keys  []history.Value // key index -> key (one None key when not keyed)
	keyOf []int32         // compiled op -> key index
	// procs lists, per process that has operations left after compiling,
	// its compiled operations in program order.
	procs [][]int32
	// readLike marks operations the model classes as reads; see
	// newProblem.
	readLike []bool
	init     S
	// noCountBound turns the search's count bound off (countBound), for
	// the tests that compare the search with and without it.
	noCountBound bool
	// endFree asks of a counting model's order that it end with the count
	// at 0 (a lock left free); see searcher.endsFree.
	endFree bool
}

// newProblem prepares a compiled history. It marks as read-like the
// operations the model classes as reads (model.Info.ClassOf): the search
// runs such an operation eagerly as soon as it is legal and leaves the
// state unchanged there. That is safe for sequential consistency because a
// read whose Step never changes the state can move to the front of any
// legal continuation: it has no earlier operation of its own process left,
// it is legal now, and removing it later changes no state. A model's reads
// leave the state alone (model.ReadOp), and Step is checked again at each
// use, so a read that would change the state is branched on like any
// other operation.
func newProblem[S comparable](m model.Model[S], h *history.History, c *checker.Compiled, keyed bool) *problem[S] {
	p := &problem[S]{m: m, h: h, c: c, keyed: keyed}
	p.keyOf = make([]int32, len(c.Ops))
	p.readLike = make([]bool, len(c.Ops))
	keyIdx := make(map[history.Value]int32)
	if !keyed {
		p.keys = []history.Value{{}}
	}
	byProc := make(map[int]int)
	info := m.Info()
	for i, pos := range c.Pos {
		op := &h.Ops[pos]
		if keyed {
			k, ok := keyIdx[op.Key]
			if !ok {
				k = int32(len(p.keys))
				keyIdx[op.Key] = k
				p.keys = append(p.keys, op.Key)
			}
			p.keyOf[i] = k
		}
		p.readLike[i] = info.ClassOf(op.F) == model.ReadOp
		pi, ok := byProc[op.Process]
		if !ok {
			pi = len(p.procs)
			byProc[op.Process] = pi
			p.procs = append(p.procs, nil)
		}
		p.procs[pi] = append(p.procs[pi], int32(i))
	}
	p.init = m.Init(c.Table)
	return p
}

// restrict returns the problem of key k alone: its operations, each
// process's order restricted to them.
func (p *problem[S]) restrict(k int32) *problem[S] {
	all := make([]int, len(p.procs))
	for pi := range all {
		all[pi] = pi
	}
	return p.subset([]history.Value{p.keys[k]}, all,
		func(i int32) bool { return p.keyOf[i] == k }, func(int32) int32 { return 0 })
}

// restrictProcs returns the problem of the processes procs alone.
func (p *problem[S]) restrictProcs(procs []int) *problem[S] {
	return p.subset(p.keys, procs, func(int32) bool { return true }, func(i int32) int32 { return p.keyOf[i] })
}

// subset returns the problem of the operations of procs that keep
// accepts, over keys, each operation's key renamed by key.
func (p *problem[S]) subset(keys []history.Value, procs []int, keep func(int32) bool, key func(int32) int32) *problem[S] {
	c := &checker.Compiled{Table: p.c.Table}
	q := &problem[S]{m: p.m, h: p.h, c: c, keyed: p.keyed, keys: keys, init: p.init, noCountBound: p.noCountBound}
	for _, pi := range procs {
		var mine []int32
		for _, i := range p.procs[pi] {
			if !keep(i) {
				continue
			}
			mine = append(mine, int32(len(c.Ops)))
			c.Ops = append(c.Ops, p.c.Ops[i])
			c.Pos = append(c.Pos, p.c.Pos[i])
			q.readLike = append(q.readLike, p.readLike[i])
			q.keyOf = append(q.keyOf, key(i))
		}
		if len(mine) > 0 {
			q.procs = append(q.procs, mine)
		}
	}
	return q
}
