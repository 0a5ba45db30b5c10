package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
)

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
		got, err := parseModelSpec(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseModelSpec(%q) = %+v, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got.all != tt.all || !reflect.DeepEqual(got.pairs, tt.pairs) || got.def != tt.def || got.String() != tt.str {
			t.Errorf("parseModelSpec(%q) = %+v (%s), %v", tt.in, got, got.String(), err)
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

func TestObjects(t *testing.T) {
	h := stockHistory(t)
	ms := models(nil)
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
		spec, err := parseModelSpec(tt.spec)
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
	spec, _ := parseModelSpec("lock=lease,stock=fenced-register")
	objs, err := spec.objects(models(nil), h)
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

func TestJepsenEvents(t *testing.T) {
	tests := []struct {
		name, forced, head string
		want               bool
	}{
		{"run.edn", "", "", true},
		{"run.jsonl", "", "", true},
		{"jepsen.log", "", "", true},
		{"h.hist", "", "", false},
		{"x", "ops", `{"type": "invoke"}`, false},
		{"x", "jsonl", "", true},
		{"run.json", "", `[{"process": 0, "type": "invoke", "f": "read"}]`, true},
		{"<stdin>", "", `{:process 0, :type :invoke, :f :read}`, true},
		{"ops.json", "", `[{"process": "A", "f": "acquire", "call": 0, "return": 5}]`, false},
		{"<stdin>", "", `A: acquire [0, 1]`, false},
	}
	for _, tt := range tests {
		if got := jepsenEvents(tt.name, tt.forced, []byte(tt.head)); got != tt.want {
			t.Errorf("jepsenEvents(%q, %q, %q) = %v", tt.name, tt.forced, tt.head, got)
		}
	}
}

// TestLockFilesReport runs the lock chapter's histories through Main and
// decodes the JSON report: one result per object, with its key and model,
// and the overall verdicts the chapter states.
func TestLockFilesReport(t *testing.T) {
	dir := filepath.Join("..", "testdata", "histories", "locks")
	tests := []struct {
		args    []string
		code    ExitCode
		objects map[string]checker.Verdict // key → verdict; nil for whole-history results
		valid   checker.Verdict
	}{
		{[]string{"--model", "lock=lease,stock=fenced-register", "--ttl", "10s", "stock-nofencing.json"}, ExitInvalid,
			map[string]checker.Verdict{"lock": checker.True, "stock": checker.False}, checker.False},
		{[]string{"--model", "lock=lease,stock=fenced-register", "--ttl", "10000", "stock-fencing.json"}, ExitOK,
			map[string]checker.Verdict{"lock": checker.True, "stock": checker.True}, checker.True},
		{[]string{"--model", "lock=mutex,stock=register", "stock-fencing.json"}, ExitInvalid,
			map[string]checker.Verdict{"lock": checker.False, "stock": checker.True}, checker.False},
		{[]string{"-m", "lease", "--ttl", "5s", "redis-unsafe.json"}, ExitInvalid, nil, checker.False},
		{[]string{"-m", "lease", "redis-safe.json"}, ExitOK, nil, checker.True},
		{[]string{"-m", "lock", "redis-safe.json"}, ExitInvalid, nil, checker.False},
		{[]string{"-m", "lock", "lockqueue.json"}, ExitOK, nil, checker.True},
	}
	for _, tt := range tests {
		args := append([]string{"check", "-o", "json"}, tt.args...)
		args[len(args)-1] = filepath.Join(dir, args[len(args)-1])
		var out, errb bytes.Buffer
		code := ExitCode(Main(args, nil, &out, &errb))
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d; stderr %s", tt.args, code, tt.code, errb.String())
			continue
		}
		dec := json.NewDecoder(&out)
		dec.DisallowUnknownFields()
		var rep report.Report
		if err := dec.Decode(&rep); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if rep.Valid != tt.valid || len(rep.Histories) != 1 {
			t.Errorf("%v: valid %v, %d histories", tt.args, rep.Valid, len(rep.Histories))
			continue
		}
		res := rep.Histories[0].Results
		if tt.objects == nil {
			if len(res) != 1 || res[0].Key != nil || res[0].Model != "" || res[0].Valid != tt.valid {
				t.Errorf("%v: results %+v", tt.args, res)
			}
			continue
		}
		got := map[string]checker.Verdict{}
		for _, r := range res {
			k, _ := r.Key.(string)
			got[k] = r.Valid
			if r.Model == "" {
				t.Errorf("%v: result for %s has no model", tt.args, k)
			}
			for _, v := range r.Violations {
				for _, op := range v.Ops {
					if op.Key != r.Key {
						t.Errorf("%v: the violation on %s names %s", tt.args, k, op.Label)
					}
				}
			}
		}
		if !reflect.DeepEqual(got, tt.objects) {
			t.Errorf("%v: per-object verdicts %v, want %v", tt.args, got, tt.objects)
		}
	}
}
