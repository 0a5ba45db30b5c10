package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
)

// historyFiles lists the history files under dir, recursively, as the
// command's check -r finds them; none when dir is absent.
func historyFiles(t *testing.T, dir string) []string {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	files, _ := format.Expand([]string{dir}, false, true)
	return files
}

// allCriteriaMaxOps bounds the histories also checked under every
// criterion.
const allCriteriaMaxOps = 40

// TestExplanationsOfEveryViolation checks the explanation of every
// violation of every history in testdata/ and in the shared corpus, under
// the default settings (and, for a small history, under every criterion),
// with and without the facts: the violation and its
// core name the same key and the same operations, the text's headline and
// core line list the same labels, no label stands for two operations, no
// fact stated is false (the fact checker), no operation outside the
// violation is named and no explanation holds another's sentence.
func TestExplanationsOfEveryViolation(t *testing.T) {
	files := historyFiles(t, filepath.Join("..", "testdata", "histories"))
	corpus := historyFiles(t, filepath.Join("..", "..", "shared", "corpus"))
	if corpus == nil {
		t.Log("the shared corpus is absent: only testdata is checked")
	}
	files = append(files, corpus...)
	seen := make(map[string]int)
	violations := 0
	for _, file := range files {
		h, err := format.ReadFile(file, "")
		if err != nil {
			continue // not read: no explanation to check
		}
		reqs := []check.Request{{Name: file}}
		if len(h.Ops) <= allCriteriaMaxOps {
			// A small history is checked under every criterion too,
			// for the weak criteria's explanations.
			reqs = append(reqs, check.Request{Name: file, Criteria: []string{check.All}})
		}
		for _, req := range reqs {
			out, err := check.Run(context.Background(), h, req)
			if err != nil || out.Refused != nil {
				continue
			}
			hr := report.NewHistoryOf(file, h, out)
			violations += checkExplanations(t, file, h, hr, seen)
		}
	}
	if violations == 0 {
		t.Fatal("no violation checked")
	}
	t.Logf("%d files, %d violations; facts checked: %v", len(files), violations, seen)
}

// checkExplanations checks the violations of one history's report, as
// TestExplanationsOfEveryViolation says, and returns how many there were.
func checkExplanations(t *testing.T, file string, h *history.History, hr report.History, seen map[string]int) int {
	t.Helper()
	es, err := violationsOf(h, hr)
	if err != nil {
		t.Errorf("%s: %v", file, err)
		return 0
	}
	for _, e := range es {
		bad := e.checkFacts(seen)
		bad = append(bad, e.outsiders()...)
		bad = append(bad, nested(e.text)...)
		if len(bad) > 0 {
			t.Errorf("%s:\n%s\n%s", file, strings.Join(bad, "\n"), e.text)
		}
	}
	for _, r := range hr.Results {
		for _, v := range r.Violations {
			if c := v.Core; c != nil && (c.Key != "" && c.Key != v.Key || !sameOps(v.Ops, c)) {
				t.Errorf("%s %s: the violation (key %q) names %v, its core (key %q) %v + %v",
					file, r.Consistency, v.Key, labels(v.Ops), c.Key, labels(c.Ops), labels(c.Weakened))
			}
		}
	}
	for _, facts := range []bool{false, true} {
		var buf bytes.Buffer
		if err := report.WriteText(&buf, &report.Report{Histories: []report.History{hr}}, report.TextOptions{Facts: facts}); err != nil {
			t.Fatal(err)
		}
		for _, bad := range headlinesAndCores(buf.String()) {
			t.Errorf("%s (facts %v): %s", file, facts, bad)
		}
	}
	return len(es)
}

func sameOps(ops []report.Op, c *report.Core) bool {
	named := make(map[int64]bool)
	for _, o := range append(append([]report.Op(nil), c.Ops...), c.Weakened...) {
		named[o.Index] = true
	}
	if len(named) != len(ops) {
		return false
	}
	for _, o := range ops {
		if !named[o.Index] {
			return false
		}
	}
	return true
}

func labels(ops []report.Op) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = o.Label
	}
	return out
}

var (
	headline = regexp.MustCompile(`^\s*violation[^:]*: (.*)$`)
	coreLine = regexp.MustCompile(`^\s*core(?: on key [^:]*)?: (.*?)(?: \(not shown minimal.*\))?$`)
	interval = regexp.MustCompile(` \[-?\d+, (?:-?\d+|∞)\]`)
	pattern  = regexp.MustCompile(`(?m)^\s*violation \(([^)]+)\)`)
)

// headlinesAndCores checks the text form: each violation's headline and
// the core line under it list the same labels (the headline with each
// operation's interval), the core is never said to be on another key,
// no label is listed twice, and each pattern's name and "weakened" are
// defined once.
func headlinesAndCores(text string) []string {
	var bad []string
	lines := strings.Split(text, "\n")
	terms := make(map[string]bool)
	for _, m := range pattern.FindAllStringSubmatch(text, -1) {
		terms[m[1]] = true
	}
	if strings.Contains(text, "; weakened: ") {
		terms["weakened"] = true
	}
	for term := range terms {
		// Defined once, in words, where it first appears.
		if n := strings.Count(text, "("+term+": "); n != 1 {
			bad = append(bad, fmt.Sprintf("%s is defined %d times", term, n))
		}
	}
	for i, l := range lines {
		if strings.Contains(l, "core on key") {
			bad = append(bad, "the core is on another key than its violation: "+l)
		}
		m := headline.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		list := interval.ReplaceAllString(m[1], "")
		for j := i + 1; j < len(lines) && j < i+8; j++ {
			if headline.MatchString(lines[j]) {
				break
			}
			if c := coreLine.FindStringSubmatch(lines[j]); c != nil {
				if c[1] != list {
					bad = append(bad, "headline lists "+list+"; the core "+c[1])
				}
				break
			}
		}
		parts := strings.Split(strings.ReplaceAll(list, "; weakened: ", ", "), ", ")
		seen := make(map[string]bool)
		for _, p := range parts {
			// A label with commas inside is split too; its pieces
			// do not look like whole labels, and are left alone.
			if strings.Contains(p, ":") && strings.HasSuffix(p, ")") && seen[p] {
				bad = append(bad, "the label "+p+" is listed twice: "+l)
			}
			seen[p] = true
		}
	}
	return bad
}

// TestIssueRepros checks the explanations of the histories that showed
// explanations false, doubled or nested, with the flags they were run
// with: Porcupine's c10-bad under -m kv --init '""', etcd_000, Knossos's
// rethink-fail-smaller and mutex etcd.edn under -m mutex, a lost update
// and a stale read in one process under sequential consistency. Each
// gives one explanation whose facts hold; the stale read's argues from B's
// order and what it read only, with no time in it.
func TestIssueRepros(t *testing.T) {
	corpus := filepath.Join("..", "..", "shared", "corpus")
	lost := "model: cas-register\ninit: 0\nA: r(0) [0, 1]\nB: r(0) [2, 3]\nA: cas(0, 1) [4, 5]\nB: cas(0, 1) [6, 7]\n"
	stale := "model: register\ninit: 0\nA: w(1) [0, 1]\nB: r(1) [2, 3]\nB: r(0) [4, 5]\n"
	tests := []struct {
		name, file, text string
		req              check.Request
		want, notWant    []string
	}{
		{name: "c10-bad", file: filepath.Join(corpus, "porcupine-kv", "c10-bad.txt"),
			req:     check.Request{Model: "kv", Init: history.StringValue("")},
			notWant: []string{"the initial value"}},
		{name: "etcd_000", file: filepath.Join(corpus, "porcupine-etcd", "etcd_000.log")},
		{name: "rethink-fail-smaller", file: filepath.Join(corpus, "knossos", "cas-register", "bad", "rethink-fail-smaller.edn")},
		{name: "mutex etcd", file: filepath.Join(corpus, "knossos", "mutex", "bad", "etcd.edn"), req: check.Request{Model: "mutex"},
			want: []string{"counting alone refutes it", "132 operations took the lock and 129 released it"}},
		{name: "lost update", text: lost, req: check.Request{Criteria: []string{"sequential"}},
			want: []string{"No order of the 2 operations keeps each process's order"}, notWant: []string{"furthest"}},
		{name: "stale read in one process", text: stale, req: check.Request{Criteria: []string{"sequential"}},
			want:    []string{"B:r(1) read the new value 1 and comes before B:r(0) in process B's order", "Only A:w(1) wrote 1"},
			notWant: []string{"finished", "began", "at any time", "in progress"}},
	}
	for _, tt := range tests {
		var h *history.History
		var err error
		if tt.file != "" {
			if _, serr := os.Stat(tt.file); serr != nil {
				t.Logf("%s: the corpus is absent", tt.name)
				continue
			}
			h, err = format.ReadFile(tt.file, "")
		} else {
			h, err = format.Read(tt.name+".hist", strings.NewReader(tt.text), "")
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		tt.req.Name = tt.name
		out, err := check.Run(context.Background(), h, tt.req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		hr := report.NewHistoryOf(tt.name, h, out)
		if n := checkExplanations(t, tt.name, h, hr, map[string]int{}); n != 1 {
			t.Errorf("%s: %d violations, want 1", tt.name, n)
		}
		if tt.name == "c10-bad" && (hr.Keys == nil || hr.Keys.Failed != 8 || hr.Keys.Keys != 10) {
			t.Errorf("%s: keys %+v, want 8 of 10 failed", tt.name, hr.Keys)
		}
		v := hr.Results[0].Violations[0]
		story := v.Explanation
		if v.Core != nil {
			story = v.Core.Explanation
		}
		for _, w := range tt.want {
			if !strings.Contains(story, w) {
				t.Errorf("%s: the explanation lacks %q:\n%s", tt.name, w, story)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(story, w) {
				t.Errorf("%s: the explanation says %q:\n%s", tt.name, w, story)
			}
		}
	}
}
