package elle

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// TestFreezeOrder checks that a frozen graph lists each transaction's
// arcs in the order their first dependency was added: its own
// dependencies, those merged from another graph, then the real-time
// order, each source's targets in the order they were added, merged
// graphs' after the graph's own; dependencies between one pair are one
// arc of their kinds together.
func TestFreezeOrder(t *testing.T) {
	type want struct {
		to    []int32
		types []EdgeType
	}
	rt := func(offs, to []int32) *Graph { return &Graph{n: 3, rtOffs: offs, rtTo: to} }
	tests := []struct {
		name  string
		build func() *Graph
		want  []want // by source
	}{
		{"pending only", func() *Graph {
			g := newGraph(3)
			g.add(0, 2, Why{Type: WR})
			g.add(0, 1, Why{Type: WW})
			g.add(0, 2, Why{Type: RW})
			g.add(1, 1, Why{Type: WW}) // dropped
			return g
		}, []want{{[]int32{2, 1}, []EdgeType{WR | RW, WW}}, {}, {}}},
		{"merged, then real time", func() *Graph {
			g := newGraph(3)
			g.add(1, 2, Why{Type: WW})
			o := &Graph{n: 3}
			o.add(1, 0, Why{Type: Process})
			o.add(0, 1, Why{Type: Process})
			o.mergeRealtime(rt([]int32{0, 1, 3, 3}, []int32{2, 2, 0}))
			g.merge(o)
			return g
		}, []want{{[]int32{1, 2}, []EdgeType{Process, Realtime}}, {[]int32{2, 0}, []EdgeType{WW | Realtime, Process | Realtime}}, {}}},
		{"real time merged twice", func() *Graph {
			g := &Graph{n: 3}
			g.mergeRealtime(rt([]int32{0, 1, 1, 2}, []int32{2, 1}))
			o := &Graph{n: 3}
			o.mergeRealtime(rt([]int32{0, 1, 2, 2}, []int32{1, 2}))
			g.merge(o)
			return g
		}, []want{{[]int32{2, 1}, []EdgeType{Realtime, Realtime}}, {[]int32{2}, []EdgeType{Realtime}}, {[]int32{1}, []EdgeType{Realtime}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.build()
			g.freeze()
			for a, w := range tt.want {
				out := g.out(a)
				if !slices.Equal(out.to, w.to) || !slices.Equal(out.types, w.types) {
					t.Errorf("arcs from %d: %v %v, want %v %v", a, out.to, out.types, w.to, w.types)
				}
			}
		})
	}
}

// TestRealtimeOrder checks the real-time order's edges against their
// definition on random histories: p precedes t when p completed before t
// was invoked and no transaction invoked after p completed had itself
// completed by then; each source's targets come in the order they
// completed, those that never did last, by number.
func TestRealtimeOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for round := range 300 {
		n := 1 + rng.IntN(40)
		h, txns := timedTxns(rng, n, 30, 8, false)
		g := &Graph{n: n}
		addRealtimeOrder(g, txns, h)
		want := realtimeReference(txns, h)
		for a := range n {
			got := []int32{}
			if g.rtOffs != nil {
				got = append(got, g.rtTo[g.rtOffs[a]:g.rtOffs[a+1]]...)
			}
			if !slices.Equal(got, want[a]) {
				t.Fatalf("round %d: targets of %d %v, want %v (ops %v)", round, a, got, want[a], h.Ops)
			}
		}
	}
}

// TestRealtimeEvents checks the time order of the events against its
// definition, a stable sort of each transaction's invocation and
// completion, in the order of the transactions, by time with
// invocations first at one instant; the histories have many ties, and
// half of them come in call order, as read histories do.
func TestRealtimeEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for round := range 500 {
		h, txns := timedTxns(rng, rng.IntN(30), 12, 5, round%2 == 0)
		var want []event
		for i, tx := range txns {
			op := h.Ops[i]
			if tx.Status == history.Fail {
				continue
			}
			want = append(want, event{at: op.Call, invoke: true, t: int32(i)})
			if op.Return != history.Infinity && tx.Committed() {
				want = append(want, event{at: op.Return, t: int32(i)})
			}
		}
		slices.SortStableFunc(want, func(x, y event) int {
			if x.at != y.at {
				return int(x.at - y.at)
			}
			if x.invoke == y.invoke {
				return 0
			}
			if x.invoke {
				return -1
			}
			return 1
		})
		if got := realtimeEvents(txns, h); !slices.Equal(got, want) {
			t.Fatalf("round %d: events %v, want %v (ops %v)", round, got, want, h.Ops)
		}
	}
}

// TestSortEvents checks the sort of one kind's events, nearly sorted
// and shuffled (past the moves insertion may take), against a sort by
// time, then transaction.
func TestSortEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for round := range 200 {
		evs := make([]event, rng.IntN(400))
		for i := range evs {
			evs[i] = event{at: int64(i / 3), t: int32(i)}
		}
		swaps := rng.IntN(4)
		if round%2 == 1 {
			swaps = len(evs)
		}
		for range swaps {
			if len(evs) > 1 {
				i := rng.IntN(len(evs) - 1)
				evs[i], evs[i+1] = evs[i+1], evs[i]
			}
		}
		if round%3 == 0 {
			rng.Shuffle(len(evs), func(i, j int) { evs[i], evs[j] = evs[j], evs[i] })
		}
		want := slices.Clone(evs)
		slices.SortFunc(want, func(x, y event) int {
			if x.at != y.at {
				return int(x.at - y.at)
			}
			return int(x.t - y.t)
		})
		sortEvents(evs)
		if !slices.Equal(evs, want) {
			t.Fatalf("round %d: sorted %v, want %v", round, evs, want)
		}
	}
}

// timedTxns makes n transactions with random intervals, calls before
// span and lengths below length, in call order when inOrder (as read
// histories are), many ties: a sixth crashed (no return), a sixth of
// unknown outcome with a return, a sixth failed.
func timedTxns(rng *rand.Rand, n int, span, length int64, inOrder bool) (*history.History, []txn.Txn) {
	h := &history.History{}
	txns := make([]txn.Txn, n)
	for i := range txns {
		call := rng.Int64N(span)
		if inOrder && i > 0 {
			call = h.Ops[i-1].Call + rng.Int64N(2)
		}
		op := history.Op{Call: call, Return: call + rng.Int64N(length), Status: history.OK}
		switch rng.IntN(6) {
		case 0:
			op.Status, op.Return = history.Info, history.Infinity
		case 1:
			op.Status = history.Info
		case 2:
			op.Status = history.Fail
		}
		h.Ops = append(h.Ops, op)
		txns[i] = txn.Txn{Op: i, Status: op.Status}
	}
	return h, txns
}

// realtimeReference is the real-time order by its definition, over the
// positions of the events in time order.
func realtimeReference(txns []txn.Txn, h *history.History) [][]int32 {
	n := len(txns)
	inv, done := make([]int, n), make([]int, n)
	for i := range done {
		inv[i], done[i] = -1, -1
	}
	for i, e := range realtimeEvents(txns, h) {
		if e.invoke {
			inv[e.t] = i
		} else {
			done[e.t] = i
		}
	}
	rank := func(t int) int {
		if done[t] < 0 {
			return 2*n + t
		}
		return done[t]
	}
	out := make([][]int32, n)
	for p := range n {
		out[p] = []int32{}
		for t := range n {
			if done[p] < 0 || inv[t] < 0 || done[p] > inv[t] {
				continue
			}
			implied := false
			for q := range n {
				implied = implied || (inv[q] > done[p] && done[q] >= 0 && done[q] < inv[t])
			}
			if !implied {
				out[p] = append(out[p], int32(t))
			}
		}
		slices.SortFunc(out[p], func(x, y int32) int { return rank(int(x)) - rank(int(y)) })
	}
	return out
}
