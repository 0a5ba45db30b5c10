package ellecli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
)

// printVerdict writes one file's outcome: elle-cli's line, or with
// --output json one JSON object (see jsonResult).
func printVerdict(w io.Writer, output, model, file string, v checker.Verdict, hr *report.History) error {
	if output == "json" {
		b, err := json.MarshalIndent(newJSONResult(model, file, v, hr), "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	_, err := fmt.Fprint(w, Line(file, v))
	return err
}

// Line is elle-cli's output line for a file: Clojure's println of the
// path, a tab and the verdict puts a space between each, so the tab has a
// space on either side. The file name is quoted if it does not print as
// itself.
func Line(file string, v checker.Verdict) string {
	return history.Quote(file) + " \t " + v.String() + "\n"
}

// jsonResult is --output json's object per file: elle-cli's "valid?" and
// "anomaly-types", then histcheck's facts (the report's results, each
// criterion's verdict with its violations explained).
type jsonResult struct {
	Valid        checker.Verdict `json:"valid?"`
	File         string          `json:"file"`
	Model        string          `json:"model"`
	Checked      string          `json:"histcheck-model"`
	AnomalyTypes []string        `json:"anomaly-types,omitempty"`
	// Error says why the history could not be checked, as Jepsen's
	// check-safe gives it beside :valid? :unknown.
	Error   string          `json:"error,omitempty"`
	Results []report.Result `json:"results"`
}

func newJSONResult(model, file string, v checker.Verdict, hr *report.History) jsonResult {
	r := jsonResult{Valid: v, File: file, Model: model, Checked: hr.Model, Error: hr.Error, Results: hr.Results}
	if r.Results == nil {
		r.Results = []report.Result{}
	}
	for name := range byAnomaly(hr) {
		r.AnomalyTypes = append(r.AnomalyTypes, name)
	}
	reasons := make([]string, len(hr.Results))
	for i, res := range hr.Results {
		reasons[i] = res.Reason
	}
	if emptyGraph(reasons) {
		// Elle lists empty-transaction-graph beside the anomalies found.
		r.AnomalyTypes = append(r.AnomalyTypes, elle.EmptyTransactionGraph)
	}
	sort.Strings(r.AnomalyTypes)
	return r
}

// byAnomaly groups the distinct violations of every result by their
// anomaly class (the violation's pattern); the same violation found for
// several criteria counts once.
func byAnomaly(hr *report.History) map[string][]report.Violation {
	out := map[string][]report.Violation{}
	seen := map[string]bool{}
	for _, r := range hr.Results {
		for _, v := range r.Violations {
			if v.Pattern == "" || notElle[v.Pattern] || seen[v.Pattern+"\x00"+v.Explanation] {
				continue
			}
			seen[v.Pattern+"\x00"+v.Explanation] = true
			out[v.Pattern] = append(out[v.Pattern], v)
		}
	}
	return out
}

// writeDirectory writes, per anomaly class found, NAME.txt with each
// violation's explanation, numbered as Elle numbers its cycles ("G1c #0"),
// and NAME.html, the web page of the history with those violations.
func writeDirectory(dir string, hr *report.History) error {
	groups := byAnomaly(hr)
	if len(groups) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--directory: %w", err)
	}
	for name, vs := range groups {
		base := filepath.Join(dir, fileName(name))
		if err := os.WriteFile(base+".txt", []byte(anomalyText(name, vs)), 0o644); err != nil {
			return fmt.Errorf("--directory: %w", err)
		}
		page := only(hr, name)
		rep := &report.Report{Histories: []report.History{page}}
		rep.Finish()
		if err := report.WriteHTMLFile(base+".html", rep); err != nil {
			return fmt.Errorf("--directory: %w", err)
		}
	}
	return nil
}

// anomalyText is the text file of one anomaly class. Explanations quote
// the input escaped already (package report).
func anomalyText(name string, vs []report.Violation) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("%s #%d\n%s", name, i, v.Explanation)
	}
	return strings.Join(parts, "\n\n\n") + "\n"
}

// only is hr with, in each result, only the violations of one anomaly
// class; results without any are left out.
func only(hr *report.History, name string) report.History {
	out := *hr
	out.Results = nil
	for _, r := range hr.Results {
		var vs []report.Violation
		for _, v := range r.Violations {
			if v.Pattern == name {
				vs = append(vs, v)
			}
		}
		if len(vs) > 0 {
			r.Violations = vs
			out.Results = append(out.Results, r)
		}
	}
	return out
}

// fileName keeps an anomaly's name to letters, digits, '-' and '_', so
// that it is one file name on every system.
func fileName(name string) string {
	b := []byte(name)
	for i, c := range b {
		ok := c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}
