package sim

import (
	"github.com/histcheck/histcheck/history"

	"strings"
	"testing"
)

func TestScenariosRunWithDefaults(t *testing.T) {
	want := []string{"partition", "lag", "lockqueue", "fencing", "lease-ttl", "redis-lock", "redlock", "pacelc", "election", "check-then-write",
		"setnx-expire", "failover", "quorum", "eventual", "lock-designs", "txn", "random"}
	// The lock design review needs a checker; the command line's is tested
	// in package cli. Here every cell passes.
	all := ScenariosWith(func(*history.History, string) (string, error) { return "true", nil })
	if len(all) != len(want) {
		t.Fatalf("%d scenarios, want %d", len(all), len(want))
	}
	for i, s := range all {
		if s.Name != want[i] || s.Description == "" || s.Run == nil {
			t.Errorf("scenario %d: %q %q", i, s.Name, s.Description)
		}
		for _, f := range s.Flags {
			if f.Name == "" || f.Usage == "" || f.Default == "" {
				t.Errorf("%s: flag %+v incomplete", s.Name, f)
			}
		}
		out, err := s.Run(nil)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if !strings.HasPrefix(out.Table, "|") && !strings.Contains(out.Table, "\n|") {
			t.Errorf("%s: table is not a table:\n%s", s.Name, out.Table)
		}
		if out.History == nil {
			t.Errorf("%s: no history", s.Name)
		}
		if out.History != nil && len(out.History.Ops) == 0 {
			t.Errorf("%s: empty history", s.Name)
		}
		if out.Model != "" {
			if m, _ := out.History.Meta["model"].Str(); m != out.Model {
				t.Errorf("%s: model %q but the history says %q", s.Name, out.Model, m)
			}
		}
		if _, ok := Lookup(s.Name); !ok {
			t.Errorf("Lookup(%q) failed", s.Name)
		}
	}
	if _, ok := Lookup("cap"); ok {
		t.Error("Lookup found an unknown scenario")
	}
}

func TestScenarioFlags(t *testing.T) {
	tests := []struct {
		scenario string
		params   Params
		errHas   string // empty: must succeed
	}{
		{"partition", Params{"split": "4|1", "mode": "cp"}, ""},
		{"partition", Params{"split": "2|3"}, "split"},
		{"partition", Params{"replicas": "7"}, `unknown flag "replicas"`},
		{"lag", Params{"seed": "-1"}, "seed"},
		{"lag", Params{"seed": "4294967296"}, "seed"},
		{"lockqueue", Params{"seed": "7"}, ""},
		{"fencing", Params{"fencing": "on"}, ""},
		{"fencing", Params{"fencing": "yes"}, "fencing"},
		{"fencing", Params{"register": "on"}, "only with --late on"},
		{"lease-ttl", Params{"ttl": "10", "fenced": "true"}, ""},
		{"lease-ttl", Params{"ttl": "0"}, "ttl"},
		{"redis-lock", Params{"release": "safe"}, ""},
		{"redis-lock", Params{"release": "lua"}, "release"},
		{"redlock", Params{"token": "monotonic"}, ""},
		{"redlock", Params{"token": "random"}, "token"},
		{"pacelc", Params{"rtt": "30,60"}, "rtt"},
		{"pacelc", Params{"shares": "a,b,c"}, "shares"},
		{"random", Params{"ops": "20", "model": "cas-register", "anomaly": "lost-update", "crash-rate": "0.1"}, ""},
		{"random", Params{"crash-rate": "x"}, "crash-rate"},
		{"random", Params{"model": "set"}, "model"},
	}
	for _, tc := range tests {
		s, _ := Lookup(tc.scenario)
		out, err := s.Run(tc.params)
		switch {
		case tc.errHas == "" && err != nil:
			t.Errorf("%s %v: %v", tc.scenario, tc.params, err)
		case tc.errHas == "" && out == nil:
			t.Errorf("%s %v: no output", tc.scenario, tc.params)
		case tc.errHas != "" && (err == nil || !strings.Contains(err.Error(), tc.errHas)):
			t.Errorf("%s %v: error %v, want one mentioning %q", tc.scenario, tc.params, err, tc.errHas)
		}
	}
}
