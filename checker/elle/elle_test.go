package elle_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
)

// expect is one table case: the anomalies found, and levels that must
// hold and must not.
type expect struct {
	name      string
	h         func(t *testing.T) *history.History
	registers bool
	// assume are the analysis's assumptions (none by default).
	assume    elle.Options
	anomalies []string
	holds     []string
	fails     []string
	// unknown are levels Elle answers unknown for, as no dependency
	// between transactions could be inferred (empty-transaction-graph).
	unknown []string
}

func check(t *testing.T, c expect) {
	t.Helper()
	h := c.h(t)
	w := elle.ListAppend
	if c.registers {
		w = elle.RWRegister
	}
	a, err := elle.AnalyzeWith(context.Background(), h, w, c.assume)
	if err != nil {
		t.Fatal(err)
	}
	got := names(a)
	slices.Sort(got)
	want := slices.Clone(c.anomalies)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("anomalies %v, want %v", got, want)
	}
	for _, l := range c.holds {
		if res := verdict(t, a, h, l); res.Valid != checker.True {
			t.Errorf("%s: %v, want true (%v)", l, res.Valid, res.Violations)
		}
	}
	for _, l := range c.fails {
		if res := verdict(t, a, h, l); res.Valid != checker.False {
			t.Errorf("%s: %v, want false", l, res.Valid)
		}
	}
	for _, l := range c.unknown {
		if res := verdict(t, a, h, l); res.Valid != checker.Unknown || !strings.HasPrefix(res.Reason, elle.EmptyTransactionGraph) {
			t.Errorf("%s: %v (%s), want unknown for the empty transaction graph", l, res.Valid, res.Reason)
		}
	}
}

func conc(txns ...string) func(t *testing.T) *history.History {
	return func(t *testing.T) *history.History { return concurrent(t, false, txns...) }
}

func concRegs(txns ...string) func(t *testing.T) *history.History {
	return func(t *testing.T) *history.History { return concurrent(t, true, txns...) }
}

func seq(txns ...tx) func(t *testing.T) *history.History {
	return func(t *testing.T) *history.History { return build(t, false, txns...) }
}

const (
	ru   = elle.ReadUncommitted
	rc   = elle.ReadCommitted
	rr   = elle.RepeatableRead
	si   = elle.SnapshotIsolation
	ser  = elle.Serializable
	ssi  = elle.StrongSnapshotIsolation
	sssi = elle.StrongSessionSnapshotIsolation
	src  = elle.StrongSessionReadCommitted
	ss   = elle.StrictSerializable
)

// TestListAppendCases ports the cases of Elle's list-append tests: the
// anomalies each history shows (named as Elle names them) and the levels
// they rule out.
func TestListAppendCases(t *testing.T) {
	ok := history.OK
	for _, c := range []expect{
		{name: "valid", h: conc("ax1", "ax2", "rx12"), holds: []string{ss}},
		{name: "G0 write cycle", h: conc("ax1ay1", "ax2ay2", "rx12ry21"),
			anomalies: []string{"G0"}, fails: []string{ru, ss}},
		{name: "G1a aborted read", h: conc("fail:ax1", "rx1"),
			anomalies: []string{"G1a"}, unknown: []string{ru}, fails: []string{rc, rr, ss}},
		{name: "G1b intermediate read", h: conc("ax1ax2", "rx1"),
			anomalies: []string{"G1b", "G-single-item"}, holds: []string{ru}, fails: []string{rc}},
		{name: "G1b not for a transaction's own read", h: conc("ax1rx1ax2", "rx12"), holds: []string{ss}},
		{name: "G1c circular information flow (README)", h: conc("ax1ry1", "ax2ay1", "rx12ry1"),
			anomalies: []string{"G1c"}, holds: []string{ru}, fails: []string{rc}},
		{name: "G-single", h: conc("ax1ay1", "ax2ry", "rx12"),
			anomalies: []string{"G-single-item"}, holds: []string{rc}, fails: []string{rr, si, ser}},
		{name: "G2 anti-dependency cycle", h: conc("ax1ry", "ay1rx"),
			anomalies: []string{"G2-item"}, holds: []string{rc, si}, fails: []string{rr, ser}},
		{name: "repeatable read", h: conc("rxay1", "ryax1"),
			anomalies: []string{"G2-item"}, holds: []string{rc}, fails: []string{rr}},
		{name: "strong SI violation (realtime)", h: seq(tx{"0", ok, "ax1"}, tx{"1", ok, "ax2"}, tx{"2", ok, "rx1"}, tx{"3", ok, "rx12"}),
			anomalies: []string{"G-single-item-realtime"}, holds: []string{ser, sssi}, fails: []string{ssi, ss}},
		{name: "strong session SI violation (process)", h: seq(tx{"0", ok, "ax1"}, tx{"1", ok, "ax2"}, tx{"1", ok, "rx1"}, tx{"2", ok, "rx12"}),
			anomalies: []string{"G-single-item-process"}, holds: []string{ser}, fails: []string{sssi}},
		{name: "G-nonadjacent-process", h: func(t *testing.T) *history.History {
			// t0 reads z = [1] (t3's append) and x empty; t1 appends x;
			// t2, on t1's process, reads z empty; t3 appends z.
			return build(t, false, tx{"0", ok, "rxrz1"}, tx{"1", ok, "ax1"}, tx{"1", ok, "rz"}, tx{"2", ok, "az1"})
			// Run one after another, the history also has real-time cycles.
		}, anomalies: []string{"G-nonadjacent-item-process", "G-single-item-realtime", "G1c-realtime"},
			holds: []string{ser}, fails: []string{sssi}},
		{name: "wr process (G1c-process)", h: seq(tx{"1", ok, "rx1ay1"}, tx{"2", ok, "ry1"}, tx{"2", ok, "ax1"}),
			anomalies: []string{"G1c-process"}, holds: []string{ser, rc}, fails: []string{src, sssi}},
		{name: "contradictory read orders", h: conc("ax1ry1", "ax2", "ax3ay1", "rx13", "rx123"),
			anomalies: []string{"G1c", "incompatible-order"}, fails: []string{rc}},
		{name: "dirty update", h: conc("fail:ax1", "ax2", "rx12"),
			anomalies: []string{"dirty-update", "G1a"}, holds: []string{ru}, fails: []string{rc}},
		{name: "dirty update through a crashed append", h: conc("fail:ax1", "info:ax2", "ax3", "rx123"),
			anomalies: []string{"dirty-update", "G1a"}, fails: []string{rc}},
		{name: "no dirty update without reads", h: conc("fail:ax1"), unknown: []string{ss}},
		{name: "duplicate elements", h: conc("ax1ry1", "ax2ay1", "rx121"),
			anomalies: []string{"duplicate-elements"}, fails: []string{ru}},
		{name: "internal", h: conc("ax1ax2ax4", "ax3rx1234"),
			anomalies: []string{"G0", "internal"}, fails: []string{ru, si, ser}},
		{name: "internal read-append-read", h: conc("rx12ax3rx12", "ax1ax2"),
			anomalies: []string{"internal"}, holds: []string{rc}, fails: []string{si, ser}},
		{name: "internal append-read", h: conc("ax3rx", "ax1"),
			anomalies: []string{"internal"}, fails: []string{si}},
		{name: "future read", h: conc("rx012ax1", "ax0", "ax2"),
			anomalies: []string{"future-read", "G1c"}, fails: []string{rc}},
		{name: "G-nonadjacent", h: conc("ax1", "rx1ry", "ay1", "ry1rx"),
			anomalies: []string{"G-nonadjacent-item"}, holds: []string{rc}, fails: []string{si, rr}},
		{name: "adjacent rw edges are not G-nonadjacent", h: seq(tx{"1", ok, "rx5ay1"}, tx{"2", ok, "ryaz2"}, tx{"3", ok, "rzat3"},
			tx{"4", ok, "rt3au4"}, tx{"5", ok, "ruax5"}),
			anomalies: []string{"G1c-realtime", "G-single-item-realtime"}, holds: []string{si, ser}, fails: []string{ss}},
		{name: "lost update", h: conc("ax0", "rx0ax1", "rx0ax2"),
			anomalies: []string{"G2-item", "lost-update"}, fails: []string{rr, si}},
		{name: "one transaction writes over its read twice", h: conc("rxax1ax2", "rx12"), holds: []string{ss}},
		{name: "info reads tell nothing", h: conc("info:ax2ry", "ax1ay1", "rx12ry1"), holds: []string{ss}},
		{name: "single append without reads", h: conc("rx", "ax1"), holds: []string{ss}},
		{name: "unobserved write", h: conc("ax1ay1", "ax2ay2", "ax3ay3", "rx12", "ry2"),
			anomalies: []string{"G0", "G-single-item"}, fails: []string{ru}},
	} {
		t.Run(c.name, func(t *testing.T) { check(t, c) })
	}
}

// TestRWRegisterCases checks rw-register inference on the shapes of
// Elle's rw-register tests.
func TestRWRegisterCases(t *testing.T) {
	for _, c := range []expect{
		{name: "valid", h: concRegs("wx1", "rx1", "rx"), holds: []string{ss}},
		{name: "G1a", h: concRegs("fail:wx1", "rx1"), anomalies: []string{"G1a"}, unknown: []string{ru}, fails: []string{rc}},
		{name: "G1b", h: concRegs("wx1wx2", "rx1"), anomalies: []string{"G1b"}, fails: []string{rc}},
		{name: "internal", h: concRegs("wx1rx2", "wx2"), anomalies: []string{"internal"}, unknown: []string{rc}, fails: []string{si}},
		{name: "G1c", h: concRegs("wx1ry1", "rx1wy1"), anomalies: []string{"G1c"}, holds: []string{ru}, fails: []string{rc}},
		{name: "write skew G2-item", h: concRegs("rxwy1", "rywx1"), anomalies: []string{"G2-item"},
			holds: []string{rc, si}, fails: []string{rr, ser}},
		{name: "lost update", h: concRegs("rxwx1", "rxwx2"), anomalies: []string{"G2-item", "lost-update"},
			fails: []string{si, rr}},
		{name: "cyclic versions (writes follow reads)", h: concRegs("rx1wx2", "rx2wx3", "rx3wx1"), assume: elle.Options{WFRKeys: true},
			anomalies: []string{"cyclic-versions", "G1c"}, fails: []string{ru}},
		{name: "no version order without writes follow reads", h: concRegs("rx1wx2", "rx2wx3", "rx3wx1"),
			anomalies: []string{"G1c"}, holds: []string{ru}, fails: []string{rc}},
		{name: "a read of a value nobody wrote tells nothing", h: concRegs("wx2", "rx3", "rx2"), holds: []string{ss}},
	} {
		c.registers = true
		t.Run(c.name, func(t *testing.T) { check(t, c) })
	}
}

// TestExplanation checks the words of a cycle's explanation and its
// steps as data.
func TestExplanation(t *testing.T) {
	h := concurrent(t, false, "ax1ry1", "ax2ay1", "rx12ry1")
	a := analyze(t, h, elle.ListAppend)
	res := verdict(t, a, h, rc)
	if len(res.Violations) != 1 {
		t.Fatalf("violations %+v", res.Violations)
	}
	v := res.Violations[0]
	want := "Let:\n  T1 = A:txn([[append x 1] [r y [1]]])\n  T2 = B:txn([[append x 2] [append y 1]])\nThen:\n" +
		"  - T1 < T2, because T2 appended 2 to x after T1's append of 1 (observed: a committed read of x shows 1 before 2).\n" +
		"  - However, T2 < T1, because T1 read T2's append of 1 to y: a contradiction!"
	if got := report.Explain(h, rc, v); got != want {
		t.Errorf("explanation\n%s\nwant\n%s", got, want)
	}
	if v.Pattern != "G1c" || len(v.Cycle) != 2 || v.Cycle[0].Type != "ww" || v.Cycle[1].Type != "wr" ||
		v.Cycle[0].From != 0 || v.Cycle[0].To != 1 || v.Cycle[1].Key != history.StringValue("y") {
		t.Errorf("violation %+v", v)
	}
}

// TestCorpus checks the shared corpus's transactional histories under the
// default level: paper-example.edn is not strict-serializable,
// rw-register.edn is.
func TestCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "corpus", "jepsen")
	for _, c := range []struct {
		file  string
		w     elle.Workload
		valid checker.Verdict
	}{
		{"paper-example.edn", elle.ListAppend, checker.False},
		{"rw-register.edn", elle.RWRegister, checker.True},
	} {
		path := filepath.Join(dir, c.file)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("corpus not present: %v", err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := format.ReadResult(path, f, format.Options{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		a := analyze(t, r.History, c.w)
		res := verdict(t, a, r.History, ss)
		if res.Valid != c.valid {
			t.Errorf("%s: %v, want %v", c.file, res.Valid, c.valid)
		}
		if c.valid == checker.False && !strings.Contains(res.Violations[0].Pattern, "G-single") {
			t.Errorf("%s: %s, want the paper's G-single", c.file, res.Violations[0].Pattern)
		}
	}
}

// TestPaperExampleWithoutProcess reads Elle's own form of the paper's
// example, which names no process and no :f.
func TestPaperExampleWithoutProcess(t *testing.T) {
	src := `{:index 0 :type :invoke :value [[:append 253 1] [:append 253 3] [:append 253 4] [:append 255 2] [:append 255 3] [:append 255 4] [:append 255 5] [:append 256 1] [:append 256 2]]}
{:index 1 :type :ok :value [[:append 253 1] [:append 253 3] [:append 253 4] [:append 255 2] [:append 255 3] [:append 255 4] [:append 255 5] [:append 256 1] [:append 256 2]]}
{:index 2 :type :invoke, :value [[:append 255 8] [:r 253 nil]]}
{:index 3 :type :ok, :value [[:append 255 8] [:r 253 [1 3 4]]]}
{:index 4 :type :invoke, :value [[:append 256 4] [:r 255 nil] [:r 256 nil] [:r 253 nil]]}
{:index 5 :type :ok, :value [[:append 256 4] [:r 255 [2 3 4 5 8]] [:r 256 [1 2 4]] [:r 253 [1 3 4]]]}
{:index 6 :type :invoke, :value [[:append 250 10] [:r 253 nil] [:r 255 nil] [:append 256 3]]}
{:index 7 :type :ok :value [[:append 250 10] [:r 253 [1 3 4]] [:r 255 [2 3 4 5]] [:append 256 3]]}
`
	r, err := format.ReadResult("paper-example.edn", strings.NewReader(src), format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := r.History
	if len(h.Ops) != 4 || h.Ops[0].F != "txn" {
		t.Fatalf("ops %+v", h.Ops)
	}
	a, err := elle.Analyze(context.Background(), h, elle.ListAppend, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res := verdict(t, a, h, ser); res.Valid != checker.False || res.Violations[0].Pattern != "G-single-item" {
		t.Errorf("serializable: %v %+v", res.Valid, res.Violations)
	}
}
