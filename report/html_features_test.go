package report

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
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

// anomalyReport checks readSkew as check.Run does for the command line.
func anomalyReport(t *testing.T) History {
	t.Helper()
	file := filepath.Join(t.TempDir(), "read-skew.edn")
	if err := os.WriteFile(file, []byte(readSkew), 0o644); err != nil {
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

// TestHTMLDebuggingInChromium renders what people debugging a run look
// at: a transactional anomaly's cycle drawn, the model's state after each
// step of a failing check's longest legal order, a lane per key, long
// labels cut with their full text on hover, and a side panel that stays
// in the window, also a narrow one.
func TestHTMLDebuggingInChromium(t *testing.T) {
	bin := browser(t)
	t.Run("anomaly", func(t *testing.T) {
		t.Parallel()
		hr := anomalyReport(t)
		rep := &Report{Histories: []History{hr}}
		rep.Finish()
		var buf bytes.Buffer
		if err := HTML(&buf, rep); err != nil {
			t.Fatal(err)
		}
		r := render(t, bin, buf.Bytes(), "anomaly")
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
	})
	t.Run("register-steps", func(t *testing.T) {
		t.Parallel()
		h := keyedHistory(t)
		hr := checked(t, "kv.edn", "kv", h, checkers(kv), checker.Linearizable)
		v := hr.Results[0].Violations[0]
		if v.steps == nil || len(v.steps.ops) == 0 || len(v.steps.states) != len(v.steps.ops) {
			t.Fatalf("violation without its longest legal order and states: %+v", v.steps)
		}
		rep := &Report{Histories: []History{hr}}
		rep.Finish()
		var buf bytes.Buffer
		if err := HTML(&buf, rep); err != nil {
			t.Fatal(err)
		}
		r := render(t, bin, buf.Bytes(), "steps")
		checkRender(t, r, len(h.Ops), v.Core.Size())
		n := fmt.Sprint(len(v.steps.ops))
		if r.body["steps"] != n || r.body["states"] != n {
			t.Errorf("steps %s with states %s, want %s of each", r.body["steps"], r.body["states"], n)
		}
		// The state after the last step is shown in full: key b's value.
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
	})
	t.Run("narrow", func(t *testing.T) {
		t.Parallel()
		hr := checked(t, "kv.edn", "kv", keyedHistory(t), checkers(kv), checker.Linearizable)
		rep := &Report{Histories: []History{hr}}
		rep.Finish()
		var buf bytes.Buffer
		if err := HTML(&buf, rep); err != nil {
			t.Fatal(err)
		}
		r := renderNarrow(t, bin, buf.Bytes(), "narrow", 320, 640)
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
	})
}

// renderNarrow renders page in a frame of w by h pixels, for windows
// narrower than the 500 pixels headless Chromium keeps at least: the
// frame's document is the page, and its body's attributes are copied to
// the body of the document around it once it has loaded.
func renderNarrow(t *testing.T, bin string, page []byte, name string, w, h int) rendered {
	t.Helper()
	outer := fmt.Sprintf(`<!DOCTYPE html><html><body style="margin:0">`+
		`<iframe id="f" style="border:0;width:%dpx;height:%dpx" srcdoc="%s"></iframe>`+
		`<script>var f = document.getElementById("f");`+
		`f.addEventListener("load", function () { var b = f.contentDocument.body;`+
		`for (var i = 0; i < b.attributes.length; i++) document.body.setAttribute(b.attributes[i].name, b.attributes[i].value); });`+
		`</script></body></html>`, w, h, html.EscapeString(string(page)))
	return renderSized(t, bin, []byte(outer), name, 800, 800)
}
