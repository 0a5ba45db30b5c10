package report_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker/isolation"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/report"
)

// TestIsolationViolations checks that violations of the levels decided
// from commit orders are said in words, step by step with the read that
// forces each commit order, with Plume's and Elle's names, and typed in
// JSON: dbcop's fractured read (s3 read x = 1 from s1 and z = 1 from s2,
// which wrote x = 2 after reading s1's y) and a read of a value nobody
// wrote.
func TestIsolationViolations(t *testing.T) {
	for _, c := range []struct {
		path, level string
		words       []string
		json        []string
	}{
		{"../testdata/isolation/dbcop/atomic-read-violation.edn", isolation.ReadAtomic,
			[]string{"Let:", "T1 < T2, because T2 read T1's write of 1 to y", "is visible to it", "a contradiction!", "(Plume's FracturedReadCO; Elle's fractured-read)"},
			[]string{`"plume":"FracturedReadCO"`, `"elle":"fractured-read"`, `"type":"co"`, `"why":"read"`, `"type":"wr"`}},
		{"../testdata/peers/elle/rw-read-not-written.edn", isolation.ReadCommitted,
			[]string{"read x = 2, which no transaction wrote.", "(Plume's ThinAirRead)"},
			[]string{`"plume":"ThinAirRead"`, `"key":"x"`, `"value":"2"`}},
	} {
		h, err := format.ReadFile(c.path, "")
		if err != nil {
			t.Fatal(err)
		}
		res, err := isolation.Check(context.Background(), h, c.level, isolation.Options{})
		if err != nil || len(res.Violations) == 0 {
			t.Fatalf("%s: %v %+v", c.path, err, res)
		}
		words := report.Explain(h, c.level, res.Violations[0])
		for _, w := range c.words {
			if !strings.Contains(words, w) {
				t.Errorf("%s: explanation lacks %q:\n%s", c.path, w, words)
			}
		}
		raw, err := json.Marshal(report.NewResult(h, res))
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range c.json {
			if !strings.Contains(string(raw), j) {
				t.Errorf("%s: JSON lacks %s:\n%s", c.path, j, raw)
			}
		}
	}
}
