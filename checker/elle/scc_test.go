package elle

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// TestTarjanAgreesWithGonum checks the iterative component search against
// gonum's TarjanSCC on random graphs of mixed dependency kinds, each mask
// in turn: the same transactions must share a component. The search is
// written here rather than taken from gonum because gonum's recurses once
// per transaction on a path (a million deep on Jepsen-sized histories) and
// wants the graph copied into its own form for every mask.
func TestTarjanAgreesWithGonum(t *testing.T) {
	kinds := []EdgeType{WW, WR, RW, Process, Realtime}
	masks := []EdgeType{Data, WW | WR, Data | Process, Data | Realtime, Data | Process | Realtime, RW}
	r := rand.New(rand.NewPCG(5, 7))
	graphs := 2000
	if testing.Short() {
		graphs = 300
	}
	for n := 0; n < graphs; n++ {
		size := 1 + r.IntN(12)
		g := newGraph(size)
		type arc struct {
			a, b int
			t    EdgeType
		}
		var arcs []arc
		for e := r.IntN(3 * size); e > 0; e-- {
			a := arc{r.IntN(size), r.IntN(size), kinds[r.IntN(len(kinds))]}
			arcs = append(arcs, a)
			g.add(a.a, a.b, Why{Type: a.t})
		}
		g.freeze()
		for _, mask := range masks {
			ref := simple.NewDirectedGraph()
			for i := 0; i < size; i++ {
				ref.AddNode(simple.Node(i))
			}
			for _, a := range arcs {
				if a.t&mask != 0 && a.a != a.b {
					ref.SetEdge(simple.Edge{F: simple.Node(a.a), T: simple.Node(a.b)})
				}
			}
			want := make([]int, size) // component id per node, -1 alone
			anyCycle := false
			for c, scc := range topo.TarjanSCC(ref) {
				for _, v := range scc {
					want[v.ID()] = -1
					if len(scc) > 1 {
						want[v.ID()] = c
						anyCycle = true
					}
				}
			}
			got, any := tarjan(g, mask)
			if any != anyCycle {
				t.Fatalf("graph %d, mask %b: cycle %v, gonum says %v (arcs %v)", n, mask, any, anyCycle, arcs)
			}
			for a := 0; a < size; a++ {
				for b := 0; b < size; b++ {
					same := got[a] >= 0 && got[a] == got[b]
					wantSame := want[a] >= 0 && want[a] == want[b]
					if same != wantSame {
						t.Fatalf("graph %d, mask %b: %d and %d together %v, gonum says %v (arcs %v)", n, mask, a, b, same, wantSame, arcs)
					}
				}
			}
		}
	}
}
