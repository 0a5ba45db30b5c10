package sim

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/session"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

const lagTable = `Result: 23 reads; LIN broken 12, RYW broken 5, MR broken 3.

| t | client | replica | got | newest | broken |
| --- | --- | --- | --- | --- | --- |
| 60 | c3 | B | 2 | 4 | LIN, RYW, MR |
| 100 | c3 | B | 4 | 5 | LIN |
| 110 | c1 | B | 4 | 5 | LIN, MR |
| 130 | c3 | B | 4 | 5 | LIN, MR |
| 200 | c2 | B | 7 | 9 | LIN |
| 210 | c2 | B | 7 | 9 | LIN |
| 230 | c3 | B | 7 | 10 | LIN, RYW |
| 250 | c3 | B | 9 | 11 | LIN, RYW |
| 280 | c1 | B | 11 | 12 | LIN, RYW |
| 300 | c2 | B | 11 | 13 | LIN, RYW |
| 320 | c1 | B | 12 | 13 | LIN |
| 360 | c1 | B | 12 | 14 | LIN |
`

func TestLagTable(t *testing.T) {
	res := Lag(LagSeed)
	if res.Reads != 23 || res.Writes != 17 || res.LIN != 12 || res.RYW != 5 || res.MR != 3 {
		t.Errorf("reads %d writes %d LIN %d RYW %d MR %d; want 23 17 12 5 3", res.Reads, res.Writes, res.LIN, res.RYW, res.MR)
	}
	want := []LagRead{
		{60, "c3", "B", 2, 4, true, true, true},
		{100, "c3", "B", 4, 5, true, false, false},
		{110, "c1", "B", 4, 5, true, false, true},
		{130, "c3", "B", 4, 5, true, false, true},
		{200, "c2", "B", 7, 9, true, false, false},
		{210, "c2", "B", 7, 9, true, false, false},
		{230, "c3", "B", 7, 10, true, true, false},
		{250, "c3", "B", 9, 11, true, true, false},
		{280, "c1", "B", 11, 12, true, true, false},
		{300, "c2", "B", 11, 13, true, true, false},
		{320, "c1", "B", 12, 13, true, false, false},
		{360, "c1", "B", 12, 14, true, false, false},
	}
	if got := res.Violations(); !reflect.DeepEqual(got, want) {
		t.Errorf("violations:\n got %+v\nwant %+v", got, want)
	}
	if got := res.Table(); got != lagTable {
		t.Errorf("table:\n%s\nwant:\n%s", got, lagTable)
	}
}

func TestLagHistory(t *testing.T) {
	res := Lag(LagSeed)
	h, err := res.History()
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != 40 || h.Counts().OK != 40 || h.Clients != 3 {
		t.Fatalf("%d ops, %+v, %d clients; want 40 ok ops of 3 clients", len(h.Ops), h.Counts(), h.Clients)
	}
	nextVersion := int64(1)
	for i, o := range h.Ops {
		if o.Call != int64(10*i) || o.Return != o.Call+1 {
			t.Fatalf("op %d spans [%d, %d]", i, o.Call, o.Return)
		}
		if o.Version != o.Value {
			t.Fatalf("op %d: version %v, value %v", i, o.Version, o.Value)
		}
		if o.F == "write" {
			if v, _ := o.Value.Int(); v != nextVersion {
				t.Fatalf("op %d writes %d, want %d", i, v, nextVersion)
			}
			nextVersion++
		}
	}
	if nextVersion != 18 {
		t.Errorf("%d writes, want 17", nextVersion-1)
	}
	r := linearizable(t, model.NewRegister(model.Options{Init: history.IntValue(0)}), h)
	if r.Valid != checker.False {
		t.Fatalf("lag history linearizable = %v, want false", r.Valid)
	}
	// The first stale read is at 60 ms (op 6): no order gets past it.
	if v := r.Violations[0]; v.Ops[0] > 6 {
		t.Errorf("violation at op %d (%s), want one no later than the stale read at 60 ms", v.Ops[0], h.Ops[v.Ops[0]].Label())
	}
}

// TestLagSessionGuarantees checks the history against the chapter's claim:
// a session check reports exactly the 5 read-your-writes and 3
// monotonic-reads violations of the table, each read with a witness.
func TestLagSessionGuarantees(t *testing.T) {
	res := Lag(LagSeed)
	h, err := res.History()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]bool{checker.ReadYourWrites: {}, checker.MonotonicReads: {}}
	for _, v := range res.Violations() {
		id := fmt.Sprintf("%d %s", v.T, v.Client)
		if v.RYW {
			want[checker.ReadYourWrites][id] = true
		}
		if v.MR {
			want[checker.MonotonicReads][id] = true
		}
	}
	for crit, reads := range want {
		r, err := session.Check(context.Background(), h, crit, session.Options{Init: history.IntValue(0)})
		if err != nil {
			t.Fatal(err)
		}
		if r.Valid != checker.False {
			t.Fatalf("%s: %v", crit, r.Valid)
		}
		got := map[string]bool{}
		for _, v := range r.Violations {
			if len(v.Ops) < 2 {
				t.Errorf("%s: witness %v lacks the operation the read missed", crit, v.Ops)
			}
			var rd *history.Op
			for _, i := range v.Ops {
				if o := &h.Ops[i]; o.F == "read" && (rd == nil || o.Call > rd.Call) {
					rd = o
				}
			}
			got[fmt.Sprintf("%d %s", rd.Call, rd.Client)] = true
		}
		if !reflect.DeepEqual(got, reads) {
			t.Errorf("%s: violating reads %v, want %v", crit, got, reads)
		}
	}
}
