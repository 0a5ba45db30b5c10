package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
)

// junitDoc is what a CI system reads from the JUnit form.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// TestJUnit checks the JUnit form of a report with passes, failures and an
// unknown verdict: the counts CI reads, and the failure's message and text.
func TestJUnit(t *testing.T) {
	cs := checkers(register0)
	rep := &Report{}
	for _, n := range []string{"h1", "h2", "h3"} {
		rep.Histories = append(rep.Histories, checked(t, n+".hist", "register", textbook(t, n), cs, checker.Linearizable, checker.Sequential))
	}
	// An unknown verdict, as a time limit gives.
	unknown := NewHistory("slow.hist", "register", textbook(t, "h1"))
	unknown.Results = append(unknown.Results, NewResult(unknown.Source, checker.Result{Criterion: checker.Linearizable,
		Valid: checker.Unknown, Reason: "no verdict within the time limit of 1s (--timeout)"}))
	rep.Histories = append(rep.Histories, unknown)
	rep.Finish()

	doc, out := junitOf(t, rep)
	if !strings.HasPrefix(out, "<?xml") {
		t.Errorf("no XML declaration:\n%s", out)
	}
	checkJUnitCounts(t, doc)
	checkJUnitCases(t, doc)
}

// junitOf renders rep in the JUnit form and parses it back.
func junitOf(t *testing.T, rep *Report) (junitDoc, string) {
	t.Helper()
	var buf bytes.Buffer
	if err := JUnit(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit output does not parse: %v\n%s", err, buf.String())
	}
	return doc, buf.String()
}

// checkJUnitCounts checks TestJUnit's totals and suites.
func checkJUnitCounts(t *testing.T, doc junitDoc) {
	t.Helper()
	// h1: 2 pass; h2: linearizable fails; h3: both fail; slow: 1 error.
	if doc.Tests != 7 || doc.Failures != 3 || doc.Errors != 1 || len(doc.Suites) != 4 {
		t.Fatalf("tests %d failures %d errors %d suites %d, want 7, 3, 1, 4", doc.Tests, doc.Failures, doc.Errors, len(doc.Suites))
	}
	wantSuites := []struct {
		name                  string
		tests, failures, errs int
	}{{"h1.hist", 2, 0, 0}, {"h2.hist", 2, 1, 0}, {"h3.hist", 2, 2, 0}, {"slow.hist", 1, 0, 1}}
	for i, w := range wantSuites {
		s := doc.Suites[i]
		if s.Name != w.name || s.Tests != w.tests || s.Failures != w.failures || s.Errors != w.errs || len(s.Cases) != w.tests {
			t.Errorf("suite %d = %s %d/%d/%d, want %+v", i, s.Name, s.Tests, s.Failures, s.Errors, w)
		}
	}
}

// checkJUnitCases checks TestJUnit's cases: h2's linearizability failure
// with its message and text, its sequential pass, and the unknown verdict
// as an error.
func checkJUnitCases(t *testing.T, doc junitDoc) {
	t.Helper()
	h2 := doc.Suites[1].Cases
	if h2[0].Name != "linearizable" || h2[0].Classname != "h2.hist" || h2[0].Failure == nil || h2[0].Failure.Type != "violation" {
		t.Fatalf("h2 linearizable case = %+v", h2[0])
	}
	msg := h2[0].Failure.Message
	if !strings.HasPrefix(msg, "B:r(1) read the new value 1 and finished at 4, before C:r(0) began at 6; yet C:r(0) read the old value 0.") {
		t.Errorf("failure message = %q", msg)
	}
	for _, want := range []string{"C:r(0) [6, 8]", "core: B:r(1), C:r(0); weakened: A:w(1)", "- B:r(1) ran from 2 to 4."} {
		if !strings.Contains(h2[0].Failure.Text, want) {
			t.Errorf("failure text lacks %q:\n%s", want, h2[0].Failure.Text)
		}
	}
	if h2[1].Failure != nil || h2[1].Error != nil {
		t.Errorf("h2 sequential holds, yet the case has a problem: %+v", h2[1])
	}
	if e := doc.Suites[3].Cases[0].Error; e == nil || e.Type != "unknown" || !strings.Contains(e.Message, "--timeout") {
		t.Errorf("unknown case = %+v", doc.Suites[3].Cases[0])
	}
}

// TestJUnitEscapes checks that text which is not valid in XML (control
// characters, markup) still gives a document that parses.
func TestJUnitEscapes(t *testing.T) {
	h := textbook(t, "h1")
	hr := NewHistory("a<b>&\"c\x01.hist", "register", h)
	hr.Results = append(hr.Results, NewResult(h, checker.Result{Criterion: checker.Causal, Valid: checker.False,
		Violations: []checker.Violation{{Ops: []int{0}, Pattern: "overlapping-zones", Zones: []checker.Zone{
			{Value: "x </failure> \x00 ]]>", FromOp: 0, ToOp: 0}, {Value: "y", FromOp: 0, ToOp: 0}}}}}))
	rep := &Report{Histories: []History{hr}}
	rep.Finish()
	doc, _ := junitOf(t, rep)
	if doc.Failures != 1 || !strings.HasPrefix(doc.Suites[0].Cases[0].Failure.Message, "x </failure>") {
		t.Errorf("failure = %+v", doc.Suites[0].Cases[0].Failure)
	}
}
