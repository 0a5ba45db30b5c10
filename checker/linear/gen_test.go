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
)

// genMedium makes a random history of n operations by c clients that
// actually ran against one copy of the object (each operation takes effect
// at a random point of its interval), then, half of the time, corrupts the
// value of one read so that the history is usually not linearizable. About
// one operation in 25 crashes (outcome unknown; it took effect or not) and
// one in 30 fails. Values repeat, so reads are ambiguous.
func genMedium(r *rand.Rand, kind genKind, n, c int) []history.Op {
	type pending struct {
		op    history.Op
		point int64
		takes bool // takes effect at point
	}
	var all []pending
	free := make([]int64, c) // next time each client may call
	for i := 0; i < n; i++ {
		cl := r.Intn(c)
		call := free[cl] + int64(r.Intn(4))
		ret := call + int64(r.Intn(12))
		free[cl] = ret + 1
		p := pending{point: call + r.Int63n(ret-call+1), takes: true}
		o := history.Op{Client: fmt.Sprintf("c%d", cl), Call: call, Return: ret, Status: history.OK}
		if kind == genKV {
			o.Key = history.StringValue(fmt.Sprintf("k%d", r.Intn(3)))
		}
		switch x := r.Intn(10); {
		case x < 4:
			o.F = "read"
		case kind == genCAS && x < 7:
			o.F = "cas"
			o.Value = history.ListValue(history.IntValue(int64(r.Intn(4))), history.IntValue(int64(r.Intn(4))))
		case kind == genKV && x < 7:
			o.F = "append"
			o.Value = history.StringValue(fmt.Sprintf("%d", r.Intn(3)))
		default:
			o.F = "write"
			o.Value = history.IntValue(int64(r.Intn(5)))
			if kind == genKV {
				o.Value = history.StringValue(fmt.Sprintf("v%d", r.Intn(5)))
			}
		}
		switch x := r.Intn(150); {
		case x < 6:
			o.Status = history.Info
			p.takes = r.Intn(2) == 0
		case x < 11:
			o.Status = history.Fail
			p.takes = false
		}
		all = append(all, pending{op: o, point: p.point, takes: p.takes})
	}
	// Replay at the points to fill in reads and cas outcomes.
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
