package linear

import (
	"fmt"
	"math/rand"
	"sort"

	"github.com/histcheck/histcheck/history"
)

// genKind selects the operations genMedium draws.
type genKind int

const (
	genRegister genKind = iota
	genCAS
	genKV
	// genRewrites is a register whose written values are distinct but
	// that one write in eight writes the initial value 0 again.
	genRewrites
)

// genMedium makes a random history of n operations by c clients that
// actually ran against one copy of the object (each operation takes effect
// at a random point of its interval), then, half of the time, corrupts the
// value of one read so that the history is usually not linearizable. About
// one operation in 25 crashes (outcome unknown; it took effect or not) and
// one in 30 fails. Values repeat, so reads are ambiguous.
func genMedium(r *rand.Rand, kind genKind, n, c int) []history.Op {
	return genMediumWith(r, kind, n, c, nil)
}

// genMediumWith is genMedium with the drawn operations passed through
// alter, when set, before they run.
func genMediumWith(r *rand.Rand, kind genKind, n, c int, alter func([]genPending)) []history.Op {
	all := make([]genPending, 0, n)
	free := make([]int64, c) // next time each client may call
	for i := 0; i < n; i++ {
		all = append(all, genDraw(r, kind, free))
	}
	if alter != nil {
		alter(all)
	}
	reads := genReplay(all, kind)
	if len(reads) > 0 && r.Intn(2) == 0 {
		o := &all[reads[r.Intn(len(reads))]].op
		if kind == genKV {
			o.Value = history.StringValue(fmt.Sprintf("v%d", r.Intn(5)))
		} else {
			o.Value = history.IntValue(int64(r.Intn(5)))
		}
	}
	out := make([]history.Op, len(all))
	for i := range all {
		out[i] = all[i].op
		if out[i].Status == history.Info {
			out[i].Return = history.Infinity
		}
	}
	return out
}

// genPending is a drawn operation before the replay fills in what it
// observed: the instant it takes effect, if it does.
type genPending struct {
	op    history.Op
	point int64
	takes bool // takes effect at point
}

// genDraw draws the next operation of a random client, after the client's
// previous one (free holds each client's next possible call).
func genDraw(r *rand.Rand, kind genKind, free []int64) genPending {
	cl := r.Intn(len(free))
	call := free[cl] + int64(r.Intn(4))
	ret := call + int64(r.Intn(12))
	free[cl] = ret + 1
	p := genPending{point: call + r.Int63n(ret-call+1), takes: true}
	p.op = history.Op{Client: fmt.Sprintf("c%d", cl), Call: call, Return: ret, Status: history.OK}
	if kind == genKV {
		p.op.Key = history.StringValue(fmt.Sprintf("k%d", r.Intn(3)))
	}
	genFunction(r, kind, &p.op)
	switch x := r.Intn(150); {
	case x < 6:
		p.op.Status = history.Info
		p.takes = r.Intn(2) == 0
	case x < 11:
		p.op.Status = history.Fail
		p.takes = false
	}
	return p
}

// genFunction draws what o does: a read (its value comes from the
// replay), a write, or the kind's own operation (cas, append).
func genFunction(r *rand.Rand, kind genKind, o *history.Op) {
	switch x := r.Intn(10); {
	case x < 4:
		o.F = "read"
	case kind == genCAS && x < 7:
		o.F = "cas"
		o.Value = history.ListValue(history.IntValue(int64(r.Intn(4))), history.IntValue(int64(r.Intn(4))))
	case kind == genKV && x < 7:
		o.F = "append"
		o.Value = history.StringValue(fmt.Sprintf("%d", r.Intn(3)))
	case kind == genRewrites:
		o.F, o.Value = "write", history.IntValue(0)
		if r.Intn(8) != 0 {
			o.Value = history.IntValue(1 + r.Int63n(1<<40))
		}
	default:
		o.F = "write"
		o.Value = history.IntValue(int64(r.Intn(5)))
		if kind == genKV {
			o.Value = history.StringValue(fmt.Sprintf("v%d", r.Intn(5)))
		}
	}
}

// genReplay applies the operations that take effect in the order of their
// points, filling in what reads returned and failing a completed cas whose
// expected value was not there. It returns the completed reads.
func genReplay(all []genPending, kind genKind) []int {
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return all[order[a]].point < all[order[b]].point })
	state := map[history.Value]history.Value{}
	init := history.IntValue(0)
	if kind == genKV {
		init = history.StringValue("")
	}
	get := func(k history.Value) history.Value {
		if v, ok := state[k]; ok {
			return v
		}
		return init
	}
	var reads []int
	for _, i := range order {
		p := &all[i]
		o := &p.op
		if !p.takes {
			continue
		}
		cur := get(o.Key)
		switch o.F {
		case "read":
			o.Value = cur
			if o.Status == history.OK {
				reads = append(reads, i)
			} else {
				o.Value = history.NilValue
			}
		case "write":
			state[o.Key] = o.Value
		case "append":
			s, _ := cur.Str()
			state[o.Key] = history.StringValue(s + o.Value.Text())
		case "cas":
			e := o.Value.Elems()
			if cur == e[0] {
				state[o.Key] = e[1]
			} else if o.Status == history.OK {
				o.Status = history.Fail
			}
		}
	}
	return reads
}
