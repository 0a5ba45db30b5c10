package shrink

import (
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// TestBuildNumbersProcesses checks buildFor's numbering of logical
// processes on random histories with crashed operations and random forms
// (dropped, kept, weakened, cut in flight): two operations share a logical
// process in the reduced history only if they shared one in the original,
// so that reducing adds no process order; an operation of unknown outcome
// is the last of its logical process; and two kept operations of one
// original process stay in one reduced process unless an operation between
// them became of unknown outcome. TestDroppedOperationKeepsProcessesApart
// checks one case by its verdict; this checks the rule on many shapes.
func TestBuildNumbersProcesses(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 41))
	forms := []form{dropped, kept, weak, inFlight}
	for n := 0; n < 2000; n++ {
		h := clientsGoOn(t, r)
		f := make([]form, len(h.Ops))
		for i := range f {
			f[i] = forms[r.IntN(len(forms))]
		}
		out, origin := build(h, f)
		if msg := numberingError(h, out, origin); msg != "" {
			t.Fatalf("history %d: %s\noriginal %+v\nforms %v\nreduced %+v", n, msg, h.Ops, f, out.Ops)
		}
	}
}

// clientsGoOn draws a history of one to three clients, each running one
// operation at a time and going on after an operation of unknown outcome,
// which starts a new logical process of the same client.
func clientsGoOn(t *testing.T, r *rand.Rand) *history.History {
	t.Helper()
	var ops []history.Op
	for c := range 1 + r.IntN(3) {
		client := string(rune('A' + c))
		at := int64(r.IntN(3))
		for range 1 + r.IntN(5) {
			f, v := "write", history.IntValue(int64(r.IntN(3)))
			if r.IntN(2) == 0 {
				f = "read"
			}
			ret := at + 1
			if r.IntN(3) == 0 {
				ret = -1
			}
			ops = append(ops, op(client, f, v, at, ret))
			at += 2 + int64(r.IntN(2))
		}
	}
	return mustHistory(t, ops...)
}

// numberingError says how out's logical processes break the rules of
// TestBuildNumbersProcesses, or returns "".
func numberingError(h *history.History, out *history.History, origin []int) string {
	last := map[int]int{} // reduced process → its last operation so far
	for j := range out.Ops {
		o := &out.Ops[j]
		if o.Process < 0 || o.Process >= out.Processes {
			return "a process number out of range"
		}
		prev, seen := last[o.Process]
		last[o.Process] = j
		if !seen {
			continue
		}
		a, b := origin[prev], origin[j]
		if h.Ops[a].Process != h.Ops[b].Process {
			return "operations of two original processes share a reduced one"
		}
		if out.Ops[prev].Status == history.Info {
			return "an operation follows one of unknown outcome in its reduced process"
		}
	}
	// Kept operations of one original process, with nothing of unknown
	// outcome kept between them, stay together.
	for j := 1; j < len(out.Ops); j++ {
		for k := j - 1; k >= 0; k-- {
			a, b := origin[k], origin[j]
			if h.Ops[a].Process != h.Ops[b].Process {
				continue
			}
			if out.Ops[k].Status != history.Info && out.Ops[k].Process != out.Ops[j].Process {
				return "two operations of one original process were split with nothing of unknown outcome between them"
			}
			break
		}
	}
	return ""
}
