package elle

import (
	"slices"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// addProcessOrder adds an edge from each transaction to the next one its
// process ran. Failed transactions took no effect and are skipped; a
// crashed one is its logical process's last (a client that goes on gets a
// new logical process).
func addProcessOrder(g *Graph, txns []txn.Txn) {
	if g.pend == nil {
		// At most one edge per transaction: made once, at its size.
		g.pend, g.whys = make([]pending, 0, len(txns)), make([]int32, 0, len(txns))
	}
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
// receive edges. They are g's real-time order (Graph.rtTo), each
// source's targets in the order the edges were always added: those of
// the completed transactions as they completed, then those of the
// crashed ones, in the order of the transactions.
func addRealtimeOrder(g *Graph, txns []txn.Txn, h *history.History) {
	evs := realtimeEvents(txns, h)
	n := len(txns)
	// A first sweep counts each source's targets, so that they are
	// placed in one array, made once at its size, by a second.
	var fr frontier
	offs := make([]int32, n+1)
	fr.sweep(evs, n, offs[1:], nil)
	for i := 0; i < n; i++ {
		offs[i+1] += offs[i]
	}
	to := make([]int32, offs[n])
	fill := append([]int32(nil), offs[:n]...)
	rank := fr.sweep(evs, n, fill, to)
	// The sweep places targets as they are invoked; they are added as
	// they complete, which is nearly the same order.
	for a := 0; a < n; a++ {
		sortByRank(to[offs[a]:offs[a+1]], rank)
	}
	g.mergeRealtime(&Graph{n: n, rtOffs: offs, rtTo: to})
	g.frozen = false
}

// sortByRank sorts ts by rank, by insertion: they come nearly sorted.
func sortByRank(ts, rank []int32) {
	for i := 1; i < len(ts); i++ {
		t, r := ts[i], rank[ts[i]]
		j := i
		for ; j > 0 && rank[ts[j-1]] > r; j-- {
			ts[j] = ts[j-1]
		}
		ts[j] = t
	}
}

// event is a transaction's invocation or completion.
type event struct {
	at     int64
	invoke bool
	t      int32
}

// realtimeEvents lists the invocations of the transactions that did not
// fail and the completions of the committed ones, in time order,
// invocations before completions at the same instant (those overlap),
// and otherwise in the order of the transactions.
func realtimeEvents(txns []txn.Txn, h *history.History) []event {
	calls := make([]event, 0, len(txns))
	rets := make([]event, 0, len(txns))
	for i := range txns {
		if txns[i].Status == history.Fail {
			continue
		}
		op := &h.Ops[txns[i].Op]
		calls = append(calls, event{at: op.Call, invoke: true, t: int32(i)})
		if op.Return != history.Infinity && txns[i].Committed() {
			rets = append(rets, event{at: op.Return, t: int32(i)})
		}
	}
	// The transactions come in call order and mostly complete in it:
	// each run is sorted apart, which costs one pass when it already is,
	// and the two are merged.
	sortEvents(calls)
	sortEvents(rets)
	evs := make([]event, 0, len(calls)+len(rets))
	i, j := 0, 0
	for i < len(calls) && j < len(rets) {
		if calls[i].at <= rets[j].at {
			evs = append(evs, calls[i])
			i++
		} else {
			evs = append(evs, rets[j])
			j++
		}
	}
	return append(append(evs, calls[i:]...), rets[j:]...)
}

// sortEvents sorts events of one kind by time, then transaction. They
// come nearly sorted: each is moved back by insertion, until that has
// cost as many moves as a sort would, which then sorts the rest.
func sortEvents(evs []event) {
	budget := 16 * len(evs)
	for i := 1; i < len(evs); i++ {
		e := evs[i]
		j := i
		for ; j > 0 && earlier(e, evs[j-1]); j-- {
			evs[j] = evs[j-1]
		}
		evs[j] = e
		if budget -= i - j; budget < 0 {
			slices.SortFunc(evs, func(x, y event) int {
				if earlier(x, y) {
					return -1
				}
				if earlier(y, x) {
					return 1
				}
				return 0
			})
			return
		}
	}
}

// earlier orders events of one kind by time, then transaction.
func earlier(x, y event) bool {
	return x.at < y.at || x.at == y.at && x.t < y.t
}

// frontier is the completed transactions that no completed transaction
// follows yet, swept through the events.
type frontier struct {
	members []int32
	// entered[t] and invoked[t] are the positions of t's completion and
	// invocation among the events.
	entered, invoked []int32
}

// sweep goes through the events, in which each transaction's
// predecessors are the frontier at its invocation. Without targets, it
// counts each one's successors: count[p] grows by one for each. With
// them, it places each successor t of p at targets[count[p]], then moves
// count[p] on, and returns each transaction's rank: the order in which
// it completed, or, for those that never did, the number of completions
// plus its own number. A completing transaction replaces those of its
// predecessors still in the frontier, which are exactly the members
// that entered it before the transaction was invoked (a member that
// leaves never comes back).
func (f *frontier) sweep(evs []event, n int, count, targets []int32) []int32 {
	f.members = f.members[:0]
	if f.entered == nil {
		f.entered, f.invoked = make([]int32, n), make([]int32, n)
	}
	var rank []int32
	if targets != nil {
		rank = negatives(n)
	}
	completions := int32(0)
	for i, e := range evs {
		if e.invoke {
			if targets == nil {
				for _, m := range f.members {
					count[m]++
				}
			} else {
				for _, m := range f.members {
					targets[count[m]] = e.t
					count[m]++
				}
			}
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
		if rank != nil {
			rank[e.t] = completions
		}
		completions++
	}
	for t := range rank {
		if rank[t] < 0 {
			rank[t] = completions + int32(t)
		}
	}
	return rank
}
