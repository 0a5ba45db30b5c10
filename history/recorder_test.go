package history_test

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// TestRecorderConcurrent records from several goroutines at once and checks
// that times strictly increase, every call pairs with its own completion,
// and the JSON Lines output reads back as the same history.
func TestRecorderConcurrent(t *testing.T) {
	const clients, perClient = 8, 200
	r := history.NewRecorder()
	recordConcurrently(t, r, clients, perClient)

	events := r.Events()
	if len(events) != 2*clients*perClient {
		t.Fatalf("got %d events, want %d", len(events), 2*clients*perClient)
	}
	for i := 1; i < len(events); i++ {
		if events[i].Time <= events[i-1].Time {
			t.Fatalf("event %d time %d not after %d", i, events[i].Time, events[i-1].Time)
		}
	}
	h, err := r.History()
	if err != nil {
		t.Fatal(err)
	}
	checkConcurrentOps(t, h, clients, perClient)
	checkReadsBack(t, r, h)
}

// recordConcurrently has each of clients goroutines write perClient values
// (client c writes c*perClient+i to key c%3), every 50th failing.
func recordConcurrently(t *testing.T, r *history.Recorder, clients, perClient int) {
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			name := strconv.Itoa(c)
			for i := 0; i < perClient; i++ {
				v := history.IntValue(int64(c*perClient + i))
				id := r.InvokeKey(name, "write", history.IntValue(int64(c%3)), v)
				st := history.OK
				if i%50 == 49 {
					st = history.Fail
				}
				if err := r.Complete(id, st, v); err != nil {
					t.Error(err)
					return
				}
			}
		}(c)
	}
	wg.Wait()
}

// checkConcurrentOps checks the history recordConcurrently made: its
// counts, and that every operation kept its own client and key.
func checkConcurrentOps(t *testing.T, h *history.History, clients, perClient int) {
	t.Helper()
	if len(h.Ops) != clients*perClient || h.Processes != clients || h.Clients != clients {
		t.Fatalf("ops/processes/clients = %d/%d/%d", len(h.Ops), h.Processes, h.Clients)
	}
	if c := h.Counts(); c.Fail != clients*perClient/50 || c.Info != 0 {
		t.Errorf("counts = %+v", c)
	}
	for _, o := range h.Ops {
		n, _ := o.Value.Int()
		if o.Client != strconv.Itoa(int(n)/perClient) || o.Key != history.IntValue(n/int64(perClient)%3) {
			t.Fatalf("op %+v paired with the wrong call", o)
		}
	}
}

// checkReadsBack checks that the recorder's JSON Lines read back as h.
func checkReadsBack(t *testing.T, r *history.Recorder, h *history.History) {
	t.Helper()
	var buf bytes.Buffer
	if err := r.WriteJSONL(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := format.Read("run.jsonl", &buf, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Ops) != len(h.Ops) {
		t.Fatalf("read back %d ops, want %d", len(back.Ops), len(h.Ops))
	}
	for i := range h.Ops {
		a, b := h.Ops[i], back.Ops[i]
		if a.Client != b.Client || a.Value != b.Value || a.Key != b.Key || a.Call != b.Call || a.Return != b.Return ||
			a.Status != b.Status || a.Index != b.Index || a.Process != b.Process {
			t.Fatalf("op %d: wrote %+v, read %+v", i, a, b)
		}
	}
}

func TestRecorderOpenAndBadCalls(t *testing.T) {
	r := history.NewRecorder()
	a := r.Invoke("a", "write", i1)
	b := r.Invoke("b", "read", nilv)
	if err := r.Complete(b, history.Info, nilv); err != nil {
		t.Fatal(err)
	}
	if err := r.Complete(b, history.OK, i1); err == nil {
		t.Error("completing a call twice succeeded")
	}
	if err := r.Complete(history.CallID(99), history.OK, i1); err == nil {
		t.Error("completing an unknown call succeeded")
	}
	if err := r.Complete(a, history.Invoke, i1); err == nil {
		t.Error("completing with type invoke succeeded")
	}
	h, err := r.History()
	if err != nil {
		t.Fatal(err)
	}
	if c := h.Counts(); c.Info != 2 || c.OK != 0 {
		t.Errorf("counts = %+v, want two operations of unknown outcome", c)
	}
	for _, o := range h.Ops {
		if o.Return != history.Infinity {
			t.Errorf("op %s returns at %d, want never", o.Label(), o.Return)
		}
	}
}

func TestValueOf(t *testing.T) {
	type point struct{ X int }
	n := 5
	tests := []struct {
		in   any
		want history.Value
	}{
		{nil, nilv},
		{true, history.BoolValue(true)},
		{3, i3},
		{int8(-2), history.IntValue(-2)},
		{uint64(1 << 63), func() history.Value { v, _ := history.BigIntValue("9223372036854775808"); return v }()},
		{2.0, i2},
		{float32(0.5), history.FloatValue(0.5)},
		{"x", history.StringValue("x")},
		{&n, history.IntValue(5)},
		{[]int{1, 2}, history.ListValue(i1, i2)},
		{[2]string{"a", "b"}, history.ListValue(history.StringValue("a"), history.StringValue("b"))},
		{[]any{1, nil, "z"}, history.ListValue(i1, nilv, history.StringValue("z"))},
		{map[string]int{"b": 2, "a": 1}, history.MapValue([]history.Value{history.StringValue("a"), history.StringValue("b")}, []history.Value{i1, i2})},
		{i2, i2},
		{[]int(nil), nilv},
	}
	for _, tc := range tests {
		got, err := history.ValueOf(tc.in)
		if err != nil {
			t.Errorf("ValueOf(%#v): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ValueOf(%#v) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
	for _, bad := range []any{point{1}, make(chan int), func() {}, []any{1, struct{}{}}} {
		if v, err := history.ValueOf(bad); err == nil {
			t.Errorf("ValueOf(%T) = %v, want an error", bad, v)
		}
	}
	cyc := []any{nil}
	cyc[0] = cyc
	if _, err := history.ValueOf(cyc); err == nil {
		t.Error("ValueOf of a cyclic slice succeeded")
	}
}

func ExampleRecorder() {
	r := history.NewRecorder()
	w := r.Invoke("A", "write", history.IntValue(1))
	rd := r.Invoke("B", "read", history.NilValue)
	r.Complete(rd, history.OK, history.IntValue(0))
	r.Complete(w, history.OK, history.IntValue(1))
	slow := r.Invoke("C", "write", history.IntValue(2))
	r.Complete(slow, history.Info, history.NilValue)

	h, err := r.History()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range h.Ops {
		fmt.Println(o.Label(), o.Status)
	}

	// The JSON Lines output is what histcheck check reads.
	var buf bytes.Buffer
	if err := r.WriteJSONL(&buf); err != nil {
		fmt.Println(err)
		return
	}
	back, err := format.Read("run.jsonl", &buf, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(back.Ops), "operations read back")
	// Output:
	// A:w(1) ok
	// B:r(0) ok
	// C:w(2) info
	// 3 operations read back
}
