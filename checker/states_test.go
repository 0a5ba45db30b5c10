package checker

import (
	"fmt"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestPrefixStates checks the states replayed along an order: the state
// after each step, nothing for an order the model refuses or that names an
// operation not compiled, and only the last MaxStates of a long order.
func TestPrefixStates(t *testing.T) {
	var ops []history.Op
	for i := range MaxStates + 5 {
		ops = append(ops, history.Op{Client: "A", F: "write", Value: history.IntValue(int64(i + 1)),
			Call: int64(2 * i), Return: int64(2*i + 1), Status: history.OK})
	}
	ops = append(ops, history.Op{Client: "B", F: "read", Value: history.IntValue(1), Call: 1 << 20, Return: 1<<20 + 1, Status: history.OK})
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	m := model.NewRegister(model.Options{Init: history.IntValue(0)})
	c, err := Compile(m, h, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	init := m.Init(c.Table)
	read := len(h.Ops) - 1
	cases := []struct {
		name   string
		prefix []int
		want   string
	}{
		{"empty", nil, "[]"},
		{"write then read", []int{0, read}, "[1 1]"},
		{"refused read", []int{1, read}, "[]"},
		{"not compiled", []int{0, len(h.Ops)}, "[]"},
	}
	for _, tc := range cases {
		if got := fmt.Sprint(PrefixStates(m, c, init, tc.prefix)); got != tc.want {
			t.Errorf("%s: states %s, want %s", tc.name, got, tc.want)
		}
	}
	long := make([]int, MaxStates+5)
	for i := range long {
		long[i] = i
	}
	got := PrefixStates(m, c, init, long)
	if len(got) != MaxStates || got[0] != "6" || got[len(got)-1] != fmt.Sprint(MaxStates+5) {
		t.Errorf("long order: %d states from %s to %s, want %d from 6 to %d", len(got), got[0], got[len(got)-1], MaxStates, MaxStates+5)
	}
}
