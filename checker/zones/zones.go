// Package zones decides linearizability in O(n log n) for registers whose
// written values are unique (per key): Gibbons and Korach's read-mapping
// test in the zone form. Each written value and its readers form a cluster;
// the cluster's forward zone, from the earliest return to the latest call
// among its operations, is a span during which the register must hold that
// value. The history is linearizable exactly when no read returns before its
// write is called, no two forward zones overlap, and no backward zone (a
// cluster whose operations all overlap) lies inside a forward zone.
package zones

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sort"

	"github.com/histcheck/histcheck/model"
)

// Method is the name results decided here carry in checker.Result.Method.
const Method = "zones"

// Applicable reports whether one object's operations, compiled by a model
// that classifies reads and writes, can be decided here: every operation
// is a read or a blind write, no value is written twice, and no write
// writes the initial value init (so that every read names its write).
func Applicable(ops []model.Op, rw model.ReadWriteRegister, init int64) bool {
	written := make(map[int64]bool)
	for i := range ops {
		switch rw.Class(&ops[i]) {
		case model.ReadOp, model.AnyReadOp:
		case model.WriteOp:
			v := ops[i].A
			if v == init || written[v] {
				return false
			}
			written[v] = true
		default:
			return false
		}
	}
	return true
}

// Kind names the shape of a violation.
type Kind uint8

// Kinds of violation.
const (
	// ThinAir: a read returned a value nobody wrote.
	ThinAir Kind = iota + 1
	// ReadBeforeWrite: a read returned before the write of its value was
	// called.
	ReadBeforeWrite
	// Overlap: two values must each be held throughout spans that overlap.
	Overlap
	// Inside: a value could only have been held at an instant when another
	// value must be held.
	Inside
)

// Zone is the span a cluster (a written value and its reads) constrains.
// A forward zone runs From the earliest return To the latest call among
// its operations: the value must be held throughout. A backward zone runs
// From the latest call To the earliest return: the value is held at some
// instant of it. FromOp and ToOp are the operations at the ends (FromOp is
// −1 for the initial value's start); Write is the write (−1 for the initial
// value).
type Zone struct {
	Value          int64
	Write          int
	From, To       int64
	FromOp, ToOp   int // −1 when From is the initial value's time
	Forward        bool
	IsInitialValue bool
}

// Outcome is the decision for one object.
type Outcome struct {
	// Linearizable is the verdict.
	Linearizable bool
	// Order, when linearizable, lists indices of ops in an order that is
	// legal and respects real time: every completed operation, and the
	// operations of unknown outcome whose value was read.
	Order []int
	// Points holds, for each operation of Order, an instant inside its
	// interval; the points increase along Order and an operation that
	// returned before another was called has the smaller point, so orders
	// of several objects merge by point.
	Points []int64
	// Kind, Read, A and B describe a violation: the read concerned
	// (ThinAir, ReadBeforeWrite) and the two zones (ReadBeforeWrite: A is
	// the write's; Overlap: both forward; Inside: A forward, B backward).
	Kind Kind
	Read int
	A, B Zone
}

// Ops returns the operations a violation involves, at most six: the read,
// or each zone's write and the operations that define its ends.
func (o *Outcome) Ops() []int {
	var out []int
	add := func(i int) {
		if i < 0 {
			return
		}
		for _, j := range out {
			if j == i {
				return
			}
		}
		out = append(out, i)
	}
	switch o.Kind {
	case ThinAir:
		add(o.Read)
	case ReadBeforeWrite:
		add(o.Read)
		add(o.A.Write)
	case Overlap, Inside:
		// The operation called last in a forward zone is a read, so it
		// completed; it goes first.
		add(o.A.ToOp)
		add(o.A.Write)
		add(o.A.FromOp)
		add(o.B.Write)
		add(o.B.FromOp)
		add(o.B.ToOp)
	}
	return out
}

// Infinities stand for the initial value's write (before everything) and
// the return of an operation of unknown outcome.
const (
	minusInf = math.MinInt64
	plusInf  = math.MaxInt64
)

// cluster is a written value with its reads.
type cluster struct {
	value   int64
	write   int // −1 for the initial value
	reads   []int
	f, s    int64 // earliest return, latest call
	fOp     int
	sOp     int
	forward bool
	t       int64 // for a backward cluster: the instant it takes effect
}

func (c *cluster) zone() Zone {
	z := Zone{Value: c.value, Write: c.write, FromOp: c.fOp, ToOp: c.sOp, Forward: c.forward, IsInitialValue: c.write < 0}
	if c.forward {
		z.From, z.To = c.f, c.s
	} else {
		// A backward zone runs from the latest call to the earliest return.
		z.From, z.To = c.s, c.f
		z.FromOp, z.ToOp = c.sOp, c.fOp
	}
	return z
}

// Decide checks one object's operations, which must be Applicable, starting
// from the value init. It returns ctx's error if ctx is done before it
// starts.
//
// The clusters and zones are gathered here rather than by helpers that
// return them, so that their lists stay on the stack; the helpers decide.
func Decide(ctx context.Context, ops []model.Op, rw model.ReadWriteRegister, init int64) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	byValue := make(map[int64]*cluster)
	var clusters []*cluster
	newCluster := func(v int64, w int) *cluster {
		c := &cluster{value: v, write: w, f: plusInf, s: minusInf, fOp: -1, sOp: -1}
		byValue[v] = c
		clusters = append(clusters, c)
		return c
	}
	for i := range ops {
		if rw.Class(&ops[i]) == model.WriteOp {
			newCluster(ops[i].A, i)
		}
	}
	var anyReads []int
	for i := range ops {
		switch rw.Class(&ops[i]) {
		case model.AnyReadOp:
			if !ops[i].Unknown {
				anyReads = append(anyReads, i)
			}
		case model.ReadOp:
			c := byValue[ops[i].A]
			if c == nil && ops[i].A == init {
				c = newCluster(init, -1)
			}
			if bad := readViolation(ops, i, c); bad.Kind != 0 {
				return bad, nil
			}
			c.reads = append(c.reads, i)
		}
	}
	// Zones. A write of unknown outcome that nobody read need not have
	// happened: it is left out.
	var live, forward, backward []*cluster
	for _, c := range clusters {
		if c.write >= 0 && ops[c.write].Unknown && len(c.reads) == 0 {
			continue
		}
		live = append(live, c)
		if c.span(ops) {
			forward = append(forward, c)
		} else {
			backward = append(backward, c)
		}
	}
	if bad := conflict(forward, backward); bad.Kind != 0 {
		return bad, nil
	}
	return Outcome{Linearizable: true}.withOrder(ops, live, anyReads, returnOf(ops)), nil
}

// returnOf gives an operation's return, +∞ for one of unknown outcome.
func returnOf(ops []model.Op) func(i int) int64 {
	return func(i int) int64 {
		if ops[i].Unknown {
			return plusInf
		}
		return ops[i].Return
	}
}

// readViolation tells whether read i of cluster c (nil: nobody wrote its
// value and it is not the initial value) is a violation by itself: a read
// from thin air, or one that returned before its only write was called.
// The Outcome's Kind is zero when it is not.
func readViolation(ops []model.Op, i int, c *cluster) Outcome {
	v := ops[i].A
	if c == nil {
		return Outcome{Kind: ThinAir, Read: i, A: Zone{Value: v, Write: -1}}
	}
	if c.write >= 0 && ops[i].Return < ops[c.write].Call {
		return Outcome{Kind: ReadBeforeWrite, Read: i, A: Zone{Value: v, Write: c.write}}
	}
	return Outcome{}
}

// span sets the cluster's zone, from the earliest return to the latest
// call among its operations, and reports whether it is forward.
func (c *cluster) span(ops []model.Op) bool {
	ret := returnOf(ops)
	if c.write < 0 {
		c.f, c.fOp = minusInf, -1
	} else {
		c.f, c.fOp = ret(c.write), c.write
		c.s, c.sOp = ops[c.write].Call, c.write
	}
	for _, r := range c.reads {
		if rr := ret(r); rr < c.f {
			c.f, c.fOp = rr, r
		}
		if ops[r].Call > c.s {
			c.s, c.sOp = ops[r].Call, r
		}
	}
	c.forward = c.f < c.s
	return c.forward
}

// conflict finds two forward zones that overlap, or a backward zone inside
// a forward one, and otherwise sets each backward cluster's instant. It
// sorts forward by the zones' starts. The Outcome's Kind is zero when
// there is no conflict.
func conflict(forward, backward []*cluster) Outcome {
	sort.Slice(forward, func(a, b int) bool { return forward[a].f < forward[b].f })
	for k := 1; k < len(forward); k++ {
		if p, q := forward[k-1], forward[k]; q.f < p.s {
			return Outcome{Kind: Overlap, A: p.zone(), B: q.zone()}
		}
	}
	for _, c := range backward {
		// The forward zone with the latest start before c's latest call is
		// the only one that can hold that call in its interior.
		k := sort.Search(len(forward), func(k int) bool { return forward[k].f >= c.s }) - 1
		c.t = c.s
		if k >= 0 && forward[k].s > c.s {
			if forward[k].s > c.f {
				return Outcome{Kind: Inside, A: forward[k].zone(), B: c.zone()}
			}
			c.t = forward[k].s
		}
	}
	return Outcome{}
}

// withOrder builds the linearization: each operation gets a point in its
// interval (a forward cluster's operations from the zone's start on, a
// backward cluster's all at its instant) and the operations are sorted by
// point, ties broken so that clusters stay together and each write comes
// before its reads.
func (o Outcome) withOrder(ops []model.Op, live []*cluster, anyReads []int, ret func(int) int64) Outcome {
	type pt struct {
		p        int64
		key      int64 // the cluster's start (forward) or instant (backward)
		backward bool  // at equal keys a backward cluster goes first
		cl       int
		rank     int // 0 for the write
		call     int64
		op       int
	}
	var pts []pt
	for ci, c := range live {
		key, bw := c.f, !c.forward
		if bw {
			key = c.t
		}
		point := func(i int) int64 {
			if bw {
				return c.t
			}
			return max(ops[i].Call, c.f)
		}
		if c.write >= 0 {
			pts = append(pts, pt{point(c.write), key, bw, ci, 0, ops[c.write].Call, c.write})
		}
		for _, r := range c.reads {
			pts = append(pts, pt{point(r), key, bw, ci, 1, ops[r].Call, r})
		}
	}
	for _, r := range anyReads {
		pts = append(pts, pt{ops[r].Call, ops[r].Call, true, -1, 1, ops[r].Call, r})
	}
	slices.SortFunc(pts, func(x, y pt) int {
		switch {
		case x.p != y.p:
			return cmp.Compare(x.p, y.p)
		case x.key != y.key:
			return cmp.Compare(x.key, y.key)
		case x.backward != y.backward:
			if x.backward {
				return -1
			}
			return 1
		case x.cl != y.cl:
			return cmp.Compare(x.cl, y.cl)
		case x.rank != y.rank:
			return cmp.Compare(x.rank, y.rank)
		case x.call != y.call:
			return cmp.Compare(x.call, y.call)
		}
		return cmp.Compare(x.op, y.op)
	})
	o.Order = make([]int, len(pts))
	o.Points = make([]int64, len(pts))
	for i := range pts {
		o.Order[i], o.Points[i] = pts[i].op, pts[i].p
	}
	return o
}
