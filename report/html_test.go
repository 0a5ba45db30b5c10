package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/corpus"
	"github.com/histcheck/histcheck/model"
)

// pageData extracts and decodes the page's data blob.
func pageData(t *testing.T, page string) htmlData {
	t.Helper()
	const open = `<script id="histcheck-data" type="application/json">`
	i := strings.Index(page, open)
	if i < 0 {
		t.Fatal("page has no data blob")
	}
	rest := page[i+len(open):]
	j := strings.Index(rest, "</script>")
	if j < 0 {
		t.Fatal("data blob is not closed")
	}
	var d htmlData
	if err := json.Unmarshal([]byte(rest[:j]), &d); err != nil {
		t.Fatalf("data blob: %v", err)
	}
	return d
}

// TestHTMLPage checks the page without a browser: it is self-contained,
// its data names every operation once, and the witness, the violation and
// the core point at the right bars.
func TestHTMLPage(t *testing.T) {
	cs := checkers(register0)
	rep := &Report{Histories: []History{
		checked(t, "h2.hist", "register", textbook(t, "h2"), cs, checker.Linearizable, checker.Sequential),
	}}
	rep.Finish()
	var buf bytes.Buffer
	if err := HTML(&buf, rep); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"http://", "https://", "src=", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("page refers outside itself: contains %q", bad)
		}
	}
	d := pageData(t, page)
	if d.Valid != "false" || len(d.Histories) != 1 {
		t.Fatalf("data: valid %q, %d histories", d.Valid, len(d.Histories))
	}
	h := d.Histories[0]
	if got := strings.Join(h.Ops.Label, " "); got != "A:w(1) B:r(1) C:r(0)" {
		t.Errorf("bars = %s", got)
	}
	if len(h.Lanes) != 3 || h.Ops.Ret[0] != 10 || h.T0 != "0" {
		t.Errorf("lanes %v, ret %v, t0 %s", h.Lanes, h.Ops.Ret, h.T0)
	}
	lin, seq := h.Results[0], h.Results[1]
	if fmt.Sprint(seq.Witness) != "[2 0 1]" {
		t.Errorf("sequential witness bars = %v, want [2 0 1] (C, A, B)", seq.Witness)
	}
	c := lin.Violations[0].Core
	if c == nil || fmt.Sprint(c.Ops) != "[1 2]" || fmt.Sprint(c.Weakened) != "[0]" || !strings.HasPrefix(c.Story, "B:r(1) read the new value 1") {
		t.Errorf("core = %+v", c)
	}
}

// TestHTMLEscapes checks that markup in the input cannot break out of the
// page: a label holding a closing script tag stays data.
func TestHTMLEscapes(t *testing.T) {
	h, err := history.FromOps([]history.Op{{Client: "</script><b>x", F: "write", Value: history.StringValue("</script>"),
		Call: 0, Return: 1, Status: history.OK}})
	if err != nil {
		t.Fatal(err)
	}
	hr := NewHistory("<i>.hist", "register", h)
	rep := &Report{Histories: []History{hr}}
	rep.Finish()
	var buf bytes.Buffer
	if err := HTML(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "</script>"); n != 3 {
		t.Errorf("page has %d closing script tags, want the 3 of its own", n)
	}
	if d := pageData(t, buf.String()); d.Histories[0].Ops.Label[0] != h.Ops[0].Label() || d.Histories[0].File != "<i>.hist" {
		t.Errorf("data = %+v", d.Histories[0])
	}
}

// TestHTMLDecodedReport checks the page of a report read back from JSON,
// which has no history at hand: the operations the results name are drawn.
func TestHTMLDecodedReport(t *testing.T) {
	rep := &Report{Histories: []History{
		checked(t, "h2.hist", "register", textbook(t, "h2"), checkers(register0), checker.Linearizable, checker.Sequential),
	}}
	rep.Finish()
	var js bytes.Buffer
	if err := JSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	back := decodeStrict(t, js.Bytes())
	var buf bytes.Buffer
	if err := HTML(&buf, &back); err != nil {
		t.Fatal(err)
	}
	h := pageData(t, buf.String()).Histories[0]
	if len(h.Ops.Label) != 3 || len(h.Lanes) != 3 {
		t.Fatalf("bars %v lanes %v", h.Ops.Label, h.Lanes)
	}
	w := h.Results[1].Witness
	if got := h.Ops.Label[w[0]] + " " + h.Ops.Label[w[1]] + " " + h.Ops.Label[w[2]]; got != "C:r(0) A:w(1) B:r(1)" {
		t.Errorf("witness = %s", got)
	}
}

// bigHistory generates a linearizable register history of n operations
// over 10 processes: writes of fresh values and reads of the value at
// their linearization point, some writes failed, the last operation of a
// few processes of unknown outcome.
func bigHistory(t testing.TB, n int, seed int64) *history.History {
	rng := rand.New(rand.NewSource(seed))
	type gen struct {
		op history.Op
		lp float64
	}
	var gs []gen
	const procs = 10
	for p := 0; p < procs; p++ {
		t0 := int64(p)
		for k := 0; k < n/procs; k++ {
			call := t0 + int64(rng.Intn(4))
			ret := call + 1 + int64(rng.Intn(9))
			o := history.Op{Client: strconv.Itoa(p), Call: call, Return: ret, Status: history.OK, F: "read"}
			if rng.Intn(3) == 0 {
				o.F, o.Value = "write", history.IntValue(int64(len(gs)+1))
				if rng.Intn(20) == 0 {
					o.Status = history.Fail
				}
			}
			if k == n/procs-1 && p%3 == 0 {
				o.F, o.Value, o.Status, o.Return = "write", history.IntValue(int64(len(gs)+1)), history.Info, history.Infinity
			}
			gs = append(gs, gen{o, float64(call) + rng.Float64()*float64(ret-call)})
			t0 = ret + 1
		}
	}
	order := make([]int, len(gs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return gs[order[a]].lp < gs[order[b]].lp })
	cur := int64(0)
	for _, i := range order {
		o := &gs[i].op
		switch {
		case o.F == "read":
			o.Value = history.IntValue(cur)
		case o.Status == history.OK:
			cur, _ = o.Value.Int()
		}
	}
	ops := make([]history.Op, len(gs))
	for i := range gs {
		ops[i] = gs[i].op
		ops[i].Index = int64(i)
	}
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// browser finds a Chromium, or skips the test.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium in PATH (chromium, chromium-browser or google-chrome); the HTML report is not rendered")
	return ""
}

// rendered is what the browser made of a page.
type rendered struct {
	body   map[string]string // the body element's data- attributes
	dom    string            // the DOM once the script has run
	stderr string
	shot   string // screenshot file
	w, h   int    // the window's size
}

var bodyAttr = regexp.MustCompile(`data-([a-z-]+)="([^"]*)"`)

// render loads a page in headless Chromium, takes a screenshot and returns
// the DOM's body attributes once the page's script has run.
func render(t *testing.T, bin string, page []byte, name string) rendered {
	t.Helper()
	return renderSized(t, bin, page, name, 1400, 900)
}

// renderSized is render in a window of w by h pixels, with Chromium's
// further flags.
func renderSized(t *testing.T, bin string, page []byte, name string, w, h int, flags ...string) rendered {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, name+".html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, name+".png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// One process and no zygote: the browser then starts and exits in a
	// few seconds, where the usual process tree lingers at shutdown.
	args := append([]string{"--headless", "--no-sandbox", "--single-process", "--no-zygote",
		"--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-breakpad", "--disable-extensions",
		"--user-data-dir=" + filepath.Join(dir, "profile"), fmt.Sprintf("--window-size=%d,%d", w, h),
		"--enable-logging=stderr", "--v=0"}, flags...)
	args = append(args, "--screenshot="+shot, "--dump-dom", "file://"+file)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(stderr.String(), 3000))
	}
	body := regexp.MustCompile(`<body[^>]*>`).FindString(stdout.String())
	if body == "" {
		t.Fatalf("no body in the rendered DOM:\n%s", tail(stdout.String(), 2000))
	}
	r := rendered{body: map[string]string{}, dom: stdout.String(), stderr: stderr.String(), shot: shot, w: w, h: h}
	for _, m := range bodyAttr.FindAllStringSubmatch(body, -1) {
		r.body[m[1]] = m[2]
	}
	if keep := os.Getenv("HISTCHECK_SCREENSHOTS"); keep != "" {
		if b, err := os.ReadFile(shot); err == nil {
			_ = os.WriteFile(filepath.Join(keep, name+".png"), b, 0o644)
		}
	}
	return r
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// consoleErrors finds the script errors Chromium logged.
func consoleErrors(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "CONSOLE") && (strings.Contains(line, "Uncaught") || strings.Contains(line, "Error")) {
			out = append(out, line)
		}
	}
	return out
}

// checkRender asserts a clean load: the script ran to the end without
// errors, every operation is a bar, some were drawn, and the screenshot is
// a picture of the window size with more than one colour.
func checkRender(t *testing.T, r rendered, bars, highlighted int) {
	t.Helper()
	if errs := consoleErrors(r.stderr); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	if r.body["ready"] != "1" || r.body["errors"] != "0" {
		t.Fatalf("page script did not finish cleanly: body %v", r.body)
	}
	if r.body["bars"] != strconv.Itoa(bars) {
		t.Errorf("bars = %s, want %d", r.body["bars"], bars)
	}
	if r.body["highlighted"] != strconv.Itoa(highlighted) {
		t.Errorf("highlighted = %s, want %d", r.body["highlighted"], highlighted)
	}
	if n, _ := strconv.Atoi(r.body["drawn"]); n <= 0 || n > bars {
		t.Errorf("drawn = %s, want between 1 and %d", r.body["drawn"], bars)
	}
	f, err := os.Open(r.shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	b := img.Bounds()
	if b.Dx() != r.w || b.Dy() != r.h {
		t.Errorf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), r.w, r.h)
	}
	colours := map[uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[r>>8<<16|g>>8<<8|bl>>8] = true
		}
	}
	if len(colours) < 10 {
		t.Errorf("screenshot has %d colours: blank?", len(colours))
	}
}

// TestHTMLInChromium renders reports in headless Chromium: H1–H3, the
// corpus's rethink-fail (with its 23-operation core highlighted), and a
// generated history of 10,000 operations.
func TestHTMLInChromium(t *testing.T) {
	bin := browser(t)
	t.Run("textbook", func(t *testing.T) {
		t.Parallel()
		rep := &Report{}
		for _, n := range []string{"h1", "h2", "h3"} {
			rep.Histories = append(rep.Histories,
				checked(t, n+".hist", "register", textbook(t, n), checkers(register0), checker.Linearizable, checker.Sequential))
		}
		rep.Finish()
		var buf bytes.Buffer
		if err := HTML(&buf, rep); err != nil {
			t.Fatal(err)
		}
		// The page opens on H2, the first history with a violation, with
		// its core highlighted.
		r := render(t, bin, buf.Bytes(), "textbook")
		checkRender(t, r, 3, 3)
		if r.body["bars-total"] != "8" {
			t.Errorf("bars-total = %s, want 8", r.body["bars-total"])
		}
	})
	t.Run("rethink-fail", func(t *testing.T) {
		t.Parallel()
		dir := corpus.Dir(t)
		h, err := format.ReadFile(filepath.Join(dir, "knossos", "cas-register", "bad", "rethink-fail.edn"), "")
		if err != nil {
			t.Fatal(err)
		}
		cas := func() model.Model[int64] {
			return model.NewCASRegister(model.Options{Init: history.IntValue(0), NilRead: model.NilIsAny})
		}
		hr := checked(t, "rethink-fail.edn", "cas-register", h, checkers(cas), checker.Linearizable)
		core := hr.Results[0].Violations[0].Core
		rep := &Report{Histories: []History{hr}}
		rep.Finish()
		var buf bytes.Buffer
		if err := HTML(&buf, rep); err != nil {
			t.Fatal(err)
		}
		checkRender(t, render(t, bin, buf.Bytes(), "rethink-fail"), len(h.Ops), core.Size())
	})
	t.Run("10000-ops", func(t *testing.T) {
		t.Parallel()
		h := bigHistory(t, 10000, 1)
		hr := checked(t, "big.json", "register", h, checkers(register0), checker.Linearizable)
		if hr.Results[0].Valid != checker.True || len(hr.Results[0].Witness) < 9000 {
			t.Fatalf("generated history: %v with %d witness steps", hr.Results[0].Valid, len(hr.Results[0].Witness))
		}
		rep := &Report{Histories: []History{hr}}
		rep.Finish()
		var buf bytes.Buffer
		if err := HTML(&buf, rep); err != nil {
			t.Fatal(err)
		}
		checkRender(t, render(t, bin, buf.Bytes(), "big"), 10000, 0)
	})
}

// TestHTMLLaneNames checks that lanes are named by client as the input
// names it, also for a client that continued after an operation of
// unknown outcome: two lanes of the same name, and no made-up name.
func TestHTMLLaneNames(t *testing.T) {
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "write", Value: history.IntValue(1), Call: 0, Return: history.Infinity, Status: history.Info},
		{Client: "A", F: "read", Value: history.IntValue(1), Call: 2, Return: 3, Status: history.OK},
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := &Report{Histories: []History{NewHistory("a.hist", "register", h)}}
	rep.Finish()
	var buf bytes.Buffer
	if err := HTML(&buf, rep); err != nil {
		t.Fatal(err)
	}
	lanes := pageData(t, buf.String()).Histories[0].Lanes
	if len(lanes) != 2 || lanes[0].Name != "A" || lanes[1].Name != "A" || lanes[1].Client != "A" {
		t.Errorf("lanes %+v", lanes)
	}
}
