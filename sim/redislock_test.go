package sim

import (
	"reflect"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/model"
)

func TestRedisLock(t *testing.T) {
	tests := []struct {
		safe       bool
		twoHolders bool
		ops        []string
		holders    []string // holder after each step
	}{
		{false, true,
			[]string{"A:acquire:ok", "B:acquire:ok", "A:release:ok", "C:acquire:ok", "B:release:ok", "C:release:fail"},
			[]string{"A", "B", "", "C", "", ""}},
		{true, false,
			[]string{"A:acquire:ok", "B:acquire:ok", "A:release:fail", "C:acquire:fail", "B:release:ok"},
			[]string{"A", "B", "B", "B", ""}},
	}
	for _, tc := range tests {
		res := RedisLock(tc.safe, RedisSeed)
		if res.TwoHolders != tc.twoHolders {
			t.Errorf("safe %v: two holders %v", tc.safe, res.TwoHolders)
		}
		if !reflect.DeepEqual(res.PastLease, []string{"A"}) {
			t.Errorf("safe %v: past the lease %v, want [A]", tc.safe, res.PastLease)
		}
		var holders []string
		for _, s := range res.Steps {
			holders = append(holders, s.Holder)
		}
		if !reflect.DeepEqual(holders, tc.holders) {
			t.Errorf("safe %v: holders %q, want %q", tc.safe, holders, tc.holders)
		}
		h, err := res.History()
		if err != nil {
			t.Fatal(err)
		}
		if got := statuses(h); !reflect.DeepEqual(got, tc.ops) {
			t.Errorf("safe %v ops:\n got %v\nwant %v", tc.safe, got, tc.ops)
		}
		tokens := map[string]string{}
		for _, o := range h.Ops {
			if k, _ := o.Key.Str(); k != "lock" {
				t.Errorf("%s: key %v", o.Label(), o.Key)
			}
			v, _ := o.Value.Str()
			if len(v) != 16 || (tokens[o.Client] != "" && tokens[o.Client] != v) {
				t.Errorf("%s: token %q", o.Label(), v)
			}
			tokens[o.Client] = v
		}
		if tokens["A"] == tokens["B"] || tokens["B"] == tokens["C"] {
			t.Errorf("tokens not distinct: %v", tokens)
		}
		table := res.Table()
		for _, want := range []string{"| 5.5 | B | `SET lock:report " + tokens["B"] + " NX PX 5000` | OK | B |"} {
			if !strings.Contains(table, want) {
				t.Errorf("safe %v table lacks %q:\n%s", tc.safe, want, table)
			}
		}
		// Without time, A never releasing before B's acquire is a mutex
		// violation in both runs; it takes the lease to tell them apart.
		if r := linearizable(t, model.NewMutex(model.Options{}), h); r.Valid != checker.False {
			t.Errorf("safe %v: passes a plain mutex check", tc.safe)
		}
	}
	if a, b := RedisLock(false, 1), RedisLock(false, 2); a.ops[0].Value == b.ops[0].Value {
		t.Error("tokens do not depend on the seed")
	}
}
