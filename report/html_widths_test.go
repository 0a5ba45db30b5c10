package report

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image"
	"image/draw"
	"image/png"
	"math"
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
)

// widthPage is a report page and what a person must see on it first.
type widthPage struct {
	name string
	// report builds the page's one history; it may skip the test.
	report func(t *testing.T) History
	// numbersBy is what must number the bars: "none", "steps" (the
	// violation's longest legal order) or "cycle" (T1, T2, …).
	numbersBy string
	// dim says some operations outside the violation are drawn.
	dim bool
}

// TestHTMLWidthsInChromium opens pages as a person debugging a failure
// does, in a window 1,400 pixels wide and in one 400 pixels wide: the
// violation's explanation comes first in the side panel and is in view,
// the violation's operations are in view, the bars are numbered as the
// violation shown numbers them (never by another criterion's witness),
// the numbers on the bars are those the side panel gives, the other
// operations stay readable, the side panel draws no text chart and states
// no fact of the core beyond its story, and the page does not reach past
// the window's width. All the pages open in one browser run, each in a
// frame of its width, as starting a browser costs more than a page.
func TestHTMLWidthsInChromium(t *testing.T) {
	bin := browser(t)
	pages := []widthPage{
		// The linearizability core beside a sequential witness: the
		// witness must not number the core's bars.
		{"h2", func(t *testing.T) History {
			return checked(t, "h2.hist", "register", textbook(t, "h2"), checkers(register0), checker.Linearizable, checker.Sequential)
		}, "none", false},
		// Every criterion of a transactional history: the cycle before the
		// fifteen results, its transactions T1, T2 on the bars.
		{"ladder", func(t *testing.T) History { return ladderReport(t, readSkew) }, "cycle", true},
		// A failing key of a key-value history: the longest legal order.
		{"steps", func(t *testing.T) History {
			return checked(t, "kv.edn", "kv", keyedHistory(t), checkers(kv), checker.Linearizable)
		}, "steps", true},
		// A core in the last three of 20 lanes (lanes follow the
		// operations in call order), below what a narrow window shows
		// of the lanes: there only the violation's lanes are shown.
		{"lanes", func(t *testing.T) History {
			return checked(t, "lanes.hist", "register", farLanes(t), checkers(register0), checker.Linearizable)
		}, "none", false},
	}
	widths := []int{1400, 400}
	var frames []frame
	reports := make([]History, len(pages))
	for i, p := range pages {
		reports[i] = p.report(t)
		for _, w := range widths {
			frames = append(frames, frame{name: fmt.Sprintf("%s-%d", p.name, w), page: pageOf(t, reports[i]), w: w, h: 900})
		}
	}
	// One more frame: a core whose operations render alike.
	twins := twinsReport(t)
	frames = append(frames, frame{name: "twins", page: pageOf(t, twins), w: 1400, h: 900})
	rs := renderFrames(t, bin, frames, "widths")
	t.Run("twins", func(t *testing.T) { checkTwins(t, rs[len(rs)-1]) })
	for i, p := range pages {
		for j, w := range widths {
			t.Run(frames[i*len(widths)+j].name, func(t *testing.T) {
				checkWidth(t, rs[i*len(widths)+j], w, p, reports[i])
			})
		}
	}
}

// frame is a page to render in a frame of w by h pixels.
type frame struct {
	name string
	page []byte
	w, h int
}

// renderFrames renders pages in one browser run, each in a frame of its
// size, the frames in rows of two. Each frame's body attributes and the
// markup of its body are copied to the document around them once they
// have loaded; each result's screenshot is its frame's part of the
// window's.
func renderFrames(t *testing.T, bin string, frames []frame, name string) []rendered {
	t.Helper()
	var sb strings.Builder
	// The copying is each frame's own load handler, in place before the
	// frame starts loading: a handler added after the frames could miss
	// one that loaded first.
	sb.WriteString(`<!DOCTYPE html><html><body style="margin:0"><script>function copyFrame(f) {
  var b = f.contentDocument.body, k = f.id.slice(1), out = document.getElementById("out" + k);
  for (var i = 0; i < b.attributes.length; i++) out.setAttribute(b.attributes[i].name, b.attributes[i].value);
  document.getElementById("dom" + k).textContent = b.innerHTML;
}</script>`)
	x, y, rowH, width := 0, 0, 0, 0
	at := make([][2]int, len(frames))
	for i, f := range frames {
		if i%2 == 0 && i > 0 {
			x, y, rowH = 0, y+rowH, 0
		}
		at[i] = [2]int{x, y}
		fmt.Fprintf(&sb, `<div id="out%d"></div><textarea id="dom%d"></textarea>`, i, i)
		fmt.Fprintf(&sb, `<iframe id="f%d" onload="copyFrame(this)" style="position:absolute;left:%dpx;top:%dpx;border:0;width:%dpx;height:%dpx" srcdoc="%s"></iframe>`,
			i, x, y, f.w, f.h, html.EscapeString(string(f.page)))
		x += f.w
		rowH = max(rowH, f.h)
		width = max(width, x)
	}
	sb.WriteString(`</body></html>`)
	all := renderSized(t, bin, []byte(sb.String()), name, width, y+rowH)
	img := decodePNG(t, all.shot)
	out := make([]rendered, len(frames))
	for i, f := range frames {
		r := rendered{body: map[string]string{}, stderr: all.stderr, w: f.w, h: f.h}
		div := regexp.MustCompile(`<div id="out` + strconv.Itoa(i) + `"[^>]*>`).FindString(all.dom)
		for _, m := range bodyAttr.FindAllStringSubmatch(div, -1) {
			r.body[m[1]] = m[2]
		}
		if m := regexp.MustCompile(`(?s)<textarea id="dom` + strconv.Itoa(i) + `">(.*?)</textarea>`).FindStringSubmatch(all.dom); m != nil {
			r.dom = html.UnescapeString(m[1])
		}
		r.shot = filepath.Join(filepath.Dir(all.shot), f.name+".png")
		sub := image.NewRGBA(image.Rect(0, 0, f.w, f.h))
		draw.Draw(sub, sub.Bounds(), img, image.Pt(at[i][0], at[i][1]), draw.Src)
		writePNG(t, r.shot, sub)
		out[i] = r
	}
	return out
}

func decodePNG(t *testing.T, file string) image.Image {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return img
}

func writePNG(t *testing.T, file string, img image.Image) {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if keep := os.Getenv("HISTCHECK_SCREENSHOTS"); keep != "" {
		_ = os.WriteFile(filepath.Join(keep, filepath.Base(file)), buf.Bytes(), 0o644)
	}
}

// checkWidth checks a page rendered in a window w pixels wide.
func checkWidth(t *testing.T, r rendered, w int, p widthPage, hr History) {
	t.Helper()
	if errs := consoleErrors(r.stderr); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	if r.body["ready"] != "1" || r.body["errors"] != "0" {
		t.Fatalf("page script did not finish cleanly: body %v", r.body)
	}
	b := r.body
	if b["width"] != strconv.Itoa(w) {
		t.Fatalf("page laid out %s pixels wide, want %d", b["width"], w)
	}
	if b["overflow-x"] != "0" {
		t.Errorf("the page reaches %s pixels past the window's width: it scrolls sideways", b["overflow-x"])
	}
	v := &hr.Results[firstFalse(hr)].Violations[0]
	want := len(v.Ops)
	if v.Core != nil {
		want = v.Core.Size()
	}
	if b["highlighted"] != strconv.Itoa(want) || b["highlighted-in-view"] != b["highlighted"] {
		t.Errorf("%s of the violation's %s operations in view, want all %d", b["highlighted-in-view"], b["highlighted"], want)
	}
	if b["numbers-by"] != p.numbersBy {
		t.Errorf("bars numbered by %q, want %q", b["numbers-by"], p.numbersBy)
	}
	drawn, named := strings.Fields(b["numbers"]), strings.Fields(b["side-numbers"])
	if p.numbersBy != "none" && (len(drawn) == 0 || strings.Join(drawn, " ") != strings.Join(named, " ")) {
		t.Errorf("numbers on the bars %v, in the side panel %v: want the same, not none", drawn, named)
	}
	if p.numbersBy == "none" && (len(drawn) > 0 || len(named) > 0) {
		t.Errorf("numbers on the bars %v, in the side panel %v: want none", drawn, named)
	}
	if p.numbersBy == "cycle" {
		for i := range drawn {
			if !strings.HasSuffix(drawn[i], fmt.Sprintf(":T%d", i+1)) {
				t.Errorf("cycle numbers %v, want T1, T2, …", drawn)
				break
			}
		}
	}
	checkWhyFirst(t, b)
	if b["ascii-timeline"] != "0" || strings.Contains(r.dom, `class="timeline"`) {
		t.Errorf("the side panel draws the core as a text chart beside the canvas")
	}
	if v.Core != nil {
		story := v.Core.Story()
		for _, f := range v.Core.Facts() {
			if !strings.Contains(story, f) && strings.Contains(r.dom, html.EscapeString(f)) {
				t.Errorf("the page states a fact beyond the core's story: %s", f)
			}
		}
	}
	checkDim(t, r, p.dim)
}

// checkWhyFirst checks that the explanation of the violation shown is the
// side panel's first part and begins within the window.
func checkWhyFirst(t *testing.T, b map[string]string) {
	t.Helper()
	box := strings.Fields(b["side-box"])
	if len(box) != 6 {
		t.Fatalf("side-box = %q", b["side-box"])
	}
	top, err := strconv.Atoi(b["why-top"])
	height, _ := strconv.Atoi(box[5])
	if b["why-first"] != "1" || err != nil || top < 0 || top > height-120 {
		t.Errorf("the explanation is not first in view: first %s, at %s in a window %d high", b["why-first"], b["why-top"], height)
	}
}

// checkDim checks that the operations outside the violation are drawn in
// their own opaque colour, whose label colour reads on it: the
// screenshot holds that colour, which a translucent bar would not.
func checkDim(t *testing.T, r rendered, dim bool) {
	t.Helper()
	cs := strings.Fields(r.body["dim-colors"])
	if len(cs) != 2 {
		t.Fatalf("dim-colors = %q", r.body["dim-colors"])
	}
	fill, text := hexColor(t, cs[0]), hexColor(t, cs[1])
	if c := contrast(fill, text); c < 4.5 {
		t.Errorf("labels of operations outside the violation: contrast %.2f, want at least 4.5", c)
	}
	if !dim {
		return
	}
	img := decodePNG(t, r.shot)
	n := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if near(r>>8, fill[0]) && near(g>>8, fill[1]) && near(b>>8, fill[2]) {
				n++
			}
		}
	}
	if n < 100 {
		t.Errorf("%d pixels of the colour of operations outside the violation (%s): are they drawn faded?", n, cs[0])
	}
}

func near(a uint32, b uint32) bool { return a+3 >= b && b+3 >= a }

func hexColor(t *testing.T, s string) [3]uint32 {
	t.Helper()
	var c [3]uint32
	if len(s) != 7 || s[0] != '#' {
		t.Fatalf("colour %q", s)
	}
	for i := range c {
		v, err := strconv.ParseUint(s[1+2*i:3+2*i], 16, 8)
		if err != nil {
			t.Fatalf("colour %q: %v", s, err)
		}
		c[i] = uint32(v)
	}
	return c
}

// contrast is the WCAG contrast ratio of two colours.
func contrast(a, b [3]uint32) float64 {
	lum := func(c [3]uint32) float64 {
		var l [3]float64
		for i, v := range c {
			x := float64(v) / 255
			if x <= 0.04045 {
				l[i] = x / 12.92
			} else {
				l[i] = math.Pow((x+0.055)/1.055, 2.4)
			}
		}
		return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
	}
	la, lb := lum(a), lum(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// firstFalse is the first result of hr with a violation, as the page
// shows first.
func firstFalse(hr History) int {
	for i, r := range hr.Results {
		if len(r.Violations) > 0 {
			return i
		}
	}
	return 0
}

// ladderReport checks a list-append history for every criterion, as
// "-c all" does.
func ladderReport(t *testing.T, text string) History {
	t.Helper()
	file := filepath.Join(t.TempDir(), "read-skew.edn")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := format.ReadFile(file, "")
	if err != nil {
		t.Fatal(err)
	}
	o, err := check.Run(context.Background(), h, check.Request{Model: "list-append", Criteria: []string{check.All}})
	if err != nil {
		t.Fatal(err)
	}
	hr := NewHistoryOf("read-skew.edn", h, o)
	if len(hr.Results) < 10 || hr.Ladder == nil {
		t.Fatalf("all criteria: %d results, ladder %v", len(hr.Results), hr.Ladder)
	}
	return hr
}

// TestHTMLOneStory checks that the page shows one violation's story: a
// core taken from another key than the one the search stopped at comes
// without that key's longest legal order, and is headed by its own key;
// a core of the same key keeps it.
func TestHTMLOneStory(t *testing.T) {
	h := keyedHistory(t)
	steps := &prefixSteps{ops: []int{0, 3}, stuck: 6}
	for _, tc := range []struct {
		coreKey   string
		wantKey   string
		wantSteps bool
	}{
		{"b", "b", false},
		{"a", "a", true},
		{"", "a", true},
	} {
		hr := NewHistory("kv.edn", "kv", h)
		hr.Results = []Result{{Consistency: checker.Linearizable, Valid: checker.False, Violations: []Violation{{
			Ops: []Op{NewOp(h, 6)}, Key: "a", steps: steps,
			Core: &Core{Ops: []Op{NewOp(h, 1)}, Weakened: []Op{}, Key: tc.coreKey},
		}}}}
		v := pageData(t, string(pageOf(t, hr))).Histories[0].Results[0].Violations[0]
		if v.Key != tc.wantKey || (v.Steps != nil) != tc.wantSteps {
			t.Errorf("core on key %q: page key %q, steps %v; want key %q, steps %v", tc.coreKey, v.Key, v.Steps != nil, tc.wantKey, tc.wantSteps)
		}
	}
}

// twinsReport is a register history with two writes of 1 by A, whose
// made-up core holds both: they render alike, A:w(1).
func twinsReport(t *testing.T) History {
	t.Helper()
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "write", Value: history.IntValue(1), Call: 0, Return: 1, Status: history.OK, Index: 10},
		{Client: "B", F: "read", Value: history.IntValue(1), Call: 2, Return: 3, Status: history.OK, Index: 11},
		{Client: "A", F: "write", Value: history.IntValue(1), Call: 4, Return: 5, Status: history.OK, Index: 12},
	})
	if err != nil {
		t.Fatal(err)
	}
	hr := NewHistory("twins.hist", "register", h)
	hr.Results = []Result{{Consistency: checker.Linearizable, Valid: checker.False, Violations: []Violation{{
		Ops:  []Op{NewOp(h, 1)},
		Core: &Core{Ops: []Op{NewOp(h, 1)}, Weakened: []Op{NewOp(h, 0), NewOp(h, 2)}},
	}}}}
	return hr
}

// checkTwins checks that the side panel names the two writes apart, by
// their indexes, as the text form does.
func checkTwins(t *testing.T, r rendered) {
	if r.body["ready"] != "1" || r.body["errors"] != "0" {
		t.Fatalf("page script did not finish cleanly: body %v", r.body)
	}
	for _, want := range []string{">A:w(1)#10<", ">A:w(1)#12<", ">B:r(1)<"} {
		if !strings.Contains(r.dom, want) {
			t.Errorf("the side panel has no %s", want)
		}
	}
}

// farLanes is H2 (A writes 1, B reads it, C then reads 0) after 17
// processes that each read 0 before A's write began.
func farLanes(t *testing.T) *history.History {
	t.Helper()
	ops := []history.Op{{Client: "A", F: "write", Value: history.IntValue(1), Call: 20, Return: 40, Status: history.OK}}
	for i := range 17 {
		ops = append(ops, history.Op{Client: fmt.Sprintf("F%d", i+1), F: "read", Value: history.IntValue(0),
			Call: int64(i % 3), Return: int64(5 + i%3), Status: history.OK})
	}
	ops = append(ops,
		history.Op{Client: "B", F: "read", Value: history.IntValue(1), Call: 22, Return: 24, Status: history.OK},
		history.Op{Client: "C", F: "read", Value: history.IntValue(0), Call: 26, Return: 28, Status: history.OK})
	for i := range ops {
		ops[i].Index = int64(i)
	}
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
