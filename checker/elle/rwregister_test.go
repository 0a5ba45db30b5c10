package elle_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/history"
)

// interleave builds a history from transactions and the order of their
// events: each transaction's index appears twice in order, for its
// invocation and its completion (crashed transactions' second appearance
// is dropped).
func interleave(t *testing.T, registers bool, order []int, txns ...tx) *history.History {
	t.Helper()
	var evs []history.Event
	seen := make([]bool, len(txns))
	for _, i := range order {
		x := txns[i]
		v := mops(x.s, registers)
		if !seen[i] {
			seen[i] = true
			evs = append(evs, history.Event{Process: x.proc, Type: history.Invoke, F: "txn", Value: invokeValue(v)})
			continue
		}
		switch x.typ {
		case history.OK:
			evs = append(evs, history.Event{Process: x.proc, Type: history.OK, F: "txn", Value: v})
		case history.Fail:
			evs = append(evs, history.Event{Process: x.proc, Type: history.Fail, F: "txn", Value: invokeValue(v)})
		}
	}
	h, err := history.Pair(evs)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func seqRegs(txns ...tx) func(t *testing.T) *history.History {
	return func(t *testing.T) *history.History { return build(t, true, txns...) }
}

var (
	wfr  = elle.Options{WFRKeys: true}
	seqK = elle.Options{SequentialKeys: true}
	linK = elle.Options{LinearizableKeys: true}
)

// TestRWRegisterAssumptions ports the cases of Elle's rw-register checker
// tests, most of which rest on its :wfr-keys?, :sequential-keys? and
// :linearizable-keys? options, with and without them.
func TestRWRegisterAssumptions(t *testing.T) {
	ok, info := history.OK, history.Info
	g0 := seqRegs(tx{"0", ok, "wx1wy2"}, tx{"1", ok, "wx2wy1"}, tx{"0", ok, "rx2"}, tx{"1", ok, "ry2"})
	g2 := func(t *testing.T) *history.History {
		// t1 establishes x = y = 1 (a state nobody wrote); t2 and t3,
		// concurrent, each read one and advance the other.
		return interleave(t, true, []int{0, 0, 1, 2, 2, 1},
			tx{"0", ok, "rx1ry1"}, tx{"1", ok, "rx1wy2"}, tx{"2", ok, "ry1wx2"})
	}
	overwritten := seqRegs(tx{"0", ok, "wx1"}, tx{"0", ok, "wx2"}, tx{"0", ok, "rx1"})
	for _, c := range []expect{
		// Elle marks this one as a bug it has: 2 was never written, and
		// nothing orders it.
		{name: "read of a value nobody wrote", h: seqRegs(tx{"0", ok, "wx1"}, tx{"0", ok, "rx2"}), assume: linK, holds: []string{ss}},
		{name: "read of an overwritten value, linearizable keys", h: seqRegs(tx{"0", ok, "wx1"}, tx{"0", ok, "rx2"}, tx{"0", ok, "rx1"}),
			assume: linK, anomalies: []string{"cyclic-versions"}, fails: []string{ru}},
		{name: "G0 unseen without an assumption", h: g0, holds: []string{ss}},
		{name: "G0, sequential keys", h: g0, assume: seqK, anomalies: []string{"G0"}, fails: []string{ru}},
		{name: "G2-item unseen without an assumption", h: g2, holds: []string{ss}},
		{name: "G2-item, linearizable keys", h: g2, assume: linK, anomalies: []string{"G2-item"},
			holds: []string{rc}, fails: []string{rr, ser}},
		{name: "initial state", h: concRegs("rxry1", "wy1wx2"), anomalies: []string{"G-single-item"},
			holds: []string{rc}, fails: []string{ser, si}},
		{name: "no wfr", h: concRegs("ry1wx1wy2", "rx1ry1"), holds: []string{ser}},
		// The reader saw the writer's x and then, by writes-follow-reads, a
		// y older than the writer's: a fractured read too.
		{name: "wfr", h: concRegs("ry1wx1wy2", "rx1ry1"), assume: wfr, anomalies: []string{"G-single-item", "fractured-read"},
			holds: []string{rc}, fails: []string{ser, elle.MonotonicAtomicView}},
		{name: "cyclic version order unseen without an assumption", h: overwritten, holds: []string{ss}},
		{name: "cyclic version order, sequential keys", h: overwritten, assume: seqK, anomalies: []string{"cyclic-versions"}, fails: []string{ru}},
		{name: "cyclic version order, linearizable keys", h: overwritten, assume: linK, anomalies: []string{"cyclic-versions"}, fails: []string{ru}},
		{name: "lost update", h: concRegs("rx0wx1", "rx0wx2"), anomalies: []string{"lost-update"}, unknown: []string{rc}, fails: []string{si, rr}},
		{name: "internal", h: concRegs("rx1rx2"), anomalies: []string{"internal"}, fails: []string{si}},
		// Elle takes a transaction's first version of a key to be its
		// read only when the read is not nil; a read of nil is one too.
		{name: "nil read after a write, linearizable keys", h: seqRegs(tx{"0", ok, "wx1"}, tx{"0", ok, "rxwx2"}), assume: linK,
			anomalies: []string{"cyclic-versions", "G-single-item-process"}, fails: []string{ru}},
		// One step of the cycle is both ww and wr (T2 wrote the 2 T1
		// read, and T1's 3 follows it by writes-follow-reads), the other
		// is process and real-time order: a G0-process, which rules out
		// the strong session and strong levels of read uncommitted, and
		// not read uncommitted itself. Elle, checking strict
		// serializability, searches real-time order alone and explains
		// the step by its wr dependency first, naming the cycle
		// G1c-realtime: a name that rules out neither of those levels.
		{name: "ww and wr step, process order", h: seqRegs(tx{"0", ok, "rx2wx3"}, tx{"0", ok, "wx2"}), assume: wfr,
			anomalies: []string{"G0-process"}, holds: []string{rc},
			fails: []string{elle.StrongSessionReadUncommitted, elle.StrongReadUncommitted, ss}},
		// Elle's scc-sort-bug-test: real-time order contradicts the
		// versions writes-follow-reads gave, so it is left out (two
		// cyclic-versions cases), and writes-follow-reads' 4 < 3 still
		// makes T4 -ww-> T3, which T3 -process-> T4 closes.
		{name: "scc sort bug", h: seqRegs(tx{"0", ok, "rx1"}, tx{"0", ok, "rx"}, tx{"0", ok, "rx4wx3"}, tx{"0", ok, "wx4"}),
			assume:    elle.Options{WFRKeys: true, LinearizableKeys: true},
			anomalies: []string{"G0-process", "cyclic-versions", "cyclic-versions"},
			fails:     []string{ru, elle.StrongSessionReadUncommitted, ss}},
		{name: "sequential keys: other processes tell nothing", h: seqRegs(tx{"0", ok, "wx1"}, tx{"1", ok, "wx2"}, tx{"0", ok, "rx1"}),
			assume: seqK, holds: []string{ser}},
		{name: "a crashed write is ordered after what its process saw", h: seqRegs(tx{"0", ok, "rx1"}, tx{"0", info, "wx2"}, tx{"1", ok, "rx2"}),
			assume: seqK, holds: []string{ss}},
	} {
		c.registers = true
		t.Run(c.name, func(t *testing.T) { check(t, c) })
	}
}

// TestVersionOrders ports Elle's tests of the version orders a
// transaction order gives (transaction-graph->version-graphs): each
// history's transactions run in the order given, under the assumption
// named.
func TestVersionOrders(t *testing.T) {
	ok, fail, info := history.OK, history.Fail, history.Info
	for _, c := range []struct {
		name string
		h    func(t *testing.T) *history.History
		o    elle.Options
		want map[string][]string
	}{
		{"r->w", seqRegs(tx{"0", ok, "rx1"}, tx{"0", ok, "wx2"}), seqK, map[string][]string{"x": {"1<2"}}},
		{"fork-join", func(t *testing.T) *history.History {
			return interleave(t, true, []int{0, 0, 1, 2, 1, 2, 3, 3},
				tx{"0", ok, "rx1"}, tx{"1", ok, "wx2"}, tx{"2", ok, "wx3"}, tx{"3", ok, "rx4"})
		}, linK, map[string][]string{"x": {"1<2", "1<3", "2<4", "3<4"}}},
		{"external ww", seqRegs(tx{"0", ok, "wx1wx2"}, tx{"0", ok, "wx3wx4rx5"}), seqK, map[string][]string{"x": {"2<4"}}},
		{"external wr", seqRegs(tx{"0", ok, "wx1wx2"}, tx{"0", ok, "rx3rx4wx5"}), seqK, map[string][]string{"x": {"2<3"}}},
		{"external rw", seqRegs(tx{"0", ok, "rx1rx2"}, tx{"0", ok, "wx3wx4rx5"}), seqK, map[string][]string{"x": {"1<4"}}},
		{"external rr", seqRegs(tx{"0", ok, "rx1rx2"}, tx{"0", ok, "rx3rx4wx5"}), seqK, map[string][]string{"x": {"1<3"}}},
		{"no v1 -> v1", seqRegs(tx{"0", ok, "wx1"}, tx{"0", ok, "rx1"}), linK, map[string][]string{}},
		{"nothing from failed or crashed reads", seqRegs(tx{"0", ok, "wx1"}, tx{"0", fail, "rx2"}, tx{"0", info, "rx3"},
			tx{"1", fail, "rx4"}, tx{"1", ok, "rx5"}), seqK, map[string][]string{}},
		{"nothing from failed writes, but from crashed ones", seqRegs(tx{"0", ok, "wx1"}, tx{"0", fail, "wx2"}, tx{"0", info, "rx3wx4"},
			tx{"1", fail, "wx5"}, tx{"1", ok, "rx6"}), seqK, map[string][]string{"x": {"1<4"}}},
		{"through failed and crashed transactions", func(t *testing.T) *history.History {
			return interleave(t, true, []int{0, 0, 1, 2, 2, 3, 3, 4, 4, 5, 5},
				tx{"0", ok, "wx1"}, tx{"1", info, "rx"}, tx{"0", ok, "rx3"}, tx{"2", ok, "wy1"}, tx{"2", fail, "wy2"}, tx{"2", ok, "ry3"})
		}, linK, map[string][]string{"x": {"1<3"}, "y": {"1<3"}}},
		{"real-time ties overlap", func(t *testing.T) *history.History {
			// T2 completes at 5, when T3 is invoked: the two overlap, so
			// T3 follows only T1.
			h := build(t, true, tx{"0", ok, "wx1"}, tx{"1", ok, "wx2"}, tx{"2", ok, "rx3"})
			for i, span := range [][2]int64{{0, 1}, {2, 5}, {5, 6}} {
				h.Ops[i].Call, h.Ops[i].Return = span[0], span[1]
			}
			return h
		}, linK, map[string][]string{"x": {"1<2", "1<3"}}},
		{"writes follow reads", concRegs("rx1wx2", "rxwy1", "ry2wy3"), wfr, map[string][]string{"x": {"1<2"}, "y": {"2<3"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, cases, err := elle.VersionOrders(c.h(t), c.o)
			if err != nil {
				t.Fatal(err)
			}
			for _, cs := range cases {
				if cs.Name == "cyclic-versions" {
					t.Errorf("cyclic versions %v", cs.Values)
				}
			}
			for k, want := range c.want {
				if !slices.Equal(got[k], want) {
					t.Errorf("%s: %v, want %v", k, got[k], want)
				}
			}
			for k, vs := range got {
				if _, ok := c.want[k]; !ok && len(vs) > 0 {
					t.Errorf("%s: %v, want none", k, vs)
				}
			}
		})
	}
}

// TestParseAssumptions checks the assumptions' names.
func TestParseAssumptions(t *testing.T) {
	o, err := elle.ParseAssumptions([]string{elle.WFRKeys, elle.LinearizableKeys}, elle.Options{Budget: 7})
	if err != nil || o != (elle.Options{Budget: 7, WFRKeys: true, LinearizableKeys: true}) {
		t.Errorf("%+v, %v", o, err)
	}
	if _, err := elle.ParseAssumptions([]string{"serial-keys"}, elle.Options{}); err == nil || !strings.Contains(err.Error(), "sequential-keys") {
		t.Errorf("unknown assumption: %v", err)
	}
}

// TestCyclicVersionsPerComponent ports Elle's scc-sort-bug-test: under
// writes-follow-reads and linearizable keys, the real-time order puts 1
// before nil (the initial state) and 3 before 4, which writes-follow-reads
// put after 4. Those are two strongly connected components of x's version
// order, and Elle reports a cyclic-versions case for each.
func TestCyclicVersionsPerComponent(t *testing.T) {
	ok := history.OK
	h := seqRegs(tx{"0", ok, "rx1"}, tx{"0", ok, "rx"}, tx{"0", ok, "rx4wx3"}, tx{"0", ok, "wx4"})(t)
	_, cases, err := elle.VersionOrders(h, elle.Options{WFRKeys: true, LinearizableKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cases {
		if c.Name != "cyclic-versions" {
			continue
		}
		var vs []string
		for _, v := range c.Values {
			vs = append(vs, v.String())
		}
		slices.Sort(vs)
		got = append(got, c.Key.String()+":"+strings.Join(vs, ","))
	}
	slices.Sort(got)
	if want := []string{"x:1,nil", "x:3,4"}; !slices.Equal(got, want) {
		t.Errorf("cyclic-versions cases %q, want %q", got, want)
	}
}
