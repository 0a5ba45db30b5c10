package cli

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/report"
)

// textbookFiles writes H1–H3 in the notation and returns their paths.
func textbookFiles(t *testing.T) (h1, h2, h3 string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("model: register\ninit: 0\n"+text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("h1.hist", "A: w(1) [0, 10]\nB: r(0) [2, 4]\nC: r(1) [6, 8]\n"),
		write("h2.hist", "A: w(1) [0, 10]\nB: r(1) [2, 4]\nC: r(0) [6, 8]\n"),
		write("h3.hist", "A: w(1) [0, 2]\nA: r(0) [3, 5]\n")
}

// TestCoresInJSON checks the cores the command computes, through the
// JSON report decoded strictly: H2's core is its three operations (two as
// recorded, A's write weakened), H3's its two, for both criteria that fail.
func TestCoresInJSON(t *testing.T) {
	h1, h2, h3 := textbookFiles(t)
	var out, errb bytes.Buffer
	code := Main([]string{"check", "-o", "json", "-c", "linearizable,sequential", h1, h2, h3}, nil, &out, &errb)
	if code != int(ExitInvalid) {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	dec := json.NewDecoder(&out)
	dec.DisallowUnknownFields()
	var rep report.Report
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("report does not match the schema: %v", err)
	}
	type want struct {
		file, crit string
		ops, weak  int
		story      string
	}
	wants := []want{
		{"h2.hist", checker.Linearizable, 2, 1, "B:r(1) read the new value 1 and finished at 4, before C:r(0) began at 6; yet C:r(0) read the old value 0. Only A:w(1) wrote 1"},
		{"h3.hist", checker.Linearizable, 2, 0, "A:w(1) finished at 2 before A:r(0) began at 3 (same process), yet the read returned 0"},
		{"h3.hist", checker.Sequential, 2, 0, "A:w(1) comes before A:r(0) in process A's order, yet the read returned 0"},
	}
	cores := 0
	for _, h := range rep.Histories {
		for _, r := range h.Results {
			for i, v := range r.Violations {
				if v.Core == nil {
					continue
				}
				cores++
				if i != 0 {
					t.Errorf("%s %s: core on violation %d, want only the first", h.File, r.Consistency, i)
				}
				found := false
				for _, w := range wants {
					if filepath.Base(h.File) != w.file || r.Consistency != w.crit {
						continue
					}
					found = true
					if len(v.Core.Ops) != w.ops || len(v.Core.Weakened) != w.weak || !v.Core.Minimal {
						t.Errorf("%s %s: core %d ops + %d weakened (minimal %v), want %d + %d",
							w.file, w.crit, len(v.Core.Ops), len(v.Core.Weakened), v.Core.Minimal, w.ops, w.weak)
					}
					if !strings.HasPrefix(v.Core.Explanation, w.story) {
						t.Errorf("%s %s: explanation %q, want it to begin %q", w.file, w.crit, v.Core.Explanation, w.story)
					}
					if !strings.Contains(v.Core.Timeline, "|==") {
						t.Errorf("%s %s: timeline %q", w.file, w.crit, v.Core.Timeline)
					}
				}
				if !found {
					t.Errorf("unexpected core on %s %s", h.File, r.Consistency)
				}
			}
		}
	}
	if cores != len(wants) {
		t.Errorf("%d cores, want %d", cores, len(wants))
	}

	// --no-core leaves them out.
	out.Reset()
	Main([]string{"check", "-o", "json", "--no-core", h2}, nil, &out, &errb)
	if strings.Contains(out.String(), `"core"`) {
		t.Errorf("--no-core still reports a core:\n%s", out.String())
	}
}

func TestCoresInText(t *testing.T) {
	_, h2, h3 := textbookFiles(t)
	var out, errb bytes.Buffer
	Main([]string{"check", "-c", "linearizable,sequential", h2, h3}, nil, &out, &errb)
	text := out.String()
	for _, want := range []string{
		"      core: B:r(1), C:r(0); weakened: A:w(1)\n",
		"        A |==== w(1) ====",
		"      B:r(1) read the new value 1 and finished at 4, before C:r(0) began at 6; yet\n",
		"      core: A:w(1), A:r(0)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\n      - ") {
		t.Errorf("facts printed without -v:\n%s", text)
	}
	out.Reset()
	Main([]string{"check", "-v", h2}, nil, &out, &errb)
	if !strings.Contains(out.String(), "      - A:w(1) (recorded [0, 10]) is weakened: kept only with unknown outcome") {
		t.Errorf("-v prints no facts:\n%s", out.String())
	}
}

func TestJUnitOutput(t *testing.T) {
	h1, h2, h3 := textbookFiles(t)
	var out, errb bytes.Buffer
	code := Main([]string{"check", "-o", "junit", "-c", "linearizable,sequential", h1, h2, h3}, nil, &out, &errb)
	if code != int(ExitInvalid) {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out.String())
	}
	if doc.Tests != 6 || doc.Failures != 3 || len(doc.Suites) != 3 {
		t.Fatalf("tests %d failures %d suites %d, want 6, 3, 3", doc.Tests, doc.Failures, len(doc.Suites))
	}
	if f := doc.Suites[1].Cases[0].Failure; f == nil || !strings.HasPrefix(f.Message, "B:r(1) read the new value 1") {
		t.Errorf("h2 linearizable failure = %+v", f)
	}
}

func TestHTMLFile(t *testing.T) {
	_, h2, _ := textbookFiles(t)
	page := filepath.Join(t.TempDir(), "report.html")
	var out, errb bytes.Buffer
	code := Main([]string{"check", "--html", page, "-c", "linearizable,sequential", h2}, nil, &out, &errb)
	if code != int(ExitInvalid) {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", `"label":["A:w(1)","B:r(1)","C:r(0)"]`, `"story":"B:r(1) read the new value 1`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if !strings.Contains(out.String(), "h2.hist\tlinearizable\tfalse") {
		t.Errorf("--html changed the text output:\n%s", out.String())
	}
	// A page that cannot be written is an error, after the verdicts.
	code = Main([]string{"check", "--html", filepath.Join(t.TempDir(), "no", "such", "dir.html"), h2}, nil, &out, &errb)
	if code != int(ExitError) || !strings.Contains(errb.String(), "writing the web page") {
		t.Errorf("unwritable page: exit %d, stderr %q", code, errb.String())
	}
}

// TestProgress checks the progress line on a stand-in terminal: nothing
// within the delay, then the line, erased at the end.
func TestProgress(t *testing.T) {
	var buf syncBuffer
	p := &progress{w: &buf, delay: 20 * time.Millisecond, tick: 10 * time.Millisecond}
	stop := p.start("checking x.edn (linearizable)")
	stop()
	if buf.String() != "" {
		t.Errorf("a quick check printed %q", buf.String())
	}
	stop = p.start("checking y.edn (linearizable)")
	time.Sleep(60 * time.Millisecond)
	stop()
	stop() // a second stop does nothing
	got := buf.String()
	if !strings.HasPrefix(got, "\r\033[Kchecking y.edn (linearizable) … 0s") || !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("progress wrote %q", got)
	}
	var none *progress
	none.start("nothing")() // no terminal: nothing happens
	if newProgress(&bytes.Buffer{}) != nil {
		t.Error("progress on a buffer, which is no terminal")
	}
}

// syncBuffer is a bytes.Buffer safe for the progress goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
