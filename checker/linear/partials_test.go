package linear

import (
	"context"
	"slices"
	"testing"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// TestPartials checks Options.Partials on refuted histories: every order
// kept is legal for the model and keeps real time, every operation that
// some legal order can start with is in one, and none are kept unless
// asked for.
func TestPartials(t *testing.T) {
	cases := []struct {
		name string
		ops  []history.Op
		// covered are the positions (in call order) some kept order
		// must contain.
		covered []int
	}{
		{"stale read", []history.Op{
			op("A", "write", i64(1), 0, 10),
			op("B", "read", i64(1), 2, 4),
			op("C", "read", i64(0), 5, 7),
		}, []int{0, 1}},
		{"two keys of reads", []history.Op{
			op("A", "write", i64(1), 0, 3),
			op("B", "read", i64(2), 4, 6),
			op("C", "write", i64(2), 7, 9),
		}, []int{0}},
	}
	m := model.NewRegister(model.Options{Init: i64(0)})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := history.FromOps(c.ops)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Check(context.Background(), m, h, Options{NoZones: true, Partials: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid.String() != "false" || len(res.Partials) == 0 {
				t.Fatalf("verdict %v with %d partial orders, want false with some", res.Valid, len(res.Partials))
			}
			for _, order := range res.Partials {
				if !legalOrder(t, m, h, order) {
					t.Errorf("order %v is not legal", order)
				}
			}
			for _, pos := range c.covered {
				if !slices.ContainsFunc(res.Partials, func(o []int) bool { return slices.Contains(o, pos) }) {
					t.Errorf("no kept order contains operation %d: %v", pos, res.Partials)
				}
			}
			res, _ = Check(context.Background(), m, h, Options{NoZones: true})
			if res.Partials != nil {
				t.Errorf("partial orders kept unasked: %v", res.Partials)
			}
		})
	}
}

// legalOrder reports whether the operations at positions order, in that
// order, are legal for m from its initial state, each called before every
// later one returned.
func legalOrder(t *testing.T, m model.Model[int64], h *history.History, order []int) bool {
	t.Helper()
	tab := model.NewTable()
	ops := make([]model.Op, len(order))
	for k, pos := range order {
		o, err := m.Compile(&h.Ops[pos], tab)
		if err != nil {
			t.Fatal(err)
		}
		ops[k] = o
	}
	s := m.Init(tab)
	for k := range ops {
		var ok bool
		if s, ok = m.Step(s, &ops[k]); !ok {
			return false
		}
		for _, later := range order[k+1:] {
			if h.Ops[later].Return < h.Ops[order[k]].Call {
				return false
			}
		}
	}
	return true
}
