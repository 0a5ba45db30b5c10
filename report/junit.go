package report

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// JUnit writes r as JUnit XML, so that CI systems show violations in their
// own test views: one test suite per history, one test case per criterion
// (and object, when objects were checked one by one). A false verdict is a
// failure whose message is the explanation (the core's story when there is
// a core) and whose text is the detail the text form prints; an unknown
// verdict is an error whose message is the reason.
func JUnit(w io.Writer, r *Report) error {
	out := junitSuites{Name: "histcheck"}
	for i := range r.Histories {
		h := &r.Histories[i]
		// Names are shown as in the text form: XML escaping keeps the
		// document well formed, but a CI page shows the name to people.
		file := history.Quote(h.File)
		s := junitSuite{Name: file}
		for j := range h.Results {
			res := &h.Results[j]
			c := junitCase{Name: res.Consistency, Classname: file, Time: seconds(res.ElapsedMS)}
			if res.Model != "" {
				c.Name += " (" + ObjectName(res.Key) + ", " + res.Model + ")"
			}
			switch res.Valid {
			case checker.False:
				c.Failure = &junitProblem{Type: "violation", Message: escapeLines(failureMessage(res)), Text: detail(res)}
				s.Failures++
			case checker.Unknown:
				reason := res.Reason
				if reason == "" {
					reason = "no verdict"
				}
				c.Error = &junitProblem{Type: "unknown", Message: escapeLines(reason), Text: detail(res)}
				s.Errors++
			}
			s.Tests++
			s.time += res.ElapsedMS
			s.Cases = append(s.Cases, c)
		}
		s.Time = seconds(s.time)
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.time += s.time
		out.Suites = append(out.Suites, s)
	}
	out.Time = seconds(out.time)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("writing JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitSuites is the root element of the JUnit XML form, in the shape
// Jenkins, GitLab and GitHub test reporters read.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
	time     float64
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
	time     float64
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// seconds renders milliseconds as JUnit's seconds.
func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }

// failureMessage is the one-paragraph explanation of a false verdict: the
// story of the first violation's core, else the violation's own words.
func failureMessage(r *Result) string {
	if len(r.Violations) == 0 {
		return "the history violates " + r.Consistency
	}
	v := &r.Violations[0]
	if v.Core != nil {
		if s := v.Core.Story(); s != "" {
			return s
		}
	}
	if v.Explanation != "" {
		return strings.TrimSpace(v.Explanation)
	}
	labels := make([]string, len(v.Ops))
	for i, op := range v.Ops {
		labels[i] = op.Label
	}
	return "violation: " + strings.Join(labels, ", ")
}

// detail is what the text form prints under the verdict line, with the
// core's facts.
func detail(r *Result) string {
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	writeResult(bw, r, "", TextOptions{Facts: true})
	_ = bw.Flush() // a bytes.Buffer does not fail
	return buf.String()
}
