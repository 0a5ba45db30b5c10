package history

import (
	"fmt"
	"testing"
)

// TestCompletionIndex: an operation's completion is named by its own
// index when the event gives one, else by its place in the input in file
// order; in time order without one, by the operation's index. Writing
// the history back as events keeps the completion's own index.
func TestCompletionIndex(t *testing.T) {
	ev := func(p string, typ Type, idx int64, hasIdx bool, at int64) Event {
		return Event{Process: p, Type: typ, F: "read", Value: NilValue, Time: at, HasTime: true, Index: idx, HasIdx: hasIdx}
	}
	tests := []struct {
		name   string
		events []Event
		times  bool
		want   string
	}{
		{"positions", []Event{ev("a", Invoke, 0, false, 0), ev("b", Invoke, 0, false, 1), ev("a", OK, 0, false, 2),
			ev("b", Info, 0, false, 3)}, false, "[2 1]"},
		{"own indexes", []Event{ev("a", Invoke, 10, true, 0), ev("b", Invoke, 11, true, 1), ev("a", OK, 12, true, 2),
			ev("b", Fail, 13, true, 3)}, false, "[12 13]"},
		{"own indexes in time order", []Event{ev("a", Invoke, 10, true, 0), ev("b", Invoke, 11, true, 1),
			ev("a", OK, 12, true, 2), ev("b", OK, 13, true, 3)}, true, "[12 13]"},
		{"time order without indexes", []Event{ev("a", Invoke, 0, false, 0), ev("b", Invoke, 0, false, 1),
			ev("a", OK, 0, false, 2), ev("b", OK, 0, false, 3)}, true, "[0 1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := Pair(tt.events)
			if err != nil {
				t.Fatal(err)
			}
			if tt.times {
				if err := h.OrderByTimes(); err != nil {
					t.Fatal(err)
				}
			}
			got := make([]int64, len(h.Ops))
			for i := range h.Ops {
				got[i] = h.CompletionIndex(i)
			}
			if fmt.Sprint(got) != tt.want {
				t.Errorf("completion indexes %v, want %s", got, tt.want)
			}
			back, err := Pair(h.Events())
			if err != nil {
				t.Fatal(err)
			}
			for i := range h.Ops {
				if h.Ops[i].HasDone && (!back.Ops[i].HasDone || back.Ops[i].DoneIndex != h.Ops[i].DoneIndex) {
					t.Errorf("op %d: written back, completion index %d %v, want %d", i, back.Ops[i].DoneIndex, back.Ops[i].HasDone, h.Ops[i].DoneIndex)
				}
			}
		})
	}
}
