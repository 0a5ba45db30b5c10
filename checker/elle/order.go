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
// receive edges.
func addRealtimeOrder(g *Graph, txns []txn.Txn, h *history.History) {
	type event struct {
		at     int64
		invoke bool
		t      int
	}
	evs := make([]event, 0, 2*len(txns))
	for i := range txns {
		if txns[i].Status == history.Fail {
			continue
		}
		op := &h.Ops[txns[i].Op]
		evs = append(evs, event{at: op.Call, invoke: true, t: i})
		if op.Return != history.Infinity && txns[i].Committed() {
			evs = append(evs, event{at: op.Return, t: i})
		}
	}
	// Invocations before completions at the same instant: those overlap.
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
	// Each transaction's predecessors are the frontier when it was
	// invoked, kept in one arena: preds[t] = arena[from[t]:to[t]].
	var frontier, arena []int
	from := make([]int, len(txns))
	to := make([]int, len(txns))
	// marked[f] == e.t+1 says f precedes the completing transaction e.t:
	// marking its predecessors keeps the frontier's update linear.
	marked := make([]int, len(txns))
	// completed lists the transactions in the order they completed: the
	// edges are added after the frontier's pass, when their number is
	// known, in that order.
	var completed []int
	for _, e := range evs {
		if e.invoke {
			from[e.t] = len(arena)
			arena = append(arena, frontier...)
			to[e.t] = len(arena)
			continue
		}
		completed = append(completed, e.t)
		ps := arena[from[e.t]:to[e.t]]
		for _, p := range ps {
			marked[p] = e.t + 1
		}
		kept := frontier[:0]
		for _, f := range frontier {
			if marked[f] != e.t+1 {
				kept = append(kept, f)
			}
		}
		frontier = append(kept, e.t)
	}
	g.pend = slices.Grow(g.pend, len(arena))
	for _, t := range completed {
		for _, p := range arena[from[t]:to[t]] {
			g.add(p, t, Why{Type: Realtime})
		}
		from[t] = to[t] // its edges are added
	}
	// Crashed transactions never complete: their edges are added here,
	// in the order of the transactions.
	for t := range txns {
		for _, p := range arena[from[t]:to[t]] {
			g.add(p, t, Why{Type: Realtime})
		}
	}
}
