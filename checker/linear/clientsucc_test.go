package linear

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// TestClientSuccessors holds the merge's client order to the plain one
// (a map from each client's name to its last completed operation), on
// operations whose logical processes follow their clients, are all 0
// (a history built by hand) or are drawn at random, with operations of
// unknown outcome, and with only some of the history's operations merged.
func TestClientSuccessors(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 1))
	for trial := range 3000 {
		n := r.IntN(30)
		ops := make([]history.Op, n)
		procOf := map[string]int{}
		for i := range ops {
			c := "c" + strconv.Itoa(r.IntN(4))
			ops[i] = history.Op{Client: c, Status: history.OK}
			if r.IntN(4) == 0 {
				ops[i].Status = history.Info
			}
			switch trial % 3 {
			case 0: // as read: a new process after an unknown outcome
				p, ok := procOf[c]
				if !ok {
					p = len(procOf) * 100
				}
				ops[i].Process = p
				if ops[i].Status == history.Info {
					procOf[c] = p + 1
				} else {
					procOf[c] = p
				}
			case 1:
			default:
				ops[i].Process = r.IntN(5) - 1
			}
		}
		h := &history.History{Ops: ops}
		m := &merge{h: h}
		for i := range ops {
			if r.IntN(5) > 0 {
				m.pos = append(m.pos, i)
			}
		}
		r.Shuffle(len(m.pos), func(i, j int) { m.pos[i], m.pos[j] = m.pos[j], m.pos[i] })
		m.wait = make([]int8, len(m.pos))
		// The plain order.
		want := make([][]int32, len(m.pos))
		wantWait := make([]int8, len(m.pos))
		last := map[string]int32{}
		for _, x := range m.byPosition() {
			o := &ops[m.pos[x]]
			if p, ok := last[o.Client]; ok {
				want[p] = append(want[p], x)
				wantWait[x]++
			}
			if o.Status != history.Info {
				last[o.Client] = x
			}
		}
		s := m.clientSuccessors()
		for x := range m.pos {
			var got []int32
			for y := s.first[x]; y >= 0; y = s.next[y] {
				got = append(got, y)
			}
			if !slices.Equal(got, want[x]) {
				t.Fatalf("trial %d: node %d is followed by %v, want %v", trial, x, got, want[x])
			}
		}
		if !slices.Equal(m.wait, wantWait) {
			t.Fatalf("trial %d: waits %v, want %v", trial, m.wait, wantWait)
		}
	}
}
