package model

import (
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// lop builds a timed operation of a client; status defaults to OK, and an
// Info operation gets an infinite return.
func lop(client, f string, call, ret int64, status ...history.Type) *history.Op {
	o := &history.Op{Client: client, F: f, Call: call, Return: ret, Status: history.OK}
	if len(status) > 0 {
		o.Status = status[0]
	}
	if o.Status == history.Info {
		o.Return = history.Infinity
	}
	return o
}

// with sets fields of an operation built by lop.
func with(o *history.Op, set func(*history.Op)) *history.Op { set(o); return o }

func tok(n int64) func(*history.Op)         { return func(o *history.Op) { o.Token = history.IntValue(n) } }
func val(v history.Value) func(*history.Op) { return func(o *history.Op) { o.Value = v } }
func ttl(n int64) func(*history.Op) {
	return func(o *history.Op) { o.Extra = []history.Field{{Name: "ttl", Value: history.IntValue(n)}} }
}

// runTimed is runSteps for models that read the operations' intervals:
// ops are compiled as checker.Compile does, with Unknown, Call, Return and
// Proc set.
func runTimed[S comparable](t *testing.T, mk func(Options) Model[S], tests []stepCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mk(tt.opts)
			tab := NewTable()
			ops := make([]Op, len(tt.ops))
			for i, o := range tt.ops {
				ops[i] = compileOp(t, m, o, tab)
				ops[i].Call, ops[i].Return, ops[i].Proc = o.Call, o.Return, int32(o.Process)
				ops[i].Start, ops[i].End = o.Call, o.Return
			}
			s := m.Init(tab)
			for i := range ops {
				next, ok := m.Step(s, &ops[i])
				if i < len(ops)-1 {
					if !ok {
						t.Fatalf("step %d (%s) illegal in %s", i, tt.ops[i].Label(), m.Describe(s, tab))
					}
					s = next
					continue
				}
				if ok != tt.legal {
					t.Fatalf("last step %s in %s: legal = %v, want %v", tt.ops[i].Label(), m.Describe(s, tab), ok, tt.legal)
				}
				if ok {
					if got := m.Describe(next, tab); got != tt.state {
						t.Errorf("state %q, want %q", got, tt.state)
					}
					return
				}
				if got := m.(Explainer[S]).Explain(s, &ops[i], tab); got != tt.why {
					t.Errorf("explanation %q, want %q", got, tt.why)
				}
			}
		})
	}
}

type ops = []*history.Op

func TestLockStep(t *testing.T) {
	runTimed(t, NewLock, []stepCase{
		{name: "starts free", ops: ops{lop("A", "acquire", 0, 1)}, legal: true, state: "held by A"},
		{name: "token field", ops: ops{with(lop("A", "lock", 0, 1), tok(33))}, legal: true, state: "held by A (token 33)"},
		{name: "token as value", ops: ops{with(lop("A", "acquire", 0, 1), val(v2))}, legal: true, state: "held by A (token 2)"},
		{name: "token field wins over value", ops: ops{with(with(lop("A", "acquire", 0, 1), val(v2)), tok(7))}, legal: true, state: "held by A (token 7)"},
		{name: "string value is no token", ops: ops{with(lop("A", "acquire", 0, 1), val(history.StringValue("a7f3")))}, legal: true, state: "held by A"},
		{name: "holder releases", ops: ops{with(lop("A", "acquire", 0, 1), tok(3)), lop("A", "unlock", 2, 3)}, legal: true, state: "free (last token 3)"},
		{name: "two holders", ops: ops{lop("A", "acquire", 0, 1), lop("B", "acquire", 2, 3)},
			why: "B acquired the lock while A still holds it: two holders at once"},
		{name: "not reentrant", ops: ops{lop("A", "acquire", 0, 1), lop("A", "acquire", 2, 3)},
			why: "A acquired the lock but already holds it: two holders at once"},
		{name: "release by non-holder", ops: ops{lop("A", "acquire", 0, 1), lop("B", "release", 2, 3)},
			why: "a release by B succeeded but A holds the lock: a release by a client that is not the holder"},
		{name: "release when free", ops: ops{lop("A", "release", 0, 1)},
			why: "a release by A succeeded but the lock is free: a release by a client that is not the holder"},
		{name: "tokens increase across holders", ops: ops{with(lop("A", "acquire", 0, 1), tok(33)), lop("A", "release", 2, 3),
			with(lop("B", "acquire", 4, 5), tok(34))}, legal: true, state: "held by B (token 34)"},
		{name: "token went backwards", ops: ops{with(lop("A", "acquire", 0, 1), tok(34)), lop("A", "release", 2, 3),
			with(lop("B", "acquire", 4, 5), tok(33))},
			why: "B acquired with token 33, but token 34 was already handed out: the fencing token went backwards"},
		{name: "token repeated", ops: ops{with(lop("A", "acquire", 0, 1), tok(34)), lop("A", "release", 2, 3),
			with(lop("B", "acquire", 4, 5), tok(34))},
			why: "B acquired with token 34, which was already handed out: the fencing token did not increase"},
		{name: "unknown token keeps the highest known", ops: ops{with(lop("A", "acquire", 0, 1), tok(5)), lop("A", "release", 2, 3),
			lop("B", "acquire", 4, 5, history.Info), lop("B", "release", 6, 7), with(lop("C", "acquire", 8, 9), tok(6))},
			legal: true, state: "held by C (token 6)"},
		{name: "identity is the client, not the process", ops: ops{lop("A", "acquire", 0, 1, history.Info),
			with(lop("A", "release", 2, 3), func(o *history.Op) { o.Process = 1 })}, legal: true, state: "free"},
	})
}

func TestLeaseStep(t *testing.T) {
	ttl10 := Options{TTL: 10}
	runTimed(t, NewLease, []stepCase{
		{name: "grant", opts: ttl10, ops: ops{with(lop("A", "acquire", 3, 5), tok(33))}, legal: true,
			state: "held by A, lease until at least 13, token 33"},
		{name: "acquire once the lease may have expired", opts: ttl10, ops: ops{lop("A", "acquire", 3, 5), lop("B", "acquire", 8, 13)},
			legal: true, state: "held by B, lease until at least 18"},
		{name: "acquire while the lease is in force", opts: ttl10, ops: ops{lop("A", "acquire", 3, 5), lop("B", "acquire", 8, 12)},
			why: "B acquired the lock while A's lease was still in force (it lasts until at least 13, and the acquire returned at 12): two holders at once"},
		{name: "unknown acquire may happen any time", opts: ttl10, ops: ops{lop("A", "acquire", 3, 5), lop("B", "acquire", 4, 0, history.Info)},
			legal: true, state: "held by B, lease until at least 14"},
		{name: "own lease in force", opts: ttl10, ops: ops{lop("A", "acquire", 0, 1), lop("A", "acquire", 2, 3)},
			why: "A acquired the lock but already holds it (its lease lasts until at least 10, after the acquire returned at 3): two holders at once"},
		{name: "own lease expired", opts: ttl10, ops: ops{lop("A", "acquire", 0, 1), lop("A", "acquire", 10, 11)},
			legal: true, state: "held by A, lease until at least 20"},
		{name: "ttl field", ops: ops{with(lop("A", "acquire", 0, 1), ttl(5)), with(lop("B", "acquire", 4, 5), ttl(7))},
			legal: true, state: "held by B, lease until at least 11"},
		{name: "ttl field overrides", opts: ttl10, ops: ops{with(lop("A", "acquire", 0, 1), ttl(5)), lop("B", "acquire", 4, 4)},
			why: "B acquired the lock while A's lease was still in force (it lasts until at least 5, and the acquire returned at 4): two holders at once"},
		{name: "renew extends", opts: ttl10, ops: ops{lop("A", "acquire", 0, 1), lop("A", "renew", 8, 9), lop("B", "acquire", 12, 17)},
			why: "B acquired the lock while A's lease was still in force (it lasts until at least 18, and the acquire returned at 17): two holders at once"},
		{name: "renew with a shorter ttl", opts: ttl10, ops: ops{lop("A", "acquire", 0, 1), with(lop("A", "keepalive", 2, 3), ttl(2)), lop("B", "acquire", 4, 4)},
			legal: true, state: "held by B, lease until at least 14"},
		{name: "late renew by the holder", opts: ttl10, ops: ops{lop("A", "acquire", 0, 1), lop("A", "refresh", 30, 31)},
			legal: true, state: "held by A, lease until at least 40"},
		{name: "renew after takeover", opts: ttl10, ops: ops{lop("A", "acquire", 0, 1), lop("B", "acquire", 10, 11), lop("A", "renew", 12, 13)},
			why: "a renew by A succeeded but B holds the lock: a renew by a client that is not the holder"},
		{name: "renew when free", opts: ttl10, ops: ops{lop("A", "renew", 0, 1)},
			why: "a renew by A succeeded but the lock is free: a renew by a client that is not the holder"},
		{name: "release after takeover", opts: ttl10, ops: ops{lop("A", "acquire", 0, 1), lop("B", "acquire", 10, 11), lop("A", "release", 12, 13)},
			why: "a release by A succeeded but B holds the lock: a release by a client that is not the holder"},
		{name: "holder releases", opts: ttl10, ops: ops{with(lop("A", "acquire", 0, 1), tok(3)), lop("A", "release", 2, 3)},
			legal: true, state: "free (last token 3)"},
		{name: "free after release", opts: ttl10, ops: ops{lop("A", "acquire", 0, 1), lop("A", "release", 2, 3), lop("B", "acquire", 4, 5)},
			legal: true, state: "held by B, lease until at least 14"},
		{name: "token went backwards after expiry", opts: ttl10, ops: ops{with(lop("A", "acquire", 0, 1), tok(34)),
			with(lop("B", "acquire", 10, 11), tok(33))},
			why: "B acquired with token 33, but token 34 was already handed out: the fencing token went backwards"},
		{name: "far future does not overflow", opts: Options{TTL: history.Infinity}, ops: ops{lop("A", "acquire", 5, 6), lop("B", "acquire", 7, 0, history.Info)},
			legal: true, state: "held by B, lease until at least 9223372036854775807"},
	})
}

func TestFencedStep(t *testing.T) {
	w := func(client string, v, token int64, call int64) *history.Op {
		o := with(lop(client, "write", call, call+1), val(history.IntValue(v)))
		if token != NoToken {
			o.Token = history.IntValue(token)
		}
		return o
	}
	r := func(v history.Value, call int64, st ...history.Type) *history.Op {
		return with(lop("C", "read", call, call+1, st...), val(v))
	}
	ten := history.IntValue(10)
	runTimed(t, NewFencedRegister, []stepCase{
		{name: "initial nil", ops: ops{r(history.NilValue, 0)}, legal: true, state: "nil"},
		{name: "initial given", opts: Options{Init: ten}, ops: ops{r(ten, 0)}, legal: true, state: "10"},
		{name: "fenced write", ops: ops{w("B", 8, 34, 0), r(history.IntValue(8), 2)}, legal: true, state: "8 (highest token 34)"},
		{name: "equal token accepted", ops: ops{w("B", 8, 34, 0), w("B", 7, 34, 2)}, legal: true, state: "7 (highest token 34)"},
		{name: "higher token accepted", ops: ops{w("B", 8, 34, 0), w("A", 7, 35, 2)}, legal: true, state: "7 (highest token 35)"},
		{name: "stale write acknowledged", ops: ops{w("B", 8, 34, 0), w("A", 9, 33, 2)},
			why: "the write of 9 with token 33 was acknowledged, but the storage had already accepted token 34: a stale write got through"},
		{name: "plain write keeps the token", ops: ops{w("B", 8, 34, 0), w("A", 9, NoToken, 2), w("A", 5, 33, 4)},
			why: "the write of 5 with token 33 was acknowledged, but the storage had already accepted token 34: a stale write got through"},
		{name: "plain write", ops: ops{w("B", 8, 34, 0), w("A", 9, NoToken, 2)}, legal: true, state: "9 (highest token 34)"},
		{name: "stale read", opts: Options{Init: ten}, ops: ops{w("B", 8, 34, 0), r(ten, 2)}, why: "read 10 but the register holds 8"},
		{name: "unknown read", ops: ops{w("B", 8, 34, 0), r(ten, 2, history.Info)}, legal: true, state: "8 (highest token 34)"},
		{name: "nil read is any", opts: Options{Init: ten, NilRead: NilIsAny}, ops: ops{r(history.NilValue, 0)}, legal: true, state: "10"},
		{name: "unknown stale write is not lenient", ops: ops{w("B", 8, 34, 0), with(w("A", 9, 33, 2), func(o *history.Op) { o.Status = history.Info })},
			why: "the write of 9 with token 33 was acknowledged, but the storage had already accepted token 34: a stale write got through"},
	})
}

func TestLockCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		m    interface {
			Compile(*history.Op, *Table) (Op, error)
		}
		op   *history.Op
		want string
	}{
		{"lock unknown op", NewLock(Options{}), lop("A", "renew", 0, 1), `model lock has no operation "renew" (it knows [acquire release])`},
		{"lock bad token", NewLock(Options{}), with(lop("A", "acquire", 0, 1), func(o *history.Op) { o.Token = history.StringValue("x") }),
			"token must be an integer, got x"},
		{"lock no client", NewLock(Options{}), lop("", "acquire", 0, 1), "lock operations need a process name to tell holders apart"},
		{"lease unknown op", NewLease(Options{TTL: 1}), lop("A", "read", 0, 1), `model lease has no operation "read" (it knows [acquire renew release])`},
		{"lease without ttl", NewLease(Options{}), lop("A", "acquire", 0, 1),
			"acquire needs a lease length: set the model's TTL or give the operation a ttl field"},
		{"renew without ttl", NewLease(Options{}), lop("A", "renew", 0, 1),
			"renew needs a lease length: set the model's TTL or give the operation a ttl field"},
		{"lease bad ttl", NewLease(Options{TTL: 5}), with(lop("A", "acquire", 0, 1), ttl(0)),
			"ttl must be a positive integer in the history's time unit, got 0"},
		{"lease bad token", NewLease(Options{TTL: 5}), with(lop("A", "acquire", 0, 1), func(o *history.Op) { o.Token = history.FloatValue(1.5) }),
			"token must be an integer, got 1.5"},
		{"fenced unknown op", NewFencedRegister(Options{}), lop("A", "cas", 0, 1), `model fenced-register has no operation "cas" (it knows [read write])`},
		{"fenced write none", NewFencedRegister(Options{}), lop("A", "write", 0, 1), "write needs a value"},
		{"fenced bad token", NewFencedRegister(Options{}), with(with(lop("A", "write", 0, 1), val(v1)), func(o *history.Op) { o.Token = history.StringValue("t") }),
			"token must be an integer, got t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.m.Compile(tt.op, NewTable())
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	// A release needs no lease length, and a nil token is no token.
	if _, err := NewLease(Options{}).Compile(lop("A", "release", 0, 1), NewTable()); err != nil {
		t.Errorf("release without ttl: %v", err)
	}
	if o, err := NewLock(Options{}).Compile(with(lop("A", "acquire", 0, 1), func(o *history.Op) { o.Token = history.NilValue }), NewTable()); err != nil || o.B != NoToken {
		t.Errorf("nil token: %+v, %v", o, err)
	}
}

func TestLockInfo(t *testing.T) {
	for _, tt := range []struct {
		info  Info
		name  string
		ops   int
		words []string
	}{
		{NewLock(Options{}).Info(), "lock", 2, []string{"holder", "token"}},
		{NewLease(Options{TTL: 3}).Info(), "lease", 3, []string{"TTL", "call + TTL", "holder"}},
		{NewFencedRegister(Options{}).Info(), "fenced-register", 2, []string{"highest fencing token"}},
	} {
		i := tt.info
		if i.Name != tt.name || len(i.Ops) != tt.ops || i.Keyed || i.Doc == "" {
			t.Errorf("info %+v", i)
		}
		for _, w := range tt.words {
			if !strings.Contains(i.Doc, w) {
				t.Errorf("%s: doc %q does not mention %q", tt.name, i.Doc, w)
			}
		}
		for _, o := range i.Ops {
			if len(o.Names) == 0 || o.Value == "" || o.Doc == "" {
				t.Errorf("%s: op %+v undocumented", tt.name, o)
			}
		}
	}
	if _, ok := NewFencedRegister(Options{}).(Pruner); !ok {
		t.Error("fenced-register has no Pruner")
	}
}

func TestFencedKeep(t *testing.T) {
	m := NewFencedRegister(Options{})
	tab := NewTable()
	hs := ops{
		with(with(lop("A", "write", 0, 0, history.Info), val(v1)), tok(3)), // read below: kept
		with(with(lop("B", "write", 0, 0, history.Info), val(v2)), tok(4)), // never read: dropped
		with(lop("C", "read", 0, 0, history.Info), val(v2)),                // unknown read: dropped
		with(lop("D", "read", 0, 1), val(v1)),
		with(with(lop("E", "write", 0, 1), val(v0)), tok(1)),
	}
	var compiled []Op
	for _, o := range hs {
		compiled = append(compiled, compileOp(t, m, o, tab))
	}
	got := m.(Pruner).Keep(compiled)
	want := []bool{true, false, false, true, true}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("keep %s = %v, want %v", hs[i].Label(), got[i], want[i])
		}
	}
}
