package elle

import (
	"cmp"
	"slices"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// addProcessOrder adds an edge from each transaction to the next one its
// process ran. Failed transactions took no effect and are skipped; a
// crashed one is its logical process's last (a client that goes on gets a
// new logical process).
func addProcessOrder(g *Graph, txns []txn.Txn) {
	last := map[int]int{}
	for i := range txns {
		t := &txns[i]
		if t.Status == history.Fail {
			continue
		}
		if p, ok := last[t.Process]; ok {
			g.add(p, i, Why{Type: Process})
		}
		last[t.Process] = i
	}
}

// addRealtimeOrder adds edges T1 -> T2 where T1 completed before T2 was
// invoked (ties overlap), keeping only those not implied by others: a
// transaction's predecessors are the completed transactions that no
// completed transaction follows yet (the frontier), so the edges stay
// near linear in number while their transitive closure is the whole
// real-time order. Crashed transactions never complete, so they only
// receive edges. They are added as g's real-time order (Graph.rtTo):
// those of each completed transaction as it completes, then those of
// the crashed ones, in the order of the transactions.
func addRealtimeOrder(g *Graph, txns []txn.Txn, h *history.History) {
	evs := realtimeEvents(txns, h)
	// Each transaction's predecessors are the frontier when it was
	// invoked, kept in one arena: preds[t] = arena[from[t]:to[t]]. A
	// first sweep counts them, so that the arena and the graph's list
	// are made once, at their size.
	var fr frontier
	n := len(txns)
	total, _ := fr.sweep(evs, n, nil, nil, nil)
	arena := make([]int32, total)
	from := make([]int32, n)
	to := make([]int32, n)
	_, completed := fr.sweep(evs, n, arena, from, to)
	// The arena holds each edge by its target; the graph wants them by
	// source, in the order they are added.
	offs := make([]int32, n+1)
	for _, p := range arena {
		offs[p+1]++
	}
	for i := 0; i < n; i++ {
		offs[i+1] += offs[i]
	}
	byFrom := make([]int32, total)
	fill := append([]int32(nil), offs[:n]...)
	place := func(t int32) {
		for _, p := range arena[from[t]:to[t]] {
			byFrom[fill[p]] = t
			fill[p]++
		}
		from[t] = to[t] // its edges are placed
	}
	for _, t := range completed {
		place(t)
	}
	for t := range int32(n) {
		place(t)
	}
	g.mergeRealtime(&Graph{n: n, rtOffs: offs, rtTo: byFrom})
	g.frozen = false
}

// event is a transaction's invocation or completion.
type event struct {
	at     int64
	invoke bool
	t      int32
}

// realtimeEvents lists the invocations of the transactions that did not
// fail and the completions of the committed ones, in time order,
// invocations before completions at the same instant (those overlap).
func realtimeEvents(txns []txn.Txn, h *history.History) []event {
	evs := make([]event, 0, 2*len(txns))
	for i := range txns {
		if txns[i].Status == history.Fail {
			continue
		}
		op := &h.Ops[txns[i].Op]
		evs = append(evs, event{at: op.Call, invoke: true, t: int32(i)})
		if op.Return != history.Infinity && txns[i].Committed() {
			evs = append(evs, event{at: op.Return, t: int32(i)})
		}
	}
	slices.SortStableFunc(evs, func(x, y event) int {
		if x.at != y.at {
			return cmp.Compare(x.at, y.at)
		}
		switch {
		case x.invoke && !y.invoke:
			return -1
		case !x.invoke && y.invoke:
			return 1
		}
		return 0
	})
	return evs
}

// frontier is the completed transactions that no completed transaction
// follows yet, swept through the events.
type frontier struct {
	members []int32
	// entered[t] and invoked[t] are the positions of t's completion and
	// invocation among the events.
	entered, invoked []int32
}

// sweep goes through the events and returns how many predecessors the
// transactions have in all and the order in which they completed. With
// an arena, it also writes each one's predecessors, the frontier at its
// invocation, to arena[from[t]:to[t]]. A completing transaction replaces
// those of its predecessors still in the frontier, which are exactly the
// members that entered it before the transaction was invoked (a member
// that leaves never comes back).
func (f *frontier) sweep(evs []event, n int, arena, from, to []int32) (int, []int32) {
	f.members = f.members[:0]
	if f.entered == nil {
		f.entered, f.invoked = make([]int32, n), make([]int32, n)
	}
	total := 0
	var completed []int32
	for i, e := range evs {
		if e.invoke {
			if arena != nil {
				from[e.t] = int32(total)
				copy(arena[total:], f.members)
				to[e.t] = int32(total + len(f.members))
			}
			total += len(f.members)
			f.invoked[e.t] = int32(i)
			continue
		}
		kept := f.members[:0]
		for _, m := range f.members {
			if f.entered[m] > f.invoked[e.t] {
				kept = append(kept, m)
			}
		}
		f.members = append(kept, e.t)
		f.entered[e.t] = int32(i)
		if arena != nil {
			completed = append(completed, e.t)
		}
	}
	return total, completed
}
