package elle_test

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/sim"
)

// TestDuplicateAppend names, of the elements appended twice, the one whose
// second append comes first in the history, with both transactions (or
// the one, when a transaction appends it twice), whichever key it is on.
func TestDuplicateAppend(t *testing.T) {
	for _, c := range []struct {
		txns       []string
		key, value string
		first, dup int // positions of the transactions in txns
	}{
		{[]string{"ax1", "ay5", "ax1", "ay5"}, "x", "1", 0, 2},
		{[]string{"ay5", "ax1", "ay5", "ax1"}, "y", "5", 0, 2},
		{[]string{"ax1ay5", "ay6", "ay6ax1"}, "y", "6", 1, 2},
		{[]string{"fail:ax1", "ax2", "rx2", "ax1"}, "x", "1", 0, 3},
		{[]string{"ay2", "ax1ax1"}, "x", "1", 1, 1},
	} {
		h := concurrent(t, false, c.txns...)
		_, err := elle.Analyze(context.Background(), h, elle.ListAppend, 0)
		where := fmt.Sprintf("transactions at operations %d and %d", opOf(t, h.Ops, c.first), opOf(t, h.Ops, c.dup))
		if c.first == c.dup {
			where = fmt.Sprintf("both in the transaction at operation %d", opOf(t, h.Ops, c.first))
		}
		want := fmt.Sprintf("%s is appended to key %s twice (%s)", c.value, c.key, where)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", c.txns, err, want)
		}
	}
}

// opOf is the position of the operation of the i-th transaction given to
// concurrent, whose client is A, B, ….
func opOf(t *testing.T, ops []history.Op, i int) int {
	t.Helper()
	for p := range ops {
		if ops[p].Client == string(rune('A'+i)) {
			return p
		}
	}
	t.Fatalf("no operation of transaction %d", i)
	return -1
}

// TestElementsOfAnyKind renames the keys and elements of generated
// list-append histories (strings, negative and large integers instead of
// small ones): the verdicts and the anomalies found do not change, since
// values are only ever compared.
func TestElementsOfAnyKind(t *testing.T) {
	renames := map[string]func(history.Value) history.Value{
		"strings": func(v history.Value) history.Value { return history.StringValue("e" + v.String()) },
		"negative": func(v history.Value) history.Value {
			n, _ := v.Int()
			return history.IntValue(-n - 1)
		},
		"large": func(v history.Value) history.Value {
			n, _ := v.Int()
			return history.IntValue(n + 1<<40)
		},
	}
	for _, iso := range sim.Isolations {
		for seed := uint32(1); seed <= 3; seed++ {
			h, err := sim.Txns(sim.TxnOptions{Txns: 300, Clients: 4, Keys: 2, WritesPerKey: 6, MaxLength: 3,
				Isolation: iso, FailRate: 0.05, CrashRate: 0.05, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			want := summary(t, h)
			for name, f := range renames {
				if got := summary(t, renamed(h, f)); got != want {
					t.Errorf("%s seed %d, %s: %s, want %s", iso, seed, name, got, want)
				}
			}
		}
	}
}

// summary is every level's verdict on h and the anomalies found.
func summary(t *testing.T, h *history.History) string {
	a := analyze(t, h, elle.ListAppend)
	var b strings.Builder
	for _, l := range elle.Levels {
		fmt.Fprintf(&b, "%s=%v ", l, verdict(t, a, h, l).Valid)
	}
	fmt.Fprint(&b, names(a))
	return b.String()
}

// renamed is h with every key and element renamed by f.
func renamed(h *history.History, f func(history.Value) history.Value) *history.History {
	out := *h
	out.Ops = slices.Clone(h.Ops)
	for i := range out.Ops {
		var mops []history.Value
		for _, m := range out.Ops[i].Value.Elems() {
			parts := m.Elems()
			parts[1] = f(parts[1])
			if len(parts) == 3 {
				if elems := parts[2].Elems(); parts[2].Kind() == history.List {
					for j := range elems {
						elems[j] = f(elems[j])
					}
					parts[2] = history.ListValue(elems...)
				} else if !parts[2].IsNil() {
					parts[2] = f(parts[2])
				}
			}
			mops = append(mops, history.ListValue(parts...))
		}
		out.Ops[i].Value = history.ListValue(mops...)
	}
	return &out
}

// TestReadIndexInParts checks that indexing the reads in parts, as a long
// history's are, gives the reads and cases of one pass over the whole: on
// random histories and on simulated stores of every isolation, whose
// broken ones read their own writes wrongly and repeat elements.
func TestReadIndexInParts(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	var hs []*history.History
	for range 200 {
		hs = append(hs, generate(rng).h)
	}
	for _, iso := range sim.Isolations {
		h, err := sim.Txns(sim.TxnOptions{Txns: 2000, Clients: 6, Keys: 4, WritesPerKey: 6, MaxLength: 5,
			Isolation: iso, FailRate: 0.05, CrashRate: 0.05, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	cases := 0
	for i, h := range hs {
		for _, parts := range []int{2, 3, 7} {
			one, split, err := elle.ReadIndexes(h, parts)
			if err != nil {
				break // not a list-append history of transactions
			}
			if !reflect.DeepEqual(one, split) {
				t.Fatalf("history %d in %d parts: the index differs from one pass's", i, parts)
			}
			if parts == 2 {
				cases += reflect.ValueOf(one[1]).Len()
			}
		}
	}
	if cases == 0 {
		t.Fatal("no read gave a case: the comparison tested nothing of them")
	}
}

// TestFreezeInParts checks that merging the graph's arcs in parts, as a
// large graph's are, gives the adjacency of one pass: on simulated stores
// of every isolation, list-append and rw-register, with every kind of
// dependency, process and real-time order.
func TestFreezeInParts(t *testing.T) {
	for _, w := range []elle.Workload{elle.ListAppend, elle.RWRegister} {
		for _, iso := range sim.Isolations {
			h, err := sim.Txns(sim.TxnOptions{Txns: 1500, Clients: 6, Keys: 4, WritesPerKey: 6, MaxLength: 5,
				Isolation: iso, FailRate: 0.05, CrashRate: 0.05, Seed: 5, Registers: w == elle.RWRegister})
			if err != nil {
				t.Fatal(err)
			}
			for _, parts := range []int{2, 3, 7} {
				one, split, err := elle.FrozenInParts(h, w, parts)
				if err != nil {
					t.Fatalf("%v %s: %v", w, iso, err)
				}
				if reflect.ValueOf(one[1]).Len() == 0 {
					t.Fatalf("%v %s: no arc", w, iso)
				}
				if !reflect.DeepEqual(one, split) {
					t.Fatalf("%v %s in %d parts: the adjacency differs from one pass's", w, iso, parts)
				}
			}
		}
	}
}
