package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/report"
)

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
