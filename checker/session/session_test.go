package session

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/causal"
	"github.com/histcheck/histcheck/history"
)

// mulberry32 is the generator the replica-lag scenario is defined with.
type mulberry32 uint32

func (m *mulberry32) next() float64 {
	*m += 0x6D2B79F5
	a := uint32(*m)
	t := (a ^ (a >> 15)) * (1 | a)
	t = (t + ((t ^ (t >> 7)) * (61 | t))) ^ t
	return float64(t^(t>>14)) / 4294967296
}

// replicaLag builds the history of the replica-lag scenario (one register,
// writes applied on replica A at once and on B 20–99 ms later, every op
// carrying its version) and the reads it expects to break read-your-writes
// and monotonic reads, by (time, client).
func replicaLag() (*history.History, map[string]bool, map[string]bool) {
	g := mulberry32(40)
	h := &history.History{Processes: 3, Clients: 3}
	type write struct{ ver, atA, atB int }
	var writes []write
	lastOwn := map[int]int{}
	maxRead := map[int]int{}
	ryw, mr := map[string]bool{}, map[string]bool{}
	for t := 0; t < 400; t += 10 {
		c := 1 + int(g.next()*3)
		op := history.Op{Index: int64(len(h.Ops)), Process: c - 1, Client: fmt.Sprintf("c%d", c),
			Call: int64(t), Return: int64(t + 1), Status: history.OK}
		if g.next() < 0.4 {
			v := len(writes) + 1
			writes = append(writes, write{ver: v, atA: t, atB: t + 20 + int(g.next()*80)})
			op.F, op.Value, op.Version = "write", history.IntValue(int64(v)), history.IntValue(int64(v))
			lastOwn[c] = v
		} else {
			onA := g.next() < 0.5
			got := 0
			for _, w := range writes {
				at := w.atB
				if onA {
					at = w.atA
				}
				if at <= t && w.ver > got {
					got = w.ver
				}
			}
			op.F, op.Value, op.Version = "read", history.IntValue(int64(got)), history.IntValue(int64(got))
			id := fmt.Sprintf("%d c%d", t, c)
			if got < lastOwn[c] {
				ryw[id] = true
			}
			if got < maxRead[c] {
				mr[id] = true
			}
			if got > maxRead[c] {
				maxRead[c] = got
			}
		}
		h.Ops = append(h.Ops, op)
	}
	return h, ryw, mr
}

// TestReplicaLag checks the replica-lag scenario: exactly the 5 reads that
// miss their own write and the 3 that go back in time, each with its witness.
func TestReplicaLag(t *testing.T) {
	h, ryw, mr := replicaLag()
	if len(ryw) != 5 || len(mr) != 3 {
		t.Fatalf("scenario reproduction: %d RYW and %d MR violations, want 5 and 3", len(ryw), len(mr))
	}
	for _, tc := range []struct {
		crit string
		want map[string]bool
	}{{checker.ReadYourWrites, ryw}, {checker.MonotonicReads, mr}} {
		res, err := Check(context.Background(), h, tc.crit, Options{Init: history.IntValue(0)})
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid != checker.False || res.Method != "session-versions" {
			t.Fatalf("%s: got %s by %s", tc.crit, res.Valid, res.Method)
		}
		got := map[string]bool{}
		for _, v := range res.Violations {
			var rd *history.Op
			for _, i := range v.Ops {
				if o := &h.Ops[i]; o.F == "read" && (rd == nil || o.Call > rd.Call) {
					rd = o
				}
			}
			if len(v.Ops) < 2 {
				t.Errorf("%s: witness %v lacks the write or read it missed", tc.crit, v.Ops)
			}
			got[fmt.Sprintf("%d %s", rd.Call, rd.Client)] = true
			t.Logf("%s: %s %v", tc.crit, v.Pattern, v.Ops)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: violating reads %v, want %v", tc.crit, got, tc.want)
		}
	}
}

func op(proc int, f string, key string, v int64, call int64, st history.Type) history.Op {
	o := history.Op{Process: proc, Client: string(rune('A' + proc)), F: f, Value: history.IntValue(v),
		Call: call, Return: call + 1, Status: st}
	if key != "" {
		o.Key = history.StringValue(key)
	}
	if st == history.Info {
		o.Return = history.Infinity
	}
	return o
}

func TestStatusesAndErrors(t *testing.T) {
	ok := history.OK
	tests := []struct {
		name string
		ops  []history.Op
		crit string
		want checker.Verdict
	}{
		// A failed write did not happen: reading the initial value after it is fine.
		{"failed write ignored", []history.Op{op(0, "write", "x", 1, 0, history.Fail), op(0, "read", "x", 0, 2, ok)}, checker.ReadYourWrites, checker.True},
		// An unobserved write of unknown outcome may never have happened.
		{"unobserved info write dropped", []history.Op{op(0, "write", "x", 1, 0, history.Info), op(1, "read", "x", 0, 2, ok)}, checker.MonotonicReads, checker.True},
		// An observed one took effect.
		{"observed info write kept", []history.Op{op(0, "write", "x", 1, 0, history.Info), op(1, "read", "x", 1, 2, ok), op(1, "read", "x", 0, 4, ok)}, checker.MonotonicReads, checker.False},
		{"duplicate values are decided", []history.Op{op(0, "write", "x", 1, 0, ok), op(1, "write", "x", 1, 0, ok), op(1, "read", "x", 1, 2, ok)}, checker.PRAM, checker.True},
		{"register without keys", []history.Op{op(0, "write", "", 1, 0, ok), op(0, "read", "", 0, 2, ok)}, checker.ReadYourWrites, checker.False},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &history.History{Ops: tc.ops, Processes: 2}
			res, err := Check(context.Background(), h, tc.crit, Options{Init: history.IntValue(0)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Valid != tc.want {
				t.Fatalf("got %s (%s), want %s", res.Valid, res.Reason, tc.want)
			}
			if tc.want == checker.Unknown && res.Reason == "" {
				t.Fatal("unknown without a reason")
			}
		})
	}
	h := &history.History{Ops: []history.Op{op(0, "cas", "x", 1, 0, ok)}, Processes: 1}
	if _, err := Check(context.Background(), h, checker.PRAM, Options{}); !errors.Is(err, causal.ErrUnsupportedOp) {
		t.Fatalf("cas: got %v, want ErrUnsupportedOp", err)
	}
	if _, err := Check(context.Background(), h, "bogus", Options{}); err == nil {
		t.Fatal("unknown criterion accepted")
	}
}

func TestMaxViolations(t *testing.T) {
	var ops []history.Op
	for i := 0; i < 30; i++ {
		k := fmt.Sprintf("k%d", i)
		ops = append(ops, op(0, "write", k, 1, int64(4*i), history.OK), op(0, "read", k, 0, int64(4*i+2), history.OK))
	}
	h := &history.History{Ops: ops, Processes: 1}
	res, err := Check(context.Background(), h, checker.ReadYourWrites, Options{Init: history.IntValue(0), MaxViolations: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != checker.False || len(res.Violations) != 4 {
		t.Fatalf("got %s with %d violations, want 4 shown", res.Valid, len(res.Violations))
	}
}

// bigHistory generates a differentiated history of n operations by procs
// processes over keys keys: a random interleaving against one store, with
// a fraction stale of the reads returning the key's previous value.
func bigHistory(n, procs, keys int, stale float64, versions bool) *history.History {
	rng := rand.New(rand.NewSource(1))
	h := &history.History{Processes: procs, Clients: procs}
	cur := make([]int64, keys)
	prev := make([]int64, keys)
	ver := make([]int64, keys)
	prevVer := make([]int64, keys)
	val := int64(0)
	for i := 0; i < n; i++ {
		p, k := rng.Intn(procs), rng.Intn(keys)
		o := history.Op{Index: int64(i), Process: p, Client: fmt.Sprintf("p%d", p), Key: history.IntValue(int64(k)),
			Call: int64(2 * i), Return: int64(2*i + 1), Status: history.OK}
		if rng.Intn(2) == 0 {
			val++
			prev[k], prevVer[k] = cur[k], ver[k]
			cur[k] = val
			ver[k]++
			o.F, o.Value = "write", history.IntValue(val)
			if versions {
				o.Version = history.IntValue(ver[k])
			}
		} else {
			v, vv := cur[k], ver[k]
			if rng.Float64() < stale {
				v, vv = prev[k], prevVer[k]
			}
			o.F, o.Value = "read", history.IntValue(v)
			if versions {
				o.Version = history.IntValue(vv)
			}
		}
		h.Ops = append(h.Ops, o)
	}
	return h
}

func BenchmarkSession(b *testing.B) {
	for _, stale := range []float64{0, 0.01} {
		for _, versions := range []bool{false, true} {
			h := bigHistory(100000, 10, 100, stale, versions)
			for _, c := range Criteria {
				b.Run(fmt.Sprintf("%s/versions=%v/stale=%v", c, versions, stale), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						res, err := Check(context.Background(), h, c, Options{Init: history.IntValue(0)})
						if err != nil || (stale == 0 && res.Valid != checker.True) {
							b.Fatalf("%v %s %s", err, res.Valid, res.Reason)
						}
					}
				})
			}
		}
	}
}
