package history

import (
	"fmt"
	"reflect"
)

// Equivalent reports how got differs from want as histories: it is nil
// when both hold the same operations (matched by index and client, and in
// the client's order where those repeat; every
// field but the line, the process number and, in file order, the
// positions) in the same real-time and process order. Writing a history
// and reading it back must give an equivalent one; the order of operations
// whose calls tie, and so the numbers of logical processes, may differ.
// Fields named in ignore are left out of the comparison of Extra.
func Equivalent(want, got *History, ignore ...string) error {
	if len(got.Ops) != len(want.Ops) || got.Processes != want.Processes || got.Clients != want.Clients {
		return fmt.Errorf("%d ops, %d processes, %d clients; want %d, %d, %d",
			len(got.Ops), got.Processes, got.Clients, len(want.Ops), want.Processes, want.Clients)
	}
	type id struct {
		index  int64
		client string
	}
	// Operations that share an index and a client (inputs may repeat an
	// index) are matched in their client's order, which both keep.
	at := make(map[id][]int, len(got.Ops))
	for j := range got.Ops {
		k := id{got.Ops[j].Index, got.Ops[j].Client}
		at[k] = append(at[k], j)
	}
	match := make([]int, len(want.Ops))
	for i := range want.Ops {
		k := id{want.Ops[i].Index, want.Ops[i].Client}
		js := at[k]
		if len(js) == 0 {
			return fmt.Errorf("op %d (%s) is missing", i, want.Ops[i].Label())
		}
		j := js[0]
		at[k] = js[1:]
		match[i] = j
		a, b := comparable(&want.Ops[i], want.Order, ignore), comparable(&got.Ops[j], got.Order, ignore)
		if want.Order != got.Order {
			a.Times, b.Times = Span{}, Span{}
		}
		if !reflect.DeepEqual(a, b) {
			return fmt.Errorf("op %d:\n got %+v\nwant %+v", i, b, a)
		}
	}
	return sameOrder(want, got, match)
}

// comparable strips an operation of what a round trip may change.
func comparable(o *Op, order Ordering, ignore []string) Op {
	c := *o
	c.Line, c.Process, c.Call, c.Return = 0, 0, 0, 0
	if order == FileOrder {
		c.Times = Span{}
	}
	c.Extra = nil
	for _, f := range o.Extra {
		keep := true
		for _, name := range ignore {
			keep = keep && f.Name != name
		}
		if keep {
			c.Extra = append(c.Extra, f)
		}
	}
	return c
}

// sameOrder compares the real-time and process orders of two histories
// whose operations match[i] pairs up.
func sameOrder(want, got *History, match []int) error {
	rw, rg := want.RealTime(), got.RealTime()
	for i := range want.Ops {
		for k := range want.Ops {
			x, y := match[i], match[k]
			before := rw.Spans[i].Return < rw.Spans[k].Call
			if rg.Spans[x].Return < rg.Spans[y].Call != before {
				return fmt.Errorf("%s before %s is %v, want %v", want.Ops[i].Label(), want.Ops[k].Label(), !before, before)
			}
			same := want.Ops[i].Process == want.Ops[k].Process
			if (got.Ops[x].Process == got.Ops[y].Process) != same {
				return fmt.Errorf("%s and %s in one process is %v, want %v", want.Ops[i].Label(), want.Ops[k].Label(), !same, same)
			}
		}
	}
	return nil
}
