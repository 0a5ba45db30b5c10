package check_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

func readTxnHistory(t *testing.T, name string) *history.History {
	t.Helper()
	path := filepath.Join("..", "testdata", "histories", "txn", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := format.ReadResult(path, f, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r.History
}

// TestParseAnomalies checks the names --anomalies accepts: Elle's, without
// repeats or empty names, and an error listing them for any other.
func TestParseAnomalies(t *testing.T) {
	got, err := check.ParseAnomalies(" G1, G2-item,,G1 ")
	if err != nil || !slices.Equal(got, []string{"G1", "G2-item"}) {
		t.Errorf("got %v %v", got, err)
	}
	_, err = check.ParseAnomalies("G1,G3")
	if err == nil || !strings.Contains(err.Error(), `unknown anomaly "G3" (accepted: `) || !strings.Contains(err.Error(), "lost-update") {
		t.Errorf("error %v", err)
	}
}

// TestRunAnomalies asks for specific anomalies: alone, their verdict is
// the only one; with criteria, it comes after theirs and stays off the
// ladder; a model without anomalies is an error.
func TestRunAnomalies(t *testing.T) {
	h := readTxnHistory(t, "si-without-g-single.edn")
	run := func(req check.Request) []check.Result {
		t.Helper()
		out, err := check.Run(context.Background(), h, req)
		if err != nil {
			t.Fatal(err)
		}
		return out.Results
	}
	rs := run(check.Request{Model: "list-append", Anomalies: []string{"G2-item"}})
	if len(rs) != 1 || rs[0].Criterion != "anomalies" || rs[0].Valid != checker.False || rs[0].Violations[0].Pattern != "G2-item" {
		t.Errorf("G2-item: %+v", rs)
	}
	rs = run(check.Request{Model: "list-append", Criteria: []string{"snapshot-isolation"}, Anomalies: []string{"G1", "G-single"}})
	if len(rs) != 2 || rs[0].Criterion != "snapshot-isolation" || rs[1].Criterion != "anomalies" ||
		rs[0].Valid != checker.True || rs[1].Valid != checker.True {
		t.Errorf("snapshot-isolation and G1, G-single: %+v", rs)
	}
	out, err := check.Run(context.Background(), h, check.Request{Model: "list-append", Criteria: []string{check.All}, Anomalies: []string{"G2"}})
	if err != nil || out.Ladder == nil || out.Results[len(out.Results)-1].Criterion != "anomalies" {
		t.Errorf("all: %v %+v", err, out)
	}
	reg, err := history.FromOps([]history.Op{{Client: "A", F: "write", Value: history.IntValue(1), Call: 0, Return: 1, Status: history.OK}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = check.Run(context.Background(), reg, check.Request{Model: "register", Anomalies: []string{"G1"}})
	if err == nil || !strings.Contains(err.Error(), "transactional models") {
		t.Errorf("register: %v", err)
	}
}

// TestRunAssume checks that assumptions reach rw-register (Elle's wfr
// case: serializable by Elle's anomalies unless writes follow reads; no
// commit order explains its reads of y = 1, which nobody wrote, so it is
// not serializable when decided exactly), and that another model refuses
// them.
func TestRunAssume(t *testing.T) {
	h := readTxnHistory(t, "wfr.edn")
	for _, c := range []struct {
		assume   []string
		elleOnly bool
		want     checker.Verdict
		pattern  string
	}{
		{nil, true, checker.True, ""},
		{[]string{"wfr-keys"}, true, checker.False, "G-single-item"},
		{[]string{"wfr-keys"}, false, checker.False, "G-single-item"},
		{nil, false, checker.False, "ThinAirRead"},
	} {
		out, err := check.Run(context.Background(), h, check.Request{Model: "rw-register", Criteria: []string{"serializable"}, Assume: c.assume, ElleOnly: c.elleOnly})
		if err != nil || out.Results[0].Valid != c.want {
			t.Errorf("%v: %v %+v", c.assume, err, out.Results)
		} else if c.want == checker.False && out.Results[0].Violations[0].Pattern != c.pattern {
			t.Errorf("%v: %+v", c.assume, out.Results[0].Violations)
		}
	}
	_, err := check.Run(context.Background(), h, check.Request{Model: "list-append", Assume: []string{"wfr-keys"}})
	if err == nil || !strings.Contains(err.Error(), "applies to rw-register") {
		t.Errorf("list-append: %v", err)
	}
	got, err := check.ParseAssumptions(" wfr-keys,,linearizable-keys,wfr-keys")
	if err != nil || !slices.Equal(got, []string{"wfr-keys", "linearizable-keys"}) {
		t.Errorf("parse: %v %v", got, err)
	}
	if _, err := check.ParseAssumptions("serial-keys"); err == nil || !strings.Contains(err.Error(), `unknown assumption "serial-keys"`) {
		t.Errorf("parse: %v", err)
	}
}
