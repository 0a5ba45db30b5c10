package elle_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/history"
)

// TestCyclesPerComponent checks that, as Elle, each strongly connected
// component's cycles are reported: n write skews on disjoint keys are n
// components, each with its G2-item cycle, and --max-violations bounds
// the violations shown while the reason gives their number.
func TestCyclesPerComponent(t *testing.T) {
	keys := "cdefghijklmnopq"
	for _, n := range []int{1, 2, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var txns []string
			for i := 0; i < n; i++ {
				x, y := keys[2*i], keys[2*i+1]
				// Each reads both keys empty and appends to one.
				txns = append(txns, fmt.Sprintf("r%cr%ca%c1", x, y, x), fmt.Sprintf("r%cr%ca%c1", x, y, y))
			}
			h := concurrent(t, false, txns...)
			a := analyze(t, h, elle.ListAppend)
			count := 0
			for _, c := range a.Cycles {
				if c.Name != "G2-item" {
					t.Errorf("cycle %s, want only G2-item", c.Name)
				}
				count++
			}
			if count != n {
				t.Fatalf("%d G2-item cycles, want %d", count, n)
			}
			res := verdict(t, a, h, ser)
			if res.Valid != checker.False || len(res.Violations) != n {
				t.Fatalf("serializable: %v with %d violations, want false with %d", res.Valid, len(res.Violations), n)
			}
			seen := map[int]bool{}
			for _, v := range res.Violations {
				for _, op := range v.Ops {
					if seen[op] {
						t.Errorf("operation %d in two cycles: the components are disjoint", op)
					}
					seen[op] = true
				}
			}
			if n > 1 && !strings.Contains(res.Reason, fmt.Sprintf("%d G2-item", n)) {
				t.Errorf("reason %q does not count the %d cycles", res.Reason, n)
			}
			if res.Valid == checker.False && verdict(t, a, h, si).Valid != checker.True {
				t.Errorf("snapshot isolation allows write skew")
			}
			b := elle.Bound(res, 1)
			if len(b.Violations) != 1 || n > 1 && !strings.Contains(b.Reason, fmt.Sprintf("%d violations found; the first 1", n)) {
				t.Errorf("bounded to 1: %d violations, reason %q", len(b.Violations), b.Reason)
			}
		})
	}
}

// TestRealtimeTiesOverlap checks Elle's real-time order at tied times: a
// transaction invoked at the instant another completed overlaps it, so
// no real-time edge joins them. Here T2 reads x empty although T1, which
// appended to x, completed at the time T2 was invoked: serializable
// either way, and strict serializable only because the two overlap
// (ordered, T1 < T2 in real time and T2 < T1 by rw would be a
// G-single-item-realtime cycle).
func TestRealtimeTiesOverlap(t *testing.T) {
	ev := func(p string, typ history.Type, at int64, s string) history.Event {
		v := mops(s, false)
		if typ == history.Invoke {
			v = invokeValue(v)
		}
		return history.Event{Process: p, Type: typ, F: "txn", Value: v, Time: at, HasTime: true}
	}
	for _, tt := range []struct {
		name  string
		start int64 // when T2 is invoked; T1 completes at 5
		want  checker.Verdict
	}{
		{"tied", 5, checker.True},
		{"after", 6, checker.False},
		{"before", 4, checker.True},
	} {
		t.Run(tt.name, func(t *testing.T) {
			evs := []history.Event{ev("A", history.Invoke, 0, "ax1"), ev("A", history.OK, 5, "ax1")}
			t2 := []history.Event{ev("B", history.Invoke, tt.start, "rx"), ev("B", history.OK, 10, "rx")}
			if tt.start < 5 {
				evs = []history.Event{evs[0], t2[0], evs[1], t2[1]}
			} else {
				evs = append(evs, t2...)
			}
			h, err := history.Pair(evs)
			if err != nil {
				t.Fatal(err)
			}
			if err := h.OrderByTimes(); err != nil {
				t.Fatal(err)
			}
			a := analyze(t, h, elle.ListAppend)
			if res := verdict(t, a, h, ss); res.Valid != tt.want {
				t.Errorf("strict-serializable: %v, want %v (anomalies %v)", res.Valid, tt.want, names(a))
			}
			if res := verdict(t, a, h, ser); res.Valid != checker.True {
				t.Errorf("serializable: %v, want true", res.Valid)
			}
		})
	}
}

// TestSingleItemProcessElleMisses keeps the case docs/elle-cli.md gives
// of a cycle histcheck reports and Elle does not: T2 and T3 ran in that
// order on one process, and T2 also read the state of x T3 changed, so
// the step T2 -> T3 is both a process edge and an rw dependency. The
// cycle T1 -wr-> T2 -process-> T3 -rw-> T1 has a single rw: a
// G-single-item-process, which strong session snapshot isolation rules
// out. Elle explains each step by its data dependency first, so it reads
// the cycle as a G2-item, which its search for G-single-item-process
// then discards; it reports the G2-item only.
func TestSingleItemProcessElleMisses(t *testing.T) {
	ev := func(p string, typ history.Type, s string) history.Event {
		v := mops(s, false)
		if typ == history.Invoke {
			v = invokeValue(v)
		}
		return history.Event{Process: p, Type: typ, F: "txn", Value: v}
	}
	h, err := history.Pair([]history.Event{
		ev("1", history.Invoke, "ay1az1"),
		ev("0", history.Invoke, "rxrz1"), ev("0", history.OK, "rxrz1"),
		ev("0", history.Invoke, "ax1ry"), ev("0", history.OK, "ax1ry"),
		ev("1", history.OK, "ay1az1"),
	})
	if err != nil {
		t.Fatal(err)
	}
	a := analyze(t, h, elle.ListAppend)
	got := names(a)
	if !slices.Equal(got, []string{"G2-item", "G-single-item-process"}) {
		t.Errorf("anomalies %v, want [G2-item G-single-item-process]", got)
	}
	for level, want := range map[string]checker.Verdict{si: checker.True, sssi: checker.False, ser: checker.False} {
		if res := verdict(t, a, h, level); res.Valid != want {
			t.Errorf("%s: %v, want %v", level, res.Valid, want)
		}
	}
}

// TestEmptyGraphRealtimeToFailed checks that, as in Elle's real-time
// graph, a failed transaction invoked after a committed one completed is
// a real-time dependency for the empty transaction graph, though it takes
// no part in any cycle: strict serializability is true here, while
// serializability, whose graph has data dependencies only, is unknown.
func TestEmptyGraphRealtimeToFailed(t *testing.T) {
	check(t, expect{name: "committed, then failed", h: seq(tx{"A", history.OK, "ax1"}, tx{"B", history.Fail, "ay1"}),
		holds: []string{ss}, unknown: []string{ser}})
	check(t, expect{name: "failed, then committed", h: seq(tx{"A", history.Fail, "ax1"}, tx{"B", history.OK, "ay1"}),
		unknown: []string{ss, ser}})
}

// TestComponentsOfTheClassGraph checks that cycles are counted per
// component of the graph the class's cycles live in, as Elle builds it for
// the levels asked: five transactions of a PostgreSQL REPEATABLE READ
// recording hold two write skews on different keys, which only a process
// order edge joins into one strongly connected component. Serializable
// rules out neither process nor real-time cycles, so Elle's graph has no
// such edge and finds two components, each with its G2-item.
func TestComponentsOfTheClassGraph(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "histories", "txn", "g2-joined-by-process.edn")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	h := readHistory(t, path, string(src))
	a := analyze(t, h, elle.ListAppend)
	res := verdict(t, a, h, ser)
	if res.Valid != checker.False || len(res.Violations) != 2 {
		t.Fatalf("serializable: %v with %d violations, want false with two G2-item cycles", res.Valid, len(res.Violations))
	}
	for _, v := range res.Violations {
		if v.Pattern != "G2-item" {
			t.Errorf("violation %s, want G2-item", v.Pattern)
		}
	}
}
