package sim

import (
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

const partitionTable = `| split | mode | answered | rejected | availability | stale reads | conflicting keys |
| --- | --- | --- | --- | --- | --- | --- |
| 3\|2 | CP | 584 | 416 | 58.4% | 0 | 0 of 200 |
| 3\|2 | AP | 1000 | 0 | 100.0% | 144 | 105 of 200 |
| 4\|1 | CP | 792 | 208 | 79.2% | 0 | 0 of 200 |
| 4\|1 | AP | 1000 | 0 | 100.0% | 86 | 80 of 200 |
`

func TestPartitionTable(t *testing.T) {
	res := Partition(PartitionSeed)
	want := []PartitionRow{
		{Minority: 2, Mode: "cp", Answered: 584, Rejected: 416},
		{Minority: 2, Mode: "ap", Answered: 1000, StaleReads: 144, ConflictingKeys: 105, Unplaced: 166, FailingKeys: 108},
		{Minority: 1, Mode: "cp", Answered: 792, Rejected: 208},
		{Minority: 1, Mode: "ap", Answered: 1000, StaleReads: 86, ConflictingKeys: 80, Unplaced: 111, FailingKeys: 82},
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Errorf("rows:\n got %+v\nwant %+v", res.Rows, want)
	}
	for i, a := range []float64{58.4, 100, 79.2, 100} {
		if got := res.Rows[i].Availability(); got < a-1e-9 || got > a+1e-9 {
			t.Errorf("row %d availability %v, want %v", i, got, a)
		}
	}
	if got := res.Table(); got != partitionTable {
		t.Errorf("table:\n%s\nwant:\n%s", got, partitionTable)
	}
	if s := res.Rows[0].Split(); s != "3|2" {
		t.Errorf("split = %q", s)
	}
}

// staleKeys tells, without a checker, which keys of a partition history
// are not linearizable: its requests never overlap, so the only order is
// real time, and a key fails exactly when a read misses the latest write.
func staleKeys(h *history.History) map[string]bool {
	latest := map[history.Value]history.Value{}
	bad := map[string]bool{}
	for _, o := range h.Ops {
		if o.Status != history.OK {
			continue
		}
		cur, ok := latest[o.Key]
		if !ok {
			cur = history.IntValue(0)
		}
		switch o.F {
		case "write":
			latest[o.Key] = o.Value
		case "read":
			if o.Value != cur {
				bad[o.Key.String()] = true
			}
		}
	}
	return bad
}

func TestPartitionHistory(t *testing.T) {
	tests := []struct {
		minority     int
		mode         string
		ok, fail     int
		linearizable bool
	}{
		{2, "cp", 584, 416, true},
		{2, "ap", 1000, 0, false},
		{1, "cp", 792, 208, true},
		{1, "ap", 1000, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.mode+"-"+map[int]string{1: "4|1", 2: "3|2"}[tc.minority], func(t *testing.T) {
			h, err := PartitionHistory(tc.minority, tc.mode, PartitionSeed)
			if err != nil {
				t.Fatal(err)
			}
			c := h.Counts()
			if len(h.Ops) != PartitionRequests || c.OK != tc.ok || c.Fail != tc.fail || c.Info != 0 {
				t.Fatalf("%d ops, counts %+v; want %d ok, %d fail", len(h.Ops), c, tc.ok, tc.fail)
			}
			for i, o := range h.Ops {
				if o.Call != int64(10*i) || o.Return != int64(10*i+5) {
					t.Fatalf("op %d spans [%d, %d]", i, o.Call, o.Return)
				}
				if o.Status == history.Fail && o.Client != "min" {
					t.Fatalf("op %d: a %s request was rejected", i, o.Client)
				}
			}
			bad := staleKeys(h)
			if (len(bad) == 0) != tc.linearizable {
				t.Fatalf("%d keys with stale reads, want linearizable=%v", len(bad), tc.linearizable)
			}
			res := linearizable(t, model.NewKV(model.Options{Init: history.IntValue(0)}), h)
			want := checker.False
			if tc.linearizable {
				want = checker.True
			}
			if res.Valid != want {
				t.Fatalf("linearizable = %v, want %v", res.Valid, want)
			}
			if !tc.linearizable {
				v := res.Violations[0]
				if !bad[v.Key] {
					t.Errorf("violation on key %s, which has no stale read; stale keys %v", v.Key, bad)
				}
			}
		})
	}
}

func TestPartitionHistoryBadInput(t *testing.T) {
	if _, err := PartitionHistory(3, "cp", 1); err == nil {
		t.Error("minority 3 accepted")
	}
	if _, err := PartitionHistory(2, "ca", 1); err == nil {
		t.Error("mode ca accepted")
	}
}
