package check

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/ladder"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
)

func TestDetectModel(t *testing.T) {
	op := func(f string, key history.Value) history.Op {
		return history.Op{F: f, Key: key}
	}
	none := history.Value{}
	tests := []struct {
		name string
		ops  []history.Op
		want string // "" means an error
	}{
		{"reads and writes", []history.Op{op("write", none), op("read", none)}, "register"},
		{"textbook abbreviations", []history.Op{op("w", none), op("r", none)}, "register"},
		{"cas", []history.Op{op("write", none), op("cas", none), op("read", none)}, "cas-register"},
		{"keys", []history.Op{op("write", history.IntValue(1)), op("read", history.IntValue(2))}, "kv"},
		{"put/get/append", []history.Op{op("put", none), op("get", none), op("append", none)}, "kv"},
		{"locks", []history.Op{op("acquire", none), op("release", none)}, "mutex"},
		{"one keyed lock", []history.Op{op("acquire", history.StringValue("lock")), op("release", history.StringValue("lock"))}, "mutex"},
		{"leases", []history.Op{op("acquire", none), op("renew", none), op("release", none)}, "lease"},
		{"locks and storage", []history.Op{op("acquire", history.StringValue("lock")), op("write", history.StringValue("stock"))}, ""},
		{"queue", []history.Op{op("enqueue", none), op("dequeue", none)}, "fifo-queue"},
		{"unknown names", []history.Op{op("enq", none), op("deq", none)}, ""},
		{"no operations", nil, ""},
	}
	for _, tt := range tests {
		got, err := detectModel(&history.History{Ops: tt.ops})
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s: detected %s, want an error", tt.name, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %s", tt.name, got, err, tt.want)
		}
	}
}

func TestExpandAll(t *testing.T) {
	lease, err := suite.Lookup(suite.Builtin(), "lease")
	if err != nil {
		t.Fatal(err)
	}
	got, all := expand(lease, []string{"sequential", "all"})
	if !all || strings.Join(got, " ") != "sequential linearizable" {
		t.Errorf("expand = %v, %v", got, all)
	}
}

func TestParseModelSpec(t *testing.T) {
	tests := []struct {
		in    string
		all   string
		pairs []keyModel
		def   string
		str   string
		err   string
	}{
		{in: "register", all: "register", str: "register"},
		{in: " kv ", all: "kv", str: "kv"},
		{in: "lock=lease,stock=fenced-register", pairs: []keyModel{{"lock", "lease"}, {"stock", "fenced-register"}},
			str: "lock=lease,stock=fenced-register"},
		{in: "*=register, lock = lease,", pairs: []keyModel{{"lock", "lease"}}, def: "register", str: "lock=lease,*=register"},
		{in: "lock=lease,lock=lease", pairs: []keyModel{{"lock", "lease"}}, str: "lock=lease"},
		{in: "lock=lease,register", err: "give one model for every object, or KEY=MODEL pairs"},
		{in: "register,kv", err: "give one model for every object, or KEY=MODEL pairs"},
		{in: "lock=", err: `"lock=" needs a key and a model`},
		{in: "=lease", err: `"=lease" needs a key and a model`},
		{in: "lock=lease,lock=mutex", err: "key lock is given two models, lease and mutex"},
		{in: " , ", err: "names no model"},
	}
	for _, tt := range tests {
		got, err := ParseModels(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseModels(%q) = %+v, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got.all != tt.all || !reflect.DeepEqual(got.pairs, tt.pairs) || got.def != tt.def || got.String() != tt.str {
			t.Errorf("ParseModels(%q) = %+v (%s), %v", tt.in, got, got.String(), err)
		}
	}
}

func TestObjects(t *testing.T) {
	h := stockHistory(t)
	ms := suite.Builtin()
	tests := []struct {
		spec string
		want []string // "key:model" per object; a lone "model" for the whole history
		err  string
	}{
		{spec: "lock=lease,stock=fenced-register", want: []string{"lock:lease", "stock:fenced-register"}},
		{spec: "stock=register,*=mutex", want: []string{"lock:mutex", "stock:register"}},
		// One model that is not keyed, several keys: each key on its own.
		{spec: "register", want: []string{"lock:register", "stock:register"}},
		// kv keeps its own keys.
		{spec: "kv", want: []string{"kv"}},
		{spec: "lock=lease", err: "--model lock=lease names no model for stock"},
		{spec: "lock=nosuch,stock=register", err: `unknown model "nosuch"`},
	}
	for _, tt := range tests {
		spec, err := ParseModels(tt.spec)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := spec.objects(ms, h)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: got %v, want error %q", tt.spec, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		var got []string
		n := 0
		for _, o := range objs {
			if !o.perKey {
				got = append(got, o.model.Info.Name)
				n += len(o.h.Ops)
				continue
			}
			got = append(got, keyName(o.key)+":"+o.model.Info.Name)
			for i := range o.h.Ops {
				whole := &h.Ops[o.pos[i]]
				if o.h.Ops[i].Key != o.key || whole.Label() != o.h.Ops[i].Label() || whole.Call != o.h.Ops[i].Call {
					t.Errorf("%s: object %s holds %s", tt.spec, keyName(o.key), o.h.Ops[i].Label())
				}
			}
			n += len(o.h.Ops)
		}
		if !reflect.DeepEqual(got, tt.want) || n != len(h.Ops) {
			t.Errorf("%s: objects %v with %d ops, want %v with %d", tt.spec, got, n, tt.want, len(h.Ops))
		}
	}
}

// TestLift checks that a per-object result names operations by their
// positions in the whole history.
func TestLift(t *testing.T) {
	h := stockHistory(t)
	spec, _ := ParseModels("lock=lease,stock=fenced-register")
	objs, err := spec.objects(suite.Builtin(), h)
	if err != nil {
		t.Fatal(err)
	}
	stock := objs[1]
	// In the stock object, B's write is operation 2 and A's write is 3.
	r := stock.lift(checker.Result{Witness: []int{0, 1}, Violations: []checker.Violation{{Ops: []int{3, 2}, Prefix: []int{0}}}})
	labels := func(xs []int) []string {
		var out []string
		for _, i := range xs {
			out = append(out, h.Ops[i].Label())
		}
		return out
	}
	if got := labels(r.Violations[0].Ops); !reflect.DeepEqual(got, []string{"A:w(stock, 9)", "B:w(stock, 8)"}) {
		t.Errorf("violation names %v", got)
	}
	if got := labels(r.Witness); !reflect.DeepEqual(got, []string{"A:r(stock, 10)", "B:r(stock, 10)"}) {
		t.Errorf("witness names %v", got)
	}
}

func TestTTL(t *testing.T) {
	ms := func(meta map[string]history.Value) *history.History { return &history.History{Meta: meta} }
	unit := func(u string) map[string]history.Value {
		return map[string]history.Value{"time_unit": history.StringValue(u)}
	}
	tests := []struct {
		flag   string // "" for none
		h      *history.History
		events bool
		want   int64
		err    string
	}{
		{flag: "10000", h: ms(nil), want: 10000},
		{flag: "10s", h: ms(unit("ms")), want: 10000},
		{flag: "1500ms", h: ms(unit("us")), want: 1500000},
		{flag: "2s", h: ms(unit("s")), want: 2},
		{flag: "5us", h: ms(nil), events: true, want: 5000},
		{flag: "10s", h: ms(nil), err: "does not say its time unit: give a plain number"},
		{flag: "1500ms", h: ms(unit("s")), err: "not a whole number of s"},
		{flag: "10s", h: ms(unit("fortnight")), err: "time_unit is fortnight; expected ns, us, ms or s"},
		{h: ms(nil), want: 0},
		{h: ms(map[string]history.Value{"ttl": history.IntValue(5000)}), want: 5000},
		{h: ms(map[string]history.Value{"ttl": history.StringValue("5s"), "time_unit": history.StringValue("ms")}), want: 5000},
		{h: ms(map[string]history.Value{"ttl": history.StringValue("5s")}), err: "the file's ttl 5s is a duration"},
		{h: ms(map[string]history.Value{"ttl": history.IntValue(-3)}), err: "the file's ttl must be positive"},
		// The flag wins over the file.
		{flag: "7", h: ms(map[string]history.Value{"ttl": history.IntValue(5000)}), want: 7},
	}
	for _, tt := range tests {
		var flag *ttlSetting
		if tt.flag != "" {
			f, err := parseTTL(tt.flag)
			if err != nil {
				t.Fatalf("parseTTL(%q): %v", tt.flag, err)
			}
			flag = &f
		}
		got, err := historyTTL(flag, tt.h, tt.events)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ttl %q meta %v: got %d, %v; want error %q", tt.flag, tt.h.Meta, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ttl %q meta %v: got %d, %v; want %d", tt.flag, tt.h.Meta, got, err, tt.want)
		}
	}
	for _, bad := range []string{"0", "-5", "0s", "-1s", "soon", ""} {
		if _, err := parseTTL(bad); err == nil {
			t.Errorf("parseTTL(%q) accepted", bad)
		}
	}
	if d, err := parseTTL("1m30s"); err != nil || d.dur != 90*time.Second {
		t.Errorf("parseTTL(1m30s) = %+v, %v", d, err)
	}
}

// TestCoreBudget checks the time a core may take: what --timeout leaves,
// up to the default.
func TestCoreBudget(t *testing.T) {
	tests := []struct {
		timeout, elapsed, own, want time.Duration
	}{
		{0, time.Second, 0, defaultCoreBudget},
		{5 * time.Second, 2 * time.Second, 0, 3 * time.Second},
		{time.Second, 2 * time.Second, 0, 0},
		{time.Minute, time.Second, 0, defaultCoreBudget},
		{0, time.Second, time.Minute, time.Minute},
		{time.Minute, 10 * time.Second, 2 * time.Minute, 50 * time.Second},
	}
	for _, tt := range tests {
		if got := coreBudget(tt.timeout, tt.elapsed, tt.own); got != tt.want {
			t.Errorf("coreBudget(%s, %s) = %s, want %s", tt.timeout, tt.elapsed, got, tt.want)
		}
	}
}

// stockHistory is the stock example without fencing, as in
// testdata/histories/locks/stock-nofencing.json.
func stockHistory(t *testing.T) *history.History {
	t.Helper()
	lock, stock := history.StringValue("lock"), history.StringValue("stock")
	op := func(c, f string, k history.Value, v, tok history.Value, call int64) history.Op {
		return history.Op{Client: c, F: f, Key: k, Value: v, Token: tok, Call: call, Return: call + 50, Status: history.OK}
	}
	none := history.Value{}
	h, err := history.FromOps([]history.Op{
		op("A", "acquire", lock, none, history.IntValue(33), 0),
		op("A", "read", stock, history.IntValue(10), none, 1000),
		op("B", "acquire", lock, none, history.IntValue(34), 11000),
		op("B", "read", stock, history.IntValue(10), none, 12000),
		op("B", "write", stock, history.IntValue(8), history.IntValue(34), 13000),
		op("B", "release", lock, none, none, 13100),
		op("A", "write", stock, history.IntValue(9), history.IntValue(33), 15000),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestDetectTransactionalModel tells the transactional models apart by
// their micro-operations: Knossos's read and write are multi-register,
// Elle's r and w rw-register, and any append list-append.
func TestDetectTransactionalModel(t *testing.T) {
	mop := func(f, k string, v int64) history.Value {
		return history.ListValue(history.StringValue(f), history.StringValue(k), history.IntValue(v))
	}
	tx := func(mops ...history.Value) history.Op { return history.Op{F: "txn", Value: history.ListValue(mops...)} }
	for _, c := range []struct {
		name string
		ops  []history.Op
		want string
	}{
		{"knossos", []history.Op{tx(mop("read", "x", 1), mop("write", "y", 2)), tx(mop("write", "x", 1))}, "multi-register"},
		{"elle registers", []history.Op{tx(mop("r", "x", 1), mop("w", "y", 2))}, "rw-register"},
		{"mixed names", []history.Op{tx(mop("read", "x", 1)), tx(mop("w", "y", 2))}, "rw-register"},
		{"appends", []history.Op{tx(mop("read", "x", 1)), tx(mop("append", "y", 2))}, "list-append"},
	} {
		if got, err := detectModel(&history.History{Ops: c.ops}); err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %s", c.name, got, err, c.want)
		}
	}
}

// TestLadderMemoryOnly checks that a read/write-register history gets
// every edge of the ladder, and a history with another operation (kv's
// append, a mutex's acquire) none that holds for registers only: PRAM
// then implies nothing of monotonic-writes, and causal nothing of
// writes-follow-reads, while causal convergence still implies both.
func TestLadderMemoryOnly(t *testing.T) {
	models := map[string]suite.Model{}
	for _, m := range suite.Builtin() {
		models[m.Info.Name] = m
	}
	x := history.StringValue("x")
	tests := []struct {
		model, f string
		memory   bool
	}{
		{"kv", "get", true},
		{"kv", "cas", true},
		{"kv", "append", false},
		{"mutex", "acquire", false},
	}
	pram := map[string]checker.Result{checker.PRAM: {Valid: checker.True}, checker.Causal: {Valid: checker.True}}
	ccv := map[string]checker.Result{checker.CausalConvergence: {Valid: checker.True}}
	for _, tt := range tests {
		h := &history.History{Ops: []history.Op{
			{F: "put", Key: x, Status: history.OK},
			{F: tt.f, Key: x, Status: history.OK},
			{F: "append", Key: x, Status: history.Fail}, // failed: not an operation of the history
		}}
		if tt.model == "mutex" {
			h.Ops = h.Ops[1:2]
		}
		r := &run{h: h, objs: []object{{model: models[tt.model], h: h}}}
		if got := r.readWriteOnly(); got != tt.memory {
			t.Errorf("%s %s: read/write only %v, want %v", tt.model, tt.f, got, tt.memory)
		}
		want := checker.Unknown
		if tt.memory {
			want = checker.True
		}
		rows := verdictsOf(r.buildLadder(pram))
		if rows[checker.MonotonicWrites] != want || rows[checker.WritesFollowReads] != want {
			t.Errorf("%s %s: from PRAM and causal, monotonic-writes %v and writes-follow-reads %v, want %v",
				tt.model, tt.f, rows[checker.MonotonicWrites], rows[checker.WritesFollowReads], want)
		}
		rows = verdictsOf(r.buildLadder(ccv))
		if rows[checker.MonotonicWrites] != checker.True || rows[checker.WritesFollowReads] != checker.True {
			t.Errorf("%s %s: causal convergence does not imply monotonic-writes and writes-follow-reads", tt.model, tt.f)
		}
	}
}

func verdictsOf(l ladder.Ladder) map[string]checker.Verdict {
	out := map[string]checker.Verdict{}
	for _, row := range l.Table {
		out[row.Criterion] = row.Valid
	}
	return out
}

func TestSmallKey(t *testing.T) {
	big, _ := history.BigIntValue("123456789012345678901")
	for _, c := range []struct {
		k  history.Value
		n  int
		ok bool
	}{
		{history.IntValue(0), 0, true},
		{history.IntValue(7), 7, true},
		{history.IntValue(999), 999, true},
		{history.IntValue(maxByNum), maxByNum, true},
		{history.IntValue(maxByNum + 1), 0, false},
		{history.IntValue(100_000), 0, false},
		{history.IntValue(-1), 0, false},
		{big, 0, false},
		{history.StringValue("7"), 0, false},
		{history.FloatValue(7.5), 0, false},
		{history.Value{}, 0, false},
		{history.NilValue, 0, false},
	} {
		n, ok := smallKey(c.k)
		if ok != c.ok || ok && n != c.n {
			t.Errorf("smallKey(%#v) = %d, %v; want %d, %v", c.k, n, ok, c.n, c.ok)
		}
	}
}
