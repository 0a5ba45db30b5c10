package elle_test

import (
	"context"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/history"
)

// TestRegistersAgreeWithBruteForce compares the rw-register analysis's
// verdicts with the brute force's on seeded random rw-register histories
// with failed and crashed transactions, reads of nil, leaked failed writes
// and crashed writes that did or did not take effect (written values are
// unique per key, as Elle's rw-register requires).
//
// What agreeing means. The rw-register inference, like Elle's, is sound
// but incomplete: it knows only the parts of each key's version order that
// the initial state and the assumptions asked for give, and misses
// anomalies that rest on the rest. So the test asserts:
//   - soundness, always: when the analysis says a level is violated, the
//     brute force finds no execution either;
//   - equality where the inference is complete: when the inferred version
//     order totally orders, for every key, the versions that matter (those
//     of committed transactions, and of crashed ones some read shows took
//     effect), the verdicts are the same.
//
// The assumptions are claims about the store, so each history is compared
// only at the levels that imply the assumptions it is analysed under:
// writes-follow-reads holds of every serializable and snapshot-isolated
// execution, while per-key process and real-time order hold only under
// strict serializability, so with those only that verdict is compared.
func TestRegistersAgreeWithBruteForce(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 1000
	}
	assumptions := []elle.Options{{}, {WFRKeys: true}, {SequentialKeys: true}, {LinearizableKeys: true},
		{WFRKeys: true, SequentialKeys: true, LinearizableKeys: true}}
	rng := rand.New(rand.NewSource(21))
	// Per level: verdicts, and the complete histories' verdicts.
	type tally struct{ valid, invalid, completeValid, completeInvalid int }
	counts := map[string]*tally{}
	for i := 0; i < n; i++ {
		g := generateWith(rng, true)
		o := assumptions[i%len(assumptions)]
		a, err := elle.AnalyzeWith(context.Background(), g.h, elle.RWRegister, o)
		if err != nil {
			t.Fatalf("history %d: %v", i, err)
		}
		complete := versionsComplete(t, g, o)
		for _, c := range registerLevels(g, o) {
			res := verdict(t, a, g.h, c.level)
			want := c.brute()
			if res.Valid == checker.Unknown && (!emptyGraph(res) || !want) || (res.Valid == checker.False && want) || (complete && (res.Valid != checker.False) != want) {
				t.Fatalf("history %d (%+v, complete %v), %s: analysis says %v, brute force %v; anomalies %v\n%s",
					i, o, complete, c.level, res.Valid, want, names(a), dump(g.h))
			}
			k := counts[c.level]
			if k == nil {
				k = &tally{}
				counts[c.level] = k
			}
			switch {
			case want && complete:
				k.valid++
				k.completeValid++
			case want:
				k.valid++
			case complete:
				k.invalid++
				k.completeInvalid++
			default:
				k.invalid++
			}
		}
	}
	for level, k := range counts {
		t.Logf("%s: %d valid, %d invalid; complete inference: %d valid, %d invalid", level, k.valid, k.invalid, k.completeValid, k.completeInvalid)
		if min(k.valid, k.invalid) < n/50 || min(k.completeValid, k.completeInvalid) < n/100 {
			t.Errorf("%s: %+v: the generator hardly exercises it", level, *k)
		}
	}
}

type levelCheck struct {
	level string
	brute func() bool
}

// registerLevels are the levels a history analysed under o is compared
// at, with the brute force's verdict for each.
func registerLevels(g generated, o elle.Options) []levelCheck {
	strict := levelCheck{elle.StrictSerializable, func() bool { return bruteSerializable(g.ts, g.keys, true) }}
	if o.SequentialKeys || o.LinearizableKeys {
		return []levelCheck{strict}
	}
	return []levelCheck{
		{elle.Serializable, func() bool { return bruteSerializable(g.ts, g.keys, false) }},
		strict,
		{elle.SnapshotIsolation, func() bool { return bruteSI(g.ts, g.keys) }},
	}
}

// versionsComplete reports whether the inferred version order of each key
// totally orders the versions that matter: the final writes of committed
// transactions, and of crashed ones a committed read shows took effect.
func versionsComplete(t *testing.T, g generated, o elle.Options) bool {
	t.Helper()
	orders, _, err := elle.VersionOrders(g.h, o)
	if err != nil {
		t.Fatal(err)
	}
	read := map[[2]int]bool{}
	for _, x := range g.ts {
		for _, op := range x.ops {
			if x.status == history.OK && op.read {
				read[[2]int{op.key, op.val}] = true
			}
		}
	}
	for k := 0; k < g.keys; k++ {
		var vs []int
		for _, x := range g.ts {
			if v, ok := finalWrite(x, k); ok && (x.status == history.OK || x.status == history.Info && tookEffect(x, read)) {
				vs = append(vs, v)
			}
		}
		if !totallyOrdered(vs, orders[string(rune('x'+k))]) {
			return false
		}
	}
	return true
}

// finalWrite is x's last write of key k.
func finalWrite(x btxn, k int) (int, bool) {
	v, ok := 0, false
	for _, op := range x.ops {
		if !op.read && op.key == k {
			v, ok = op.val, true
		}
	}
	return v, ok
}

// tookEffect reports whether a committed read shows one of x's writes.
func tookEffect(x btxn, read map[[2]int]bool) bool {
	for _, op := range x.ops {
		if !op.read && read[[2]int{op.key, op.val}] {
			return true
		}
	}
	return false
}

// totallyOrdered reports whether the transitive closure of pairs ("1<2")
// orders every two of vs.
func totallyOrdered(vs []int, pairs []string) bool {
	next := map[int][]int{}
	for _, p := range pairs {
		a, b, _ := strings.Cut(p, "<")
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(b)
		if err1 == nil && err2 == nil {
			next[x] = append(next[x], y)
		}
	}
	reach := func(from, to int) bool {
		seen := map[int]bool{from: true}
		stack := []int{from}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, n := range next[v] {
				if n == to {
					return true
				}
				if !seen[n] {
					seen[n] = true
					stack = append(stack, n)
				}
			}
		}
		return false
	}
	for i, a := range vs {
		for _, b := range vs[i+1:] {
			if !reach(a, b) && !reach(b, a) {
				return false
			}
		}
	}
	return true
}
