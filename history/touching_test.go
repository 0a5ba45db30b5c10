package history

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestTouchingAgreesWithRealTime holds History.Touching to RealTime's
// Touching on random operations: clients that run one operation after
// another or overlap their own, ties of times within a client and across
// clients, operations of unknown outcome, and operations out of call
// order.
func TestTouchingAgreesWithRealTime(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 9))
	seen := map[bool]int{}
	for trial := range 5000 {
		n := r.IntN(12)
		ops := make([]Op, n)
		clock := int64(0)
		for i := range ops {
			if r.IntN(3) > 0 {
				clock += int64(r.IntN(3))
			}
			call := clock
			if trial%7 == 0 {
				call = int64(r.IntN(8)) // out of call order
			}
			ops[i] = Op{Client: "c" + strconv.Itoa(r.IntN(3)), Call: call, Return: call + int64(r.IntN(4)), Status: OK}
			if r.IntN(6) == 0 {
				ops[i].Return, ops[i].Status = Infinity, Info
			}
		}
		h := &History{Ops: ops}
		want := h.RealTime().Touching
		if got := h.Touching(); got != want {
			t.Fatalf("trial %d: Touching() = %v, RealTime().Touching = %v, ops %+v", trial, got, want, ops)
		}
		seen[want]++
	}
	if seen[true] < 100 || seen[false] < 100 {
		t.Errorf("too few of one verdict: %v", seen)
	}
}
