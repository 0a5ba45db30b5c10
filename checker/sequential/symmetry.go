package sequential

import (
	"encoding/binary"
	"slices"

	"github.com/histcheck/histcheck/model"
)

// reductions are what the search derives from the problem's shape before it
// starts, to explore fewer configurations without changing its verdict.
//
// Symmetry: two processes whose remaining operations are the same sequence
// of identical operations (same key, kind, arguments and outcome rule) are
// interchangeable, since a model's Step does not depend on the process.
// Jepsen gives every crashed client a fresh process, so a history has many
// processes that hold one crashed operation, often the same one. Each
// remaining sequence is interned as a suffix id; a configuration's memo key
// holds the processes' suffix ids as a sorted multiset, and of processes
// with the same suffix the search branches on one only.
//
// Optional last operations: an operation of unknown outcome that is its
// process's last (lastOpt) can take effect at any point after its
// predecessors, or never. Never taking it is the same as leaving it for
// later, so the search never branches on skipping it, and takes it only
// where it matters (see guard).
type reductions struct {
	// suffix[pi][f] is the id of process pi's operations from index f on;
	// suffix[pi][len(procs[pi])] is 0, the empty sequence.
	suffix  [][]int32
	lastOpt []bool // per compiled op
}

// opSig is what makes two compiled operations identical for the search.
type opSig struct {
	key        int32
	kind       uint8
	unknown    bool
	a, b, c    int64
	start, end int64
}

func newReductions[S comparable](p *problem[S]) reductions {
	// A register's states are value ids, so its steps cannot depend on
	// recorded times; other models may (a lease's expiry does), and
	// their operations are identical only at the same times.
	_, timeless := p.m.(model.ReadWriteRegister)
	sigs := make(map[opSig]int32)
	type link struct{ op, rest int32 }
	suffixes := map[link]int32{}
	r := reductions{suffix: make([][]int32, len(p.procs)), lastOpt: make([]bool, len(p.c.Ops))}
	for pi, ops := range p.procs {
		ids := make([]int32, len(ops)+1)
		for f := len(ops) - 1; f >= 0; f-- {
			o := &p.c.Ops[ops[f]]
			sg := opSig{key: p.keyOf[ops[f]], kind: o.Kind, unknown: o.Unknown, a: o.A, b: o.B, c: o.C}
			if !timeless {
				sg.start, sg.end = o.Start, o.End
			}
			sid, ok := sigs[sg]
			if !ok {
				sid = int32(len(sigs))
				sigs[sg] = sid
			}
			l := link{sid, ids[f+1]}
			id, ok := suffixes[l]
			if !ok {
				id = int32(len(suffixes)) + 1
				suffixes[l] = id
			}
			ids[f] = id
		}
		r.suffix[pi] = ids
		if n := len(ops); n > 0 && p.c.Ops[ops[n-1]].Unknown {
			r.lastOpt[ops[n-1]] = true
		}
	}
	return r
}

// guard is the condition a configuration reached by taking an optional
// last operation puts on what comes next. Taking such an operation X
// from state pre is worth it only if the next operation Y behaves
// differently after it: Y illegal in pre, or leading elsewhere from pre.
// Otherwise Y alone from pre reaches the same state with X still to take,
// so every completion of the first order completes the second, and a
// completion with the fewest optional operations taken never has X
// followed by such a Y, nor X last, nor X leaving the state as it was.
// Reads run eagerly once legal, so one that runs right after X was
// illegal in pre and lifts the guard. Skipping an operation of unknown
// outcome places nothing and can be decided as soon as its process's
// earlier operations are placed, which is before X whenever the next
// operation after X needs it; so a guarded configuration skips nothing.
type guard[S comparable] struct {
	on    bool
	key   int32
	pre   S
	preID uint32
}

// allows reports whether an operation that leads from the current state of
// its key k to ns may follow under g.
func (g *guard[S]) allows(m model.Model[S], k int32, op *model.Op, ns S) bool {
	if !g.on {
		return true
	}
	if k != g.key {
		return false
	}
	was, ok := m.Step(g.pre, op)
	return !ok || was != ns
}

// canonKey encodes the configuration up to symmetry: the sorted suffix
// ids of the processes, each key's interned state, and the guard.
// With restore, every optional last operation taken counts as not taken:
// that configuration has every continuation this one has.
func (s *searcher[S]) canonKey(g *guard[S], restore bool) string {
	ids := s.scratch[:0]
	for pi, f := range s.front {
		ops := s.p.procs[pi]
		if restore && int(f) == len(ops) && f > 0 && s.red.lastOpt[ops[f-1]] {
			f--
		}
		ids = append(ids, s.red.suffix[pi][f])
	}
	slices.Sort(ids)
	s.scratch = ids
	b := s.buf[:0]
	for _, id := range ids {
		b = binary.AppendUvarint(b, uint64(id))
	}
	for _, id := range s.sid {
		b = binary.AppendUvarint(b, uint64(id))
	}
	if g.on {
		b = binary.AppendUvarint(b, uint64(g.key)+1)
		b = binary.AppendUvarint(b, uint64(g.preID))
	} else {
		b = append(b, 0)
	}
	s.buf = b
	return string(b)
}
