package cli

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
	"github.com/histcheck/histcheck/sim"
)

// run calls Main and returns its exit code and output.
func run(t *testing.T, stdin []byte, args ...string) (ExitCode, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := ExitCode(Main(args, bytes.NewReader(stdin), &out, &errb))
	return code, out.String(), errb.String()
}

// TestSimTables checks that "histcheck sim NAME" prints each scenario's
// table exactly as the scenario library renders it with its defaults.
func TestSimTables(t *testing.T) {
	for _, s := range sim.ScenariosWith(emittedVerdict(suite.Builtin())) {
		if s.Name == "random" {
			continue // its default is a thousand operations; see TestSimFlags
		}
		want, err := s.Run(nil)
		if err != nil {
			t.Fatal(err)
		}
		code, got, errs := run(t, nil, "sim", s.Name)
		if code != ExitOK || got != want.Table {
			t.Errorf("sim %s: exit %d, stderr %q\n got %q\nwant %q", s.Name, code, errs, got, want.Table)
		}
	}
}

// TestSimFlags checks that flags reach the scenario, the alias included.
func TestSimFlags(t *testing.T) {
	s, _ := sim.Lookup("random")
	want, err := s.Run(sim.Params{"ops": "40", "unique": "false", "seed": "3", "crash-rate": "0.2"})
	if err != nil {
		t.Fatal(err)
	}
	code, got, errs := run(t, nil, "sim", "random", "--ops", "40", "--unique-values", "false", "--seed", "3", "--crash-rate", "0.2")
	if code != ExitOK || got != want.Table {
		t.Errorf("exit %d, stderr %q\n got %q\nwant %q", code, errs, got, want.Table)
	}
	code, _, errs = run(t, nil, "sim", "random", "--unique-values", "false", "--unique", "true")
	if code != ExitError || !strings.Contains(errs, "--unique-values and --unique are the same setting") {
		t.Errorf("both names: exit %d, stderr %q", code, errs)
	}
}

// TestSimHistoryRoundTrip emits each scenario's history in every format
// and reads it back: the same operations, and in JSON and EDN the settings
// to check it with.
func TestSimHistoryRoundTrip(t *testing.T) {
	for _, s := range sim.ScenariosWith(emittedVerdict(suite.Builtin())) {
		params := sim.Params{}
		if s.Name == "random" {
			params = sim.Params{"ops": "60", "crash-rate": "0.1"}
		}
		out, err := s.Run(params)
		if err != nil {
			t.Fatal(err)
		}
		if out.History == nil {
			continue
		}
		for _, to := range []string{"json", "jsonl", "edn"} {
			args := []string{"sim", s.Name, "--emit", "history", "--to", to}
			for k, v := range params {
				args = append(args, "--"+k, v)
			}
			code, text, errs := run(t, nil, args...)
			if code != ExitOK {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			// JSON Lines carries no settings, the order among them.
			back, err := format.ReadWith("emitted."+to, strings.NewReader(text), format.Options{Format: to, Order: "times"})
			if err != nil {
				t.Fatalf("%v: reading back: %v", args, err)
			}
			sameOps(t, s.Name+" "+to, out.History, back)
			if to == "jsonl" {
				if !strings.Contains(errs, "JSON Lines does not carry the history's settings") {
					t.Errorf("%s jsonl: no note about the settings: %q", s.Name, errs)
				}
				continue
			}
			wantMeta := map[string]history.Value{}
			for k, v := range out.History.Meta {
				wantMeta[k] = v
			}
			if out.Model != "" {
				wantMeta["model"] = history.StringValue(out.Model)
			}
			if !out.Options.Init.IsNone() {
				wantMeta["init"] = out.Options.Init
			}
			if out.Options.TTL > 0 {
				wantMeta["ttl"] = history.IntValue(out.Options.TTL)
			}
			wantMeta[format.OrderKey] = history.StringValue("times")
			for k, v := range wantMeta {
				if back.Meta[k] != v {
					t.Errorf("%s %s: meta %s = %v, want %v", s.Name, to, k, back.Meta[k], v)
				}
			}
		}
	}
}

func sameOps(t *testing.T, what string, want, got *history.History) {
	t.Helper()
	if len(want.Ops) != len(got.Ops) {
		t.Fatalf("%s: %d ops, want %d", what, len(got.Ops), len(want.Ops))
	}
	for i := range want.Ops {
		a, b := &want.Ops[i], &got.Ops[i]
		if a.Client != b.Client || a.F != b.F || a.Value != b.Value || a.Key != b.Key || a.Token != b.Token ||
			a.Version != b.Version || a.Call != b.Call || a.Return != b.Return || a.Status != b.Status {
			t.Fatalf("%s: op %d is %+v, want %+v", what, i, *b, *a)
		}
	}
}

// TestSimVerdicts pipes each scenario's history into "histcheck check"
// and asserts the verdicts the chapters state for each model.
func TestSimVerdicts(t *testing.T) {
	type check struct {
		args []string
		want ExitCode
		line string // a line the output must hold
	}
	tests := []struct {
		sim    []string
		checks []check
	}{
		{[]string{"partition", "--split", "3|2", "--mode", "cp"}, []check{{nil, ExitOK, "-\tlinearizable\ttrue"}}},
		{[]string{"partition", "--split", "3|2", "--mode", "ap"}, []check{{nil, ExitInvalid, "-\tlinearizable\tfalse"}}},
		{[]string{"partition", "--split", "4|1", "--mode", "cp"}, []check{{nil, ExitOK, "-\tlinearizable\ttrue"}}},
		{[]string{"partition", "--split", "4|1", "--mode", "ap"}, []check{{nil, ExitInvalid, "-\tlinearizable\tfalse"}}},
		{[]string{"lag"}, []check{
			{[]string{"-c", "linearizable"}, ExitInvalid, "-\tlinearizable\tfalse"},
			{[]string{"-c", "sequential"}, ExitInvalid, "-\tsequential\tfalse"},
		}},
		{[]string{"lockqueue"}, []check{
			{nil, ExitOK, "-\tlinearizable\ttrue"},
			{[]string{"-m", "lock"}, ExitOK, "    left out (outcome unknown, need not have taken effect): C4:acquire(lock, 2)"},
		}},
		{[]string{"fencing", "--fencing", "off"}, []check{
			{[]string{"--init", "10", "-m", "lock=lease,stock=register", "--ttl", "10s"}, ExitOK, "    key stock (register): true"},
			{[]string{"--init", "10", "-m", "lock=lease,stock=fenced-register", "--ttl", "10s"}, ExitInvalid, "    key stock (fenced-register): false"},
			{[]string{"--init", "10", "-m", "lock=mutex,stock=register"}, ExitInvalid, "    key lock (mutex): false"},
			{[]string{"--init", "10", "-m", "lock=lease,stock=register", "--ttl", "10000"}, ExitOK, "    key lock (lease): true"},
		}},
		{[]string{"fencing", "--fencing", "on"}, []check{
			{[]string{"--init", "10", "-m", "lock=lease,stock=register", "--ttl", "10s"}, ExitOK, "    key stock (register): true"},
			{[]string{"--init", "10", "-m", "lock=lease,stock=fenced-register", "--ttl", "10s"}, ExitOK, "    key stock (fenced-register): true"},
			{[]string{"--init", "10", "-m", "lock=mutex,stock=register"}, ExitInvalid, "    key lock (mutex): false"},
		}},
		{[]string{"redis-lock", "--release", "unsafe"}, []check{
			{[]string{"-m", "lease"}, ExitInvalid, "-\tlinearizable\tfalse"},
			{[]string{"-m", "lock"}, ExitInvalid, "-\tlinearizable\tfalse"},
		}},
		{[]string{"redis-lock", "--release", "safe"}, []check{
			{[]string{"-m", "lease"}, ExitOK, "-\tlinearizable\ttrue"},
			{[]string{"-m", "lease", "--ttl", "5s"}, ExitOK, "-\tlinearizable\ttrue"},
			{[]string{"-m", "lock"}, ExitInvalid, "-\tlinearizable\tfalse"},
		}},
		{[]string{"lease-ttl"}, []check{
			{[]string{"-m", "lock=mutex,storage=register"}, ExitInvalid, "    key lock (mutex): false"},
			{[]string{"-m", "lock=lease,storage=register"}, ExitOK, "    key lock (lease): true"},
			{[]string{"-m", "lock=lease,storage=fenced-register"}, ExitInvalid, "    key storage (fenced-register): false"},
		}},
		{[]string{"lease-ttl", "--fenced", "true"}, []check{
			{[]string{"-m", "lock=lease,storage=fenced-register"}, ExitOK, "    key storage (fenced-register): true"},
		}},
		{[]string{"redlock", "--token", "none"}, []check{
			{[]string{"-m", "lock=mutex,storage=fenced-register"}, ExitInvalid, "    key storage (fenced-register): true"},
		}},
		{[]string{"redlock", "--token", "monotonic"}, []check{
			{[]string{"-m", "lock=mutex,storage=fenced-register"}, ExitInvalid, "    key storage (fenced-register): false"},
		}},
	}
	for _, tt := range tests {
		code, hist, errs := run(t, nil, append(append([]string{"sim"}, tt.sim...), "--emit", "history")...)
		if code != ExitOK {
			t.Fatalf("sim %v: exit %d: %s", tt.sim, code, errs)
		}
		for _, c := range tt.checks {
			args := append(append([]string{"check"}, c.args...), "-")
			code, out, errs := run(t, []byte(hist), args...)
			if code != c.want || !strings.Contains(out, c.line+"\n") {
				t.Errorf("sim %v | check %v: exit %d (want %d), stderr %q\n%s", tt.sim, c.args, code, c.want, errs, out)
			}
		}
	}
}

// TestSimLagSessions checks that the session guarantees on the lag history
// report exactly the violating reads of the table: five for
// read-your-writes, three for monotonic reads, each ending with the read.
func TestSimLagSessions(t *testing.T) {
	_, hist, _ := run(t, nil, "sim", "lag", "--emit", "history")
	code, out, errs := run(t, []byte(hist), "check", "-o", "json", "-c", "read-your-writes,monotonic-reads", "-")
	if code != ExitInvalid {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		checker.ReadYourWrites: {"c3:r(2)@60", "c3:r(7)@230", "c3:r(9)@250", "c1:r(11)@280", "c2:r(11)@300"},
		checker.MonotonicReads: {"c3:r(2)@60", "c1:r(4)@110", "c3:r(4)@130"},
	}
	for _, r := range rep.Histories[0].Results {
		var got []string
		for _, v := range r.Violations {
			last := v.Ops[len(v.Ops)-1]
			got = append(got, last.Label+"@"+jsonInt(last.Call))
		}
		w := want[r.Consistency]
		if r.Valid != checker.False || strings.Join(sorted(got), " ") != strings.Join(sorted(w), " ") {
			t.Errorf("%s: %v, violating reads %v, want %v", r.Consistency, r.Valid, got, w)
		}
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

func sorted(xs []string) []string {
	out := append([]string(nil), xs...)
	sort.Strings(out)
	return out
}
