package report

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
)

// TestRefusedHistoryInEveryForm checks that a refused outcome, of a file
// read (its counts kept) or not read, is in every report form as
// unknown with the refusal's reason: the verdict lines and --summary in
// text, "error" and "valid": "unknown" in JSON, an error case per
// criterion in JUnit, the reason on the web page.
func TestRefusedHistoryInEveryForm(t *testing.T) {
	h := textbook(t, "h2")
	req := check.Request{Model: "mutex", Criteria: []string{"linearizable", "sequential"}}
	read, err := check.Run(context.Background(), h, req)
	if err == nil || read.Refused == nil {
		t.Fatalf("run: %v, refused %v", err, read.Refused)
	}
	unread := check.Refused(check.Request{Model: "list-append"}, nil, errors.New("gone.edn: cannot open"))
	rep := &Report{Histories: []History{
		NewHistoryOf("h2.hist", h, read),
		NewHistoryOf("gone.edn", nil, unread),
	}}
	rep.Finish()
	if rep.Valid != checker.Unknown {
		t.Errorf("report valid %v", rep.Valid)
	}
	want := map[string][]string{"h2.hist": {"linearizable", "sequential"}, "gone.edn": {"strict-serializable"}}
	assertRefusedResults(t, rep, want)
	assertRefusedText(t, rep)
	assertRefusedJSON(t, rep)
	assertRefusedJUnit(t, rep)
	assertRefusedPage(t, rep)
}

func assertRefusedResults(t *testing.T, rep *Report, want map[string][]string) {
	t.Helper()
	for _, hr := range rep.Histories {
		if hr.Error == "" || len(hr.Results) != len(want[hr.File]) {
			t.Fatalf("%s: error %q, %d results", hr.File, hr.Error, len(hr.Results))
		}
		for i, r := range hr.Results {
			if r.Consistency != want[hr.File][i] || r.Valid != checker.Unknown || r.Reason != "not checked: "+hr.Error {
				t.Errorf("%s: %+v", hr.File, r)
			}
		}
	}
}

func assertRefusedText(t *testing.T, rep *Report) {
	t.Helper()
	var text bytes.Buffer
	for i := range rep.Histories {
		if err := Summary(&text, &rep.Histories[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := Text(&text, rep); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"h2.hist: 3 ops (3 ok, 0 failed, 0 unknown)", "    not checked: " + rep.Histories[0].Error,
		"gone.edn: not read: gone.edn: cannot open\n",
		"h2.hist\tlinearizable\tunknown\n", "h2.hist\tsequential\tunknown\n", "gone.edn\tstrict-serializable\tunknown\n",
	} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("text lacks %q:\n%s", s, text.String())
		}
	}
}

func assertRefusedJSON(t *testing.T, rep *Report) {
	t.Helper()
	var js bytes.Buffer
	if err := JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Valid     any `json:"valid"`
		Histories []struct {
			Error string `json:"error"`
		} `json:"histories"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Valid != "unknown" || back.Histories[0].Error == "" || back.Histories[1].Error != "gone.edn: cannot open" {
		t.Errorf("json: %s", js.String())
	}
}

func assertRefusedJUnit(t *testing.T, rep *Report) {
	t.Helper()
	var ju bytes.Buffer
	if err := JUnit(&ju, rep); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(ju.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 3 || doc.Errors != 3 || doc.Failures != 0 {
		t.Errorf("junit: %d tests, %d errors, %d failures", doc.Tests, doc.Errors, doc.Failures)
	}
}

func assertRefusedPage(t *testing.T, rep *Report) {
	t.Helper()
	var page bytes.Buffer
	if err := HTML(&page, rep); err != nil {
		t.Fatal(err)
	}
	d := pageData(t, page.String())
	if len(d.Histories) != 2 || d.Histories[0].Error != rep.Histories[0].Error ||
		d.Histories[1].Error != "gone.edn: cannot open" || d.Histories[1].Summary != "not read" {
		t.Errorf("page: %+v", d.Histories)
	}
}
