package linear

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// op writes one operation; ret < 0 means unknown outcome.
func op(client, f string, v history.Value, call, ret int64) history.Op {
	o := history.Op{Client: client, F: f, Value: v, Call: call, Return: ret, Status: history.OK}
	if ret < 0 {
		o.Status, o.Return = history.Info, history.Infinity
	}
	return o
}

func keyed(o history.Op, k string) history.Op { o.Key = history.StringValue(k); return o }

func failed(o history.Op) history.Op { o.Status = history.Fail; return o }

func mustHistory(t *testing.T, ops ...history.Op) *history.History {
	t.Helper()
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func labels(h *history.History, pos []int) string {
	var s []string
	for _, i := range pos {
		s = append(s, h.Ops[i].Label())
	}
	return strings.Join(s, " ")
}

var i64 = history.IntValue

func cas(from, to int64) history.Value { return history.ListValue(i64(from), i64(to)) }

func TestCheckRegister(t *testing.T) {
	reg := model.NewRegister(model.Options{Init: i64(0)})
	casReg := model.NewCASRegister(model.Options{Init: i64(0)})
	tests := []struct {
		name    string
		m       model.Model[int64]
		ops     []history.Op
		noPrune bool
		want    checker.Verdict
		witness string // labels of the witness, when valid
		dropped string // labels of the dropped operations
		expl    string // explanation, when invalid
		fail    string // label of the operation that could not take effect
	}{
		{name: "empty", m: reg, want: checker.True},
		{
			name: "sequential",
			m:    reg,
			ops:  []history.Op{op("A", "write", i64(1), 0, 1), op("B", "read", i64(1), 2, 3)},
			want: checker.True, witness: "A:w(1) B:r(1)",
		},
		{
			name: "stale read",
			m:    reg,
			ops:  []history.Op{op("A", "write", i64(1), 0, 1), op("B", "read", i64(0), 2, 3)},
			want: checker.False, fail: "B:r(0)",
			expl: "B:r(0) cannot take effect: read 0 but the register holds 1 (after A:w(1))",
		},
		{
			name: "concurrent read may see either",
			m:    reg,
			ops:  []history.Op{op("A", "write", i64(1), 0, 10), op("B", "read", i64(0), 1, 2), op("C", "read", i64(1), 3, 4)},
			want: checker.True, witness: "B:r(0) A:w(1) C:r(1)",
		},
		{
			name: "new-old inversion",
			m:    reg,
			ops:  []history.Op{op("A", "write", i64(1), 0, 10), op("B", "read", i64(1), 1, 2), op("C", "read", i64(0), 3, 4)},
			want: checker.False, fail: "C:r(0)",
			expl: "C:r(0) cannot take effect: read 0 but the register holds 1 (after A:w(1) -> B:r(1))",
		},
		{
			name: "read at the initial state",
			m:    reg,
			ops:  []history.Op{op("A", "read", i64(3), 0, 1)},
			want: checker.False, fail: "A:r(3)",
			expl: "A:r(3) cannot take effect: read 3 but the register holds 0 (in the initial state)",
		},
		{
			name: "crashed write observed",
			m:    reg,
			ops:  []history.Op{op("A", "write", i64(1), 0, -1), op("B", "read", i64(1), 5, 6)},
			want: checker.True, witness: "A:w(1) B:r(1)",
		},
		{
			name: "crashed write unobserved is pruned",
			m:    reg,
			ops:  []history.Op{op("A", "write", i64(1), 0, -1), op("B", "read", i64(0), 5, 6)},
			want: checker.True, witness: "B:r(0)", dropped: "A:w(1)",
		},
		{
			name: "crashed write unobserved is optional",
			m:    reg, noPrune: true,
			ops:  []history.Op{op("A", "write", i64(1), 0, -1), op("B", "read", i64(0), 5, 6)},
			want: checker.True, witness: "B:r(0)", dropped: "A:w(1)",
		},
		{
			name: "crashed write takes effect late",
			m:    reg, noPrune: true,
			ops: []history.Op{op("A", "write", i64(1), 0, -1), op("B", "read", i64(0), 5, 6),
				op("C", "read", i64(1), 7, 8), op("D", "read", i64(1), 9, 10)},
			want: checker.True, witness: "B:r(0) A:w(1) C:r(1) D:r(1)",
		},
		{
			name: "crashed write cannot take effect before its call",
			m:    reg, noPrune: true,
			ops:  []history.Op{op("B", "read", i64(1), 0, 1), op("A", "write", i64(1), 2, -1)},
			want: checker.False, fail: "B:r(1)",
		},
		{
			name: "failed write did not happen",
			m:    reg,
			ops:  []history.Op{failed(op("A", "write", i64(1), 0, 1)), op("B", "read", i64(1), 2, 3)},
			want: checker.False, fail: "B:r(1)",
		},
		{
			name: "cas chain",
			m:    casReg,
			ops: []history.Op{op("A", "cas", cas(0, 1), 0, 5), op("B", "cas", cas(1, 2), 1, 6),
				op("C", "read", i64(2), 7, 8)},
			want: checker.True, witness: "A:cas(0, 1) B:cas(1, 2) C:r(2)",
		},
		{
			name: "two cas from one value",
			m:    casReg,
			ops:  []history.Op{op("A", "cas", cas(0, 1), 0, 5), op("B", "cas", cas(0, 2), 1, 6)},
			want: checker.False,
		},
		{
			name: "closed intervals touch",
			m:    reg,
			ops:  []history.Op{op("A", "write", i64(1), 0, 5), op("B", "read", i64(0), 5, 6)},
			want: checker.True, witness: "B:r(0) A:w(1)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := mustHistory(t, tc.ops...)
			// Where the zones algorithm applies it must agree (its witness
			// verified); the details below are the search's.
			res, err := Check(context.Background(), tc.m, h, Options{Verify: true, NoPrune: tc.noPrune})
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid != tc.want {
				t.Fatalf("with zones: verdict %v, want %v (%+v)", res.Valid, tc.want, res)
			}
			res, err = Check(context.Background(), tc.m, h, Options{Verify: true, NoPrune: tc.noPrune, NoZones: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid != tc.want {
				t.Fatalf("verdict %v, want %v (%+v)", res.Valid, tc.want, res)
			}
			if res.Method != "wgl" || res.Criterion != checker.Linearizable {
				t.Errorf("method %q criterion %q", res.Method, res.Criterion)
			}
			if tc.want == checker.True {
				if got := labels(h, res.Witness); got != tc.witness {
					t.Errorf("witness %q, want %q", got, tc.witness)
				}
				if got := labels(h, res.Dropped); got != tc.dropped {
					t.Errorf("dropped %q, want %q", got, tc.dropped)
				}
				return
			}
			if len(res.Violations) != 1 {
				t.Fatalf("violations %+v", res.Violations)
			}
			v := res.Violations[0]
			if tc.fail != "" && h.Ops[v.Ops[0]].Label() != tc.fail {
				t.Errorf("failing op %s, want %s", h.Ops[v.Ops[0]].Label(), tc.fail)
			}
			if got := Explain(h, checker.Linearizable, v); tc.expl != "" && got != tc.expl {
				t.Errorf("explanation %q\nwant        %q", got, tc.expl)
			}
			if err := checker.VerifyWitness(tc.m, h, v.Prefix, checker.RealTime); err == nil {
				t.Errorf("the prefix %v is a full witness of an invalid history", v.Prefix)
			}
		})
	}
}

func TestCheckKeyed(t *testing.T) {
	m := model.NewKV(model.Options{Init: history.StringValue("")})
	s := history.StringValue
	// Key x's order and key y's order must interleave by real time: the
	// witness is verified over all pairs.
	valid := []history.Op{
		keyed(op("A", "put", s("a"), 0, 10), "x"),
		keyed(op("B", "put", s("b"), 1, 2), "y"),
		keyed(op("C", "get", s("a"), 3, 4), "x"),
		keyed(op("D", "get", s("b"), 5, 6), "y"),
		keyed(op("E", "append", s("c"), 7, 8), "y"),
		keyed(op("B", "get", s("bc"), 11, 12), "y"),
		keyed(op("C", "get", s("a"), 11, 12), "x"),
	}
	h := mustHistory(t, valid...)
	for _, workers := range []int{1, 2, 4} {
		res, err := Check(context.Background(), m, h, Options{Verify: true, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid != checker.True || len(res.Witness) != len(valid) || res.Stats.Partitions != 2 {
			t.Fatalf("workers %d: %+v", workers, res)
		}
	}

	// Keys y and z both fail. The zones algorithm decides key z (reads and
	// puts of unique values) before any search starts, so z is reported;
	// without it one worker searches keys in order of first appearance and
	// stops at y, and more workers may find either first.
	bad := append(valid,
		keyed(op("F", "put", s("z1"), 20, 21), "z"),
		keyed(op("G", "get", s(""), 22, 23), "z"),
		keyed(op("H", "get", s("b"), 30, 31), "y"),
	)
	h = mustHistory(t, bad...)
	want := map[string]string{"y": "H:get(y, b)", "z": "G:get(z, \"\")"}
	for _, workers := range []int{1, 2, 3} {
		for rep := 0; rep < 20; rep++ {
			noZones := rep%2 == 0
			res, err := Check(context.Background(), m, h, Options{Workers: workers, NoZones: noZones})
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid != checker.False || len(res.Violations) != 1 {
				t.Fatalf("workers %d: %+v", workers, res)
			}
			v := res.Violations[0]
			if (workers == 1 && noZones && v.Key != "y") || (!noZones && v.Key != "z") || want[v.Key] != h.Ops[v.Ops[0]].Label() {
				t.Fatalf("workers %d, no zones %v: violation %+v (%s)", workers, noZones, v, h.Ops[v.Ops[0]].Label())
			}
		}
	}
}

func TestCheckMutex(t *testing.T) {
	m := model.NewMutex(model.Options{})
	nv := history.Value{}
	tests := []struct {
		ops  []history.Op
		want checker.Verdict
	}{
		{[]history.Op{op("A", "acquire", nv, 0, 1), op("A", "release", nv, 2, 3), op("B", "acquire", nv, 1, 4)}, checker.True},
		{[]history.Op{op("A", "acquire", nv, 0, 1), op("B", "acquire", nv, 2, 3)}, checker.False},
		{[]history.Op{op("A", "acquire", nv, 0, -1), op("B", "acquire", nv, 2, 3)}, checker.True},
	}
	for i, tc := range tests {
		res, err := Check(context.Background(), m, mustHistory(t, tc.ops...), Options{Verify: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid != tc.want {
			t.Errorf("case %d: %v, want %v", i, res.Valid, tc.want)
		}
	}
}

func TestCheckBadInput(t *testing.T) {
	h := mustHistory(t, op("A", "frobnicate", i64(1), 0, 1))
	_, err := Check(context.Background(), model.NewRegister(model.Options{}), h, Options{})
	if err == nil || !strings.Contains(err.Error(), "frobnicate") {
		t.Fatalf("error %v", err)
	}
}

// hardHistory has many concurrent writes of distinct values that no read
// pins down, and a read of a value nobody wrote at the end, so the search
// must try every order of the writes before it can refute.
func hardHistory(t *testing.T, writers int) *history.History {
	var ops []history.Op
	for i := 0; i < writers; i++ {
		ops = append(ops, op(string(rune('A'+i%26))+string(rune('a'+i/26)), "write", i64(int64(i+1)), 0, 100))
	}
	ops = append(ops, op("Z", "read", i64(-1), 101, 102))
	return mustHistory(t, ops...)
}

func TestCheckTimeout(t *testing.T) {
	// The zones algorithm would refute this history at once; the search
	// alone must give up at the deadline.
	h := hardHistory(t, 40)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err := Check(ctx, model.NewRegister(model.Options{Init: i64(0)}), h, Options{NoZones: true})
	if err != nil {
		t.Fatal(err)
	}
	// A guard against a search that ignores its deadline, not a timer:
	// a loaded machine may take long to get there.
	if el := time.Since(start); el > time.Minute {
		t.Fatalf("took %v after a 200ms deadline", el)
	}
	if res.Valid != checker.Unknown || !strings.HasPrefix(res.Reason, "timed out after ") || !strings.Contains(res.Reason, " states") {
		t.Fatalf("verdict %v, reason %q", res.Valid, res.Reason)
	}
	if res.Stats.States == 0 {
		t.Errorf("no states counted: %+v", res.Stats)
	}

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	res, err = Check(ctx, model.NewRegister(model.Options{Init: i64(0)}), h, Options{})
	if err != nil || res.Valid != checker.Unknown || !strings.HasPrefix(res.Reason, "cancelled") {
		t.Fatalf("cancelled: %v %+v", err, res)
	}
}
