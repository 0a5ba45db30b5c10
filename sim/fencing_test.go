package sim

import (
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

const fencingOffTable = `Without fencing tokens:

| time (s) | event | stock |
| --- | --- | --- |
| 0 | A acquires the lock (token 33, lease until 10 s) | 10 |
| 1 | A reads stock 10 | 10 |
| 2 | A pauses (GC) until 15 s | 10 |
| 11 | B acquires the lock (token 34, lease until 21 s) | 10 |
| 12 | B reads stock 10 | 10 |
| 13 | B writes 8 with token 34 | 8 |
| 13 | B releases the lock | 8 |
| 15 | A writes 9 with token 33 | 9 |

Final stock 9: a lost update (the right result is 7).
`

const fencingOnTable = `With fencing tokens:

| time (s) | event | stock |
| --- | --- | --- |
| 0 | A acquires the lock (token 33, lease until 10 s) | 10 |
| 1 | A reads stock 10 | 10 |
| 2 | A pauses (GC) until 15 s | 10 |
| 11 | B acquires the lock (token 34, lease until 21 s) | 10 |
| 12 | B reads stock 10 | 10 |
| 13 | B writes 8 with token 34 | 8 |
| 13 | B releases the lock | 8 |
| 15 | A writes 9 with token 33: rejected, the storage has accepted token 34 | 8 |
| 16 | A acquires the lock (token 35, lease until 26 s) | 8 |
| 16 | A reads stock 8 | 8 |
| 17 | A writes 7 with token 35 | 7 |

Final stock 7: the right result.
`

func TestFencing(t *testing.T) {
	tests := []struct {
		fencing        bool
		table          string
		final, refused int
		ops            []string
		badWrites      int // accepted writes with a stale token
	}{
		{false, fencingOffTable, 9, 0, []string{
			"A:acquire:ok", "A:read:ok", "B:acquire:ok", "B:read:ok", "B:write:ok", "B:release:ok", "A:write:ok",
		}, 1},
		{true, fencingOnTable, 7, 1, []string{
			"A:acquire:ok", "A:read:ok", "B:acquire:ok", "B:read:ok", "B:write:ok", "B:release:ok", "A:write:fail",
			"A:acquire:ok", "A:read:ok", "A:write:ok",
		}, 0},
	}
	for _, tc := range tests {
		res := Fencing(tc.fencing)
		if res.FinalStock != tc.final || res.Rejected != tc.refused {
			t.Errorf("fencing %v: final %d, rejected %d; want %d, %d", tc.fencing, res.FinalStock, res.Rejected, tc.final, tc.refused)
		}
		if got := res.Table(); got != tc.table {
			t.Errorf("fencing %v table:\n%s\nwant:\n%s", tc.fencing, got, tc.table)
		}
		h, err := res.History()
		if err != nil {
			t.Fatal(err)
		}
		if got := statuses(h); !reflect.DeepEqual(got, tc.ops) {
			t.Errorf("fencing %v ops:\n got %v\nwant %v", tc.fencing, got, tc.ops)
		}
		for _, o := range h.Ops {
			if (o.F == "acquire" || o.F == "write") && o.Token.IsNone() {
				t.Errorf("%s carries no token", o.Label())
			}
			if o.F == "acquire" && o.Token != o.Value {
				t.Errorf("%s: token %v, value %v", o.Label(), o.Token, o.Value)
			}
		}
		if got := len(fencedViolations(h)); got != tc.badWrites {
			t.Errorf("fencing %v: %d accepted writes with a stale token, want %d", tc.fencing, got, tc.badWrites)
		}
		// A plain register check of the storage passes in both runs, which
		// is why it misses the bug.
		stock := onKey(t, h, "stock")
		if r := linearizable(t, model.NewRegister(model.Options{Init: history.IntValue(fencingStock)}), stock); r.Valid != checker.True {
			t.Errorf("fencing %v: stock is not linearizable as a plain register: %+v", tc.fencing, r.Violations)
		}
		// A plain mutex check flags that B acquired while A never released.
		if r := linearizable(t, model.NewMutex(model.Options{}), onKey(t, h, "lock")); r.Valid != checker.False {
			t.Errorf("fencing %v: lock operations pass a plain mutex check", tc.fencing)
		}
	}
}
