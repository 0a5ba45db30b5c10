package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// readSkew is a list-append history with read skew: T2 reads T1's
// append to x but not its append to y, which T3 then reads. Its smallest
// cycle is T1 -wr-> T2 -rw-> T1 (G-single).
const readSkew = `{:process 0, :type :invoke, :f :txn, :value [[:append :x 1] [:append :y 1]]}
{:process 0, :type :ok, :f :txn, :value [[:append :x 1] [:append :y 1]]}
{:process 1, :type :invoke, :f :txn, :value [[:r :x nil] [:r :y nil]]}
{:process 1, :type :ok, :f :txn, :value [[:r :x [1]] [:r :y nil]]}
{:process 2, :type :invoke, :f :txn, :value [[:r :y nil] [:r :x nil]]}
{:process 2, :type :ok, :f :txn, :value [[:r :y [1]] [:r :x [1]]]}
`

// anomalyReport checks a list-append history (readSkew, or one like it)
// for serializability as check.Run does for the command line.
func anomalyReport(t *testing.T, text string) History {
	t.Helper()
	file := filepath.Join(t.TempDir(), "read-skew.edn")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := format.ReadFile(file, "")
	if err != nil {
		t.Fatal(err)
	}
	o, err := check.Run(context.Background(), h, check.Request{Model: "list-append", Criteria: []string{"serializable"}})
	if err != nil {
		t.Fatal(err)
	}
	hr := NewHistoryOf("read-skew.edn", h, o)
	if len(hr.Results) != 1 || hr.Results[0].Valid != checker.False || len(hr.Results[0].Violations) == 0 ||
		len(hr.Results[0].Violations[0].Cycle) < 2 {
		t.Fatalf("read skew: %+v", hr.Results)
	}
	return hr
}

// longValue is a value whose labels the page must cut.
var longValue = strings.Repeat("v", 90)

// keyedHistory is a kv history of appends and reads on three keys by
// four clients, one after another, whose last read of key b returns
// longValue, which was never appended.
func keyedHistory(t *testing.T) *history.History {
	t.Helper()
	var ops []history.Op
	state := map[string]string{}
	now := int64(0)
	for i := 0; i < 24; i++ {
		key := string(rune('a' + i%3))
		c := history.Op{Client: fmt.Sprintf("c%d", i%4), Key: history.StringValue(key), Call: now, Return: now + 2, Status: history.OK}
		if i%2 == 0 {
			c.F, c.Value = "append", history.StringValue(fmt.Sprintf("%d", i))
			state[key] += fmt.Sprintf("%d", i)
		} else {
			c.F, c.Value = "get", history.StringValue(state[key])
		}
		ops = append(ops, c)
		now += 3
	}
	ops = append(ops, history.Op{Client: "c1", Key: history.StringValue("b"), F: "get", Value: history.StringValue(longValue),
		Call: now, Return: now + 2, Status: history.OK})
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func kv() model.Model[int64] {
	return model.NewKV(model.Options{Init: history.StringValue("")})
}

// domAttr counts the elements of dom whose opening tag matches re.
func domCount(dom, re string) int {
	return len(regexp.MustCompile(re).FindAllString(dom, -1))
}

// pageOf renders reports of histories as the page.
func pageOf(t *testing.T, hrs ...History) []byte {
	t.Helper()
	rep := &Report{Histories: hrs}
	rep.Finish()
	var buf bytes.Buffer
	if err := HTML(&buf, rep); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestHTMLDebuggingInChromium renders what people debugging a run look
// at: a transactional anomaly's cycle drawn, the model's state after each
// step of a failing check's longest legal order, a lane per key, long
// labels cut with their full text on hover, and a side panel that stays
// in the window, also a narrow one.
func TestHTMLDebuggingInChromium(t *testing.T) {
	bin := browser(t)
	t.Run("anomaly", func(t *testing.T) { t.Parallel(); anomalyPage(t, bin) })
	t.Run("steps-and-keys", func(t *testing.T) { t.Parallel(); stepsPage(t, bin) })
	t.Run("narrow", func(t *testing.T) { t.Parallel(); narrowPage(t, bin) })
	t.Run("annotations", func(t *testing.T) { t.Parallel(); annotationsPage(t, bin) })
	t.Run("unread", func(t *testing.T) { t.Parallel(); unreadPage(t, bin) })
}

// unreadPage checks the page of a file that could not be read, which has
// no operation: its script finishes cleanly and says why.
func unreadPage(t *testing.T, bin string) {
	o := check.Refused(check.Request{Model: "register"}, nil, errors.New("gone.edn: cannot open"))
	r := render(t, bin, pageOf(t, NewHistoryOf("gone.edn", nil, o)), "unread")
	if errs := consoleErrors(r.stderr); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	if r.body["ready"] != "1" || r.body["errors"] != "0" || r.body["bars"] != "0" {
		t.Fatalf("page script did not finish cleanly with no bar: body %v", r.body)
	}
	if !strings.Contains(r.dom, "cannot open") {
		t.Errorf("the page does not say why the file was not checked")
	}
}

// annotationsPage checks a caller's annotations: each drawn on the
// timeline in its lane, below the operations' lanes, and listed with its
// details, as text (markup in it is shown, never run).
func annotationsPage(t *testing.T, bin string) {
	hr := checked(t, "h2.hist", "register", textbook(t, "h2"), checkers(register0), checker.Linearizable)
	first := hr.Source.Ops[0].Call
	hr.Annotations = []Annotation{
		{Lane: "servers", Start: first, End: first + 2, Label: "leader <b>changed</b>", Details: "term 3 <script>x</script>",
			Background: "#abcdef", Color: "#123456"},
		{Lane: "servers", Start: first + 3, End: first + 1, Label: "partition healed"},
		{Lane: "disk", Start: first + 1, End: first + 1, Label: "fsync", Background: "not a colour"},
	}
	r := render(t, bin, pageOf(t, hr), "annotations")
	checkRender(t, r, len(hr.Source.Ops), hr.Results[0].Violations[0].Core.Size())
	if r.body["notes"] != "3" || r.body["notes-drawn"] != "3" {
		t.Errorf("annotations listed %s and drawn %s, want 3 of each", r.body["notes"], r.body["notes-drawn"])
	}
	if want := hr.Processes + 2; r.body["lanes"] != strconv.Itoa(want) {
		t.Errorf("lanes %s, want %d (the processes' and two of annotations)", r.body["lanes"], want)
	}
	for _, want := range []string{">leader &lt;b&gt;changed&lt;/b&gt;<", "term 3 &lt;script&gt;x&lt;/script&gt;", ">partition healed<", ">fsync<"} {
		if !strings.Contains(r.dom, want) {
			t.Errorf("the side panel does not show %s", want)
		}
	}
}

// anomalyPage checks the drawing of a G-single cycle: its transactions,
// an edge of each dependency's type, and the cycle in words.
func anomalyPage(t *testing.T, bin string) {
	hr := anomalyReport(t, readSkew)
	r := render(t, bin, pageOf(t, hr), "anomaly")
	checkRender(t, r, 3, len(hr.Results[0].Violations[0].Ops))
	cycle := hr.Results[0].Violations[0].Cycle
	if r.body["cycles"] != "1" || r.body["cycle-edges"] != fmt.Sprint(len(cycle)) {
		t.Errorf("cycles %s with %s edges, want 1 with %d", r.body["cycles"], r.body["cycle-edges"], len(cycle))
	}
	for _, d := range cycle {
		if !strings.Contains(r.dom, `data-type="`+d.Type+`"`) {
			t.Errorf("no %s edge drawn", d.Type)
		}
	}
	if n := domCount(r.dom, `<g class="txn"`); n != 2 {
		t.Errorf("%d transactions drawn, want 2", n)
	}
	if !strings.Contains(r.dom, "[append x 1]") || !strings.Contains(r.dom, "because") {
		t.Errorf("the cycle's micro-operations or its steps in words are missing")
	}
	if r.body["side-fits"] != "1" {
		t.Errorf("side panel outside the window: %s", r.body["side-box"])
	}
}

// stepsPage checks a kv history that fails linearizability: a step per
// operation of the longest legal order with the state after it, the
// last state in full, a lane per key, and the long label cut.
func stepsPage(t *testing.T, bin string) {
	h := keyedHistory(t)
	hr := checked(t, "kv.edn", "kv", h, checkers(kv), checker.Linearizable)
	v := hr.Results[0].Violations[0]
	if v.steps == nil || len(v.steps.ops) == 0 || len(v.steps.states) != len(v.steps.ops) {
		t.Fatalf("violation without its longest legal order and states: %+v", v.steps)
	}
	r := render(t, bin, pageOf(t, hr), "steps")
	checkRender(t, r, len(h.Ops), v.Core.Size())
	n := fmt.Sprint(len(v.steps.ops))
	if r.body["steps"] != n || r.body["states"] != n {
		t.Errorf("steps %s with states %s, want %s of each", r.body["steps"], r.body["states"], n)
	}
	last := v.steps.states[len(v.steps.states)-1]
	if !strings.Contains(r.dom, `<pre class="state">`+html.EscapeString(last)+`</pre>`) {
		t.Errorf("the state after the last step (%s) is not shown", last)
	}
	if r.body["lanes"] != "3" || r.body["lanes-by"] != "key" {
		t.Errorf("lanes %s by %s, want 3 by key", r.body["lanes"], r.body["lanes-by"])
	}
	full := h.Ops[len(h.Ops)-1].Label()
	if !strings.Contains(r.dom, `title="`+full) || strings.Contains(r.dom, ">"+full+"<") {
		t.Errorf("the long label %s is not cut with its full text as title", full)
	}
	if r.body["truncated"] == "0" || r.body["truncated"] == "" {
		t.Errorf("no label cut with a title")
	}
	if r.body["side-fits"] != "1" {
		t.Errorf("side panel outside the window: %s", r.body["side-box"])
	}
}

// narrowPage checks that the side panel stays in a window 320 pixels
// wide, where a panel of fixed width beside the timeline would not.
func narrowPage(t *testing.T, bin string) {
	hr := checked(t, "kv.edn", "kv", keyedHistory(t), checkers(kv), checker.Linearizable)
	r := renderNarrow(t, bin, pageOf(t, hr), "narrow", 320, 640)
	if errs := consoleErrors(r.stderr); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	if r.body["ready"] != "1" || r.body["errors"] != "0" {
		t.Fatalf("page script did not finish cleanly: body %v", r.body)
	}
	if r.body["side-fits"] != "1" {
		t.Errorf("side panel outside the window: %s (left top right bottom, window width and height)", r.body["side-box"])
	}
	if w := strings.Fields(r.body["side-box"]); len(w) != 6 || w[4] != "320" {
		t.Errorf("window is not 320 pixels wide: %s", r.body["side-box"])
	}
}

// renderNarrow renders page in a frame of w by h pixels, for windows
// narrower than the 500 pixels headless Chromium keeps at least: the
// frame's document is the page, and its body's attributes are copied to
// the body of the document around it once it has loaded.
func renderNarrow(t *testing.T, bin string, page []byte, name string, w, h int) rendered {
	t.Helper()
	// The frame's own load handler copies them, in place before it
	// starts loading, so that it cannot load unseen.
	outer := fmt.Sprintf(`<!DOCTYPE html><html><body style="margin:0">`+
		`<script>function copyFrame(f) { var b = f.contentDocument.body;`+
		`for (var i = 0; i < b.attributes.length; i++) document.body.setAttribute(b.attributes[i].name, b.attributes[i].value); }</script>`+
		`<iframe id="f" onload="copyFrame(this)" style="border:0;width:%dpx;height:%dpx" srcdoc="%s"></iframe>`+
		`</body></html>`, w, h, html.EscapeString(string(page)))
	return renderSized(t, bin, []byte(outer), name, 800, 800)
}

// TestHTMLStepsData checks the page's longest legal order: the last
// maxPageSteps steps, their states aligned with them, long states cut
// and counted, and the operation that could not follow.
func TestHTMLStepsData(t *testing.T) {
	n := maxPageSteps + 50
	var ops []history.Op
	for i := range n + 1 {
		ops = append(ops, history.Op{Client: "A", F: "write", Value: history.IntValue(int64(i)),
			Call: int64(2 * i), Return: int64(2*i + 1), Status: history.OK})
	}
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	prefix := make([]int, n)
	for i := range prefix {
		prefix[i] = i
	}
	states := make([]string, 600) // the checker kept fewer states than the page shows steps
	for i := range states {
		states[i] = fmt.Sprint(n - len(states) + i)
	}
	states[len(states)-1] = strings.Repeat("s", maxPageStateChars+10)
	v := checker.Violation{Ops: []int{n}, Prefix: prefix, States: states,
		Stuck: []checker.Stuck{{Op: n, Said: "the state is full", State: true}}}
	hr := NewHistory("w.hist", "register", h)
	hr.Results = append(hr.Results, NewResult(h, checker.Result{Criterion: checker.Linearizable, Valid: checker.False,
		Violations: []checker.Violation{v}}))
	st := pageData(t, string(pageOf(t, hr))).Histories[0].Results[0].Violations[0].Steps
	switch {
	case st == nil:
		t.Fatal("no steps")
	case st.Total != n || len(st.Ops) != maxPageSteps || st.Ops[0] != n-maxPageSteps || st.Ops[len(st.Ops)-1] != n-1:
		t.Errorf("steps: total %d, %d shown from %d", st.Total, len(st.Ops), st.Ops[0])
	case len(st.States) != len(states) || st.StatesFrom != maxPageSteps-len(states) || st.States[0] != states[0]:
		t.Errorf("states: %d from step %d, first %q", len(st.States), st.StatesFrom, st.States[0])
	case st.StatesCut != 1 || len([]rune(st.States[len(st.States)-1])) != maxPageStateChars:
		t.Errorf("states cut: %d, last %d characters", st.StatesCut, len([]rune(st.States[len(st.States)-1])))
	case st.Stuck != n || st.Said != "illegal in state the state is full":
		t.Errorf("stuck %d: %q", st.Stuck, st.Said)
	}
}

// TestHTMLCycleData checks the page's cycle of a transactional anomaly:
// a node per transaction with its micro-operations, an edge per
// dependency, and markup from the input kept as data.
func TestHTMLCycleData(t *testing.T) {
	hr := anomalyReport(t, readSkew)
	c := pageData(t, string(pageOf(t, hr))).Histories[0].Results[0].Violations[0].Cycle
	if c == nil || len(c.Nodes) != 2 || len(c.Edges) != 2 {
		t.Fatalf("cycle = %+v", c)
	}
	if got := strings.Join(c.Nodes[0].Mops, " "); got != "[append x 1] [append y 1]" || c.Nodes[0].Bar != 0 {
		t.Errorf("T1: bar %d, micro-operations %s", c.Nodes[0].Bar, got)
	}
	if e := c.Edges[0]; e.From != 0 || e.To != 1 || e.Type != "wr" || e.Detail != "x: 1" {
		t.Errorf("first edge = %+v", e)
	}
	if e := c.Edges[1]; e.From != 1 || e.To != 0 || e.Type != "rw" || e.Detail != "y: init → 1" {
		t.Errorf("second edge = %+v", e)
	}

	// Markup in a key stays data: the blob escapes it.
	page := string(pageOf(t, anomalyReport(t, strings.ReplaceAll(readSkew, ":y", `"</script><b>y"`))))
	if n := strings.Count(page, "</script>"); n != 3 {
		t.Errorf("page has %d closing script tags, want the 3 of its own", n)
	}
	c = pageData(t, page).Histories[0].Results[0].Violations[0].Cycle
	if c == nil || !strings.Contains(c.Edges[1].Detail, "</script><b>y") {
		t.Errorf("cycle with markup in a key = %+v", c)
	}
}

// TestHTMLKeys checks the keys the page groups lanes by: one per
// operation of a keyed history, none for a history without keys.
func TestHTMLKeys(t *testing.T) {
	h := keyedHistory(t)
	d := pageData(t, string(pageOf(t, NewHistory("kv.edn", "kv", h), NewHistory("h2.hist", "register", textbook(t, "h2")))))
	keys := map[string]int{}
	for _, k := range d.Histories[0].Ops.Key {
		keys[k]++
	}
	if len(d.Histories[0].Ops.Key) != len(h.Ops) || len(keys) != 3 || keys["b"] != 9 {
		t.Errorf("keys %v", keys)
	}
	if d.Histories[1].Ops.Key != nil {
		t.Errorf("keys of a history without keys: %v", d.Histories[1].Ops.Key)
	}
}
