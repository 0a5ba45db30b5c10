package sim

import (
	"reflect"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/model"
)

func TestRedlock(t *testing.T) {
	for _, monotonic := range []bool{false, true} {
		res := Redlock(monotonic, RedlockSeed)
		if res.Validity["A"] != 9888 || res.Validity["B"] != 9888 {
			t.Errorf("validity %v, want 9888 ms each (10000 − 10 − 102)", res.Validity)
		}
		if res.Overlap != [2]int64{10510, 12010} {
			t.Errorf("overlap %v", res.Overlap)
		}
		h, err := res.History()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"A:acquire:ok", "B:acquire:ok", "B:write:ok", "A:write:ok", "A:release:fail", "B:release:ok"}
		if got := statuses(h); !reflect.DeepEqual(got, want) {
			t.Errorf("monotonic %v ops:\n got %v\nwant %v", monotonic, got, want)
		}
		if r := linearizable(t, model.NewMutex(model.Options{}), onKey(t, h, "lock")); r.Valid != checker.False {
			t.Errorf("monotonic %v: the holding periods pass a mutex check", monotonic)
		}
		// Only a monotonic token lets a fenced register see A's late write.
		bad := fencedViolations(h)
		if monotonic && (len(bad) != 1 || h.Ops[bad[0]].Client != "A") {
			t.Errorf("monotonic: stale writes %v, want A's", bad)
		}
		for _, o := range h.Ops {
			if o.Token.IsNone() == monotonic {
				t.Errorf("monotonic %v: %s has token %v", monotonic, o.Label(), o.Token)
			}
		}
		table := res.Table()
		if !strings.Contains(table, "| 0–10 | A sets the key on M1, M2, M3, M4, M5 (5 of 5) in 10 ms: valid for 9888 ms (TTL 10000 − 10 elapsed − 102 drift), until 9898 |") {
			t.Errorf("table:\n%s", table)
		}
	}
}
