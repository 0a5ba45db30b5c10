package linear

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// linkBySort is the definition of link's event list: every call and
// return sorted by time, calls before returns at one time, then by
// operation.
func linkBySort(ops []model.Op) (entOp, match, retOf []int32) {
	type event struct {
		t   int64
		ret bool
		op  int32
	}
	var evs []event
	for i := range ops {
		evs = append(evs, event{ops[i].Call, false, int32(i)}, event{ops[i].Return, true, int32(i)})
	}
	slices.SortFunc(evs, func(x, y event) int {
		r := func(b bool) int {
			if b {
				return 1
			}
			return 0
		}
		return cmp.Or(cmp.Compare(x.t, y.t), cmp.Compare(r(x.ret), r(y.ret)), cmp.Compare(x.op, y.op))
	})
	entOp, match, retOf = make([]int32, 2*len(ops)+2), make([]int32, 2*len(ops)+2), make([]int32, len(ops))
	for j, ev := range evs {
		entOp[j+1] = ev.op
		if ev.ret {
			retOf[ev.op] = int32(j + 1)
		}
	}
	for j, ev := range evs {
		if !ev.ret {
			match[j+1] = retOf[ev.op]
		}
	}
	return entOp, match, retOf
}

// TestLink checks the event list against its definition, on operations in
// call order and not, with times that tie and returns that never came.
func TestLink(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 3000 {
		ops := make([]model.Op, 1+r.IntN(25))
		for i := range ops {
			call := int64(r.IntN(12))
			ops[i] = model.Op{Call: call, Return: call + int64(r.IntN(4))}
			if r.IntN(6) == 0 {
				ops[i].Unknown, ops[i].Return = true, history.Infinity
			}
		}
		if trial%3 != 0 {
			slices.SortStableFunc(ops, func(x, y model.Op) int { return cmp.Compare(x.Call, y.Call) })
		}
		s := &searcher[int64]{ops: ops}
		s.link()
		entOp, match, retOf := linkBySort(ops)
		if !slices.Equal(s.entOp, entOp) || !slices.Equal(s.match, match) || !slices.Equal(s.retOf, retOf) {
			t.Fatalf("trial %d: link gives entries %v, matches %v; want %v, %v", trial, s.entOp, s.match, entOp, match)
		}
	}
}
