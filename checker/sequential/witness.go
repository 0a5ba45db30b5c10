package sequential

import (
	"container/heap"

	"github.com/histcheck/histcheck/history"
)

// processOrdered returns order itself when it keeps every process's order.
// Otherwise (a linearization assembled per key may interleave keys against
// a process's order) it reorders it: each key's sub-order is kept, each
// process's order is imposed, and ties follow the original order. Such an
// order exists whenever order is a linearization, since program order is
// part of real time and per-key linearizations compose (locality). It
// returns nil if no such order exists.
func processOrdered(h *history.History, order []int, keyed bool) []int {
	if keepsProcessOrder(h, order) {
		return order
	}
	if !keyed {
		return nil
	}
	n := len(order)
	rank := make(map[int]int, n) // position in h.Ops -> index in order
	for i, pos := range order {
		rank[pos] = i
	}
	succ := make([][]int, n)
	indeg := make([]int, n)
	addEdge := func(a, b int) {
		succ[a] = append(succ[a], b)
		indeg[b]++
	}
	lastOfKey := make(map[history.Value]int)
	for i, pos := range order {
		k := h.Ops[pos].Key
		if j, ok := lastOfKey[k]; ok {
			addEdge(j, i)
		}
		lastOfKey[k] = i
	}
	lastOfProc := make(map[int]int)
	for pos := range h.Ops { // h.Ops is in call order, hence in process order
		i, ok := rank[pos]
		if !ok {
			continue
		}
		p := h.Ops[pos].Process
		if j, ok := lastOfProc[p]; ok {
			addEdge(j, i)
		}
		lastOfProc[p] = i
	}
	ready := &intHeap{}
	for i := 0; i < n; i++ {
		if indeg[i] == 0 {
			heap.Push(ready, i)
		}
	}
	out := make([]int, 0, n)
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		out = append(out, order[i])
		for _, j := range succ[i] {
			if indeg[j]--; indeg[j] == 0 {
				heap.Push(ready, j)
			}
		}
	}
	if len(out) != n {
		return nil
	}
	return out
}

// keepsProcessOrder reports whether order lists each process's operations
// in their call order (h.Ops is sorted by call, ties in input order).
func keepsProcessOrder(h *history.History, order []int) bool {
	last := make(map[int]int)
	for _, pos := range order {
		p := h.Ops[pos].Process
		if j, ok := last[p]; ok && pos < j {
			return false
		}
		last[p] = pos
	}
	return true
}

type intHeap []int

func (h intHeap) Len() int           { return len(h) }
func (h intHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h intHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *intHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *intHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
