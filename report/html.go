package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"sync"

	"github.com/histcheck/histcheck/history"
)

// The page's style and script live in their own files so that they can be
// read and edited as CSS and JavaScript; they are inlined into the page,
// which therefore needs no network.
var (
	//go:embed html/page.css
	pageCSS string
	//go:embed html/page.js
	pageJS string
	//go:embed html/page.html
	pageHTML string
)

// pageTemplate is parsed on first use, so that a run that writes no page
// does not parse it while starting.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageHTML))
})

// HTML writes r as one self-contained web page: a timeline with a lane per
// process and each operation a bar (completed, failed and of unknown
// outcome drawn differently), the witness order numbered on the bars, each
// violation's operations, or its core, highlighted with the explanation
// beside it. The timeline is drawn on a canvas, only the part in view, so
// that histories of tens of thousands of operations stay responsive; it
// zooms (buttons, keys, Ctrl+wheel) and scrolls.
//
// Every operation of a history is drawn when the history's Source is set;
// otherwise (a report decoded from JSON) only the operations the results
// name are.
func HTML(w io.Writer, r *Report) error {
	data := htmlData{Valid: r.Valid.String(), Histories: []htmlHistory{}}
	for i := range r.Histories {
		data.Histories = append(data.Histories, newHTMLHistory(&r.Histories[i]))
	}
	blob, err := json.Marshal(data) // escapes <, > and & so the blob cannot end its script element
	if err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	title := "histcheck report"
	if len(r.Histories) == 1 {
		title = history.Quote(r.Histories[0].File) + " — " + title
	}
	err = pageTemplate().Execute(w, struct {
		Title  string
		Valid  string
		CSS    template.CSS
		Script template.JS
		Data   template.JS
	}{title, r.Valid.String(), template.CSS(pageCSS), template.JS(pageJS), template.JS(blob)})
	if err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// htmlData is what the page's script reads. Operations are numbered by
// bar: their position in htmlOps.
type htmlData struct {
	Valid     string        `json:"valid"`
	Histories []htmlHistory `json:"histories"`
}

type htmlHistory struct {
	File     string   `json:"file"`
	Model    string   `json:"model"`
	Summary  string   `json:"summary"`
	Warnings []string `json:"warnings"`
	// Error says why the history could not be checked; "" when it was.
	Error string `json:"error,omitempty"`
	// T0 is the earliest call time, in full (times in Ops are offsets
	// from it, which a JavaScript number holds exactly).
	T0      string       `json:"t0"`
	Lanes   []htmlLane   `json:"lanes"`
	Ops     htmlOps      `json:"ops"`
	Results []htmlResult `json:"results"`
	Ladder  *Ladder      `json:"ladder"`
	// Keys is the per-key breakdown of a failing linearizability check,
	// when there is one.
	Keys *KeyCounts `json:"keys,omitempty"`
	// Notes are the history's annotations, with times as offsets from T0.
	Notes []htmlNote `json:"notes"`
}

// htmlNote is an Annotation for the page's script.
type htmlNote struct {
	Lane       string `json:"lane"`
	Start      int64  `json:"start"`
	End        int64  `json:"end"`
	Label      string `json:"label"`
	Details    string `json:"details"`
	Color      string `json:"color"`
	Background string `json:"background"`
}

type htmlLane struct {
	Name   string `json:"name"`
	Client string `json:"client"`
}

// htmlOps holds the operations column by column, which keeps the blob
// small for large histories.
type htmlOps struct {
	Lane   []int    `json:"lane"`
	Call   []int64  `json:"call"`
	Ret    []int64  `json:"ret"` // -1 when the outcome is unknown
	Status []string `json:"status"`
	Label  []string `json:"label"`
	Index  []int64  `json:"index"`
	// Key is each operation's key, as shown; absent when no operation
	// has one (the page then has no lanes by key).
	Key []string `json:"key,omitempty"`
}

type htmlResult struct {
	Consistency string          `json:"consistency"`
	Valid       string          `json:"valid"`
	Object      string          `json:"object,omitempty"`
	Reason      string          `json:"reason,omitempty"`
	Method      string          `json:"method,omitempty"`
	ElapsedMS   float64         `json:"elapsed_ms"`
	Witness     []int           `json:"witness"`
	Dropped     []int           `json:"dropped"`
	Violations  []htmlViolation `json:"violations"`
}

type htmlViolation struct {
	Ops         []int      `json:"ops"`
	Explanation string     `json:"explanation"`
	Pattern     string     `json:"pattern,omitempty"`
	Key         string     `json:"key,omitempty"`
	Core        *htmlCore  `json:"core"`
	Steps       *htmlSteps `json:"steps,omitempty"`
	Cycle       *htmlCycle `json:"cycle,omitempty"`
}

// htmlCore is a violation's core as the page shows it: its operations on
// the timeline and its story beside them. The text form's character
// timeline is left out, as the page draws the core itself, and so are
// the facts under the story (the text form's -v): the page states no
// fact beyond the story, whose operations and times the timeline shows.
type htmlCore struct {
	Ops      []int  `json:"ops"`
	Weakened []int  `json:"weakened"`
	Minimal  bool   `json:"minimal"`
	Story    string `json:"story"`
}

// htmlBuilder assigns bars to operations.
type htmlBuilder struct {
	out     *htmlHistory
	src     *history.History
	byIndex map[int64]int
	lanes   map[string]int
	t0      int64
}

func newHTMLHistory(h *History) htmlHistory {
	out := htmlHistory{
		File:  history.Quote(h.File), // shown as in the text form
		Model: h.Model,
		Summary: fmt.Sprintf("%d operations (%d ok, %d failed, %d unknown), %d processes, %d clients",
			h.Ops, h.OK, h.Failed, h.Unknown, h.Processes, h.Clients),
		Warnings: orNoStrings(h.Warnings),
		Error:    h.Error,
		Lanes:    []htmlLane{},
		// Empty columns, not null, for a history with no operation: the
		// page's script reads their lengths.
		Ops:     htmlOps{Lane: []int{}, Call: []int64{}, Ret: []int64{}, Status: []string{}, Label: []string{}, Index: []int64{}},
		Results: []htmlResult{},
		Ladder:  h.Ladder,
		Keys:    h.Keys,
	}
	if h.Order == "" && h.Error != "" {
		out.Summary = "not read"
	}
	b := &htmlBuilder{out: &out, src: h.Source, byIndex: make(map[int64]int), lanes: make(map[string]int)}
	if b.src != nil {
		b.addSource()
	} else {
		b.t0 = minCall(h)
	}
	for i := range h.Results {
		out.Results = append(out.Results, b.result(&h.Results[i]))
	}
	out.T0 = strconv.FormatInt(b.t0, 10)
	out.Notes = notes(h.Annotations, b.t0)
	return out
}

// notes lays a history's annotations out for the page, their times as
// offsets from t0; a mark that starts before t0 (the first operation's
// call) is drawn from it, as the timeline starts there.
func notes(as []Annotation, t0 int64) []htmlNote {
	out := []htmlNote{}
	for _, a := range as {
		start, end := max(a.Start-t0, 0), max(a.End, a.Start)-t0
		out = append(out, htmlNote{Lane: history.Escape(a.Lane), Start: start, End: max(end, start),
			Label: history.Escape(a.Label), Details: a.Details, Color: a.Color, Background: a.Background})
	}
	return out
}

// addSource makes a bar of every operation of the history, in its order,
// with a lane per logical process, named by its client as the input names
// it: a client that continued after an operation of unknown outcome has
// two lanes of the same name (the operation may still be running).
func (b *htmlBuilder) addSource() {
	h := b.src
	if len(h.Ops) > 0 {
		b.t0 = h.Ops[0].Call
		for i := range h.Ops {
			b.t0 = min(b.t0, h.Ops[i].Call)
		}
	}
	laneOf := make(map[int]int)
	for i := range h.Ops {
		o := &h.Ops[i]
		l, ok := laneOf[o.Process]
		if !ok {
			l = len(b.out.Lanes)
			laneOf[o.Process] = l
			b.out.Lanes = append(b.out.Lanes, htmlLane{Name: history.Quote(o.Client), Client: o.Client})
		}
		ret := int64(-1)
		if o.Return != history.Infinity {
			ret = o.Return - b.t0
		}
		b.push(l, o.Call-b.t0, ret, o.Status.String(), o.Label(), o.Index)
		b.key(i, o.Key.String())
		if _, dup := b.byIndex[o.Index]; !dup {
			b.byIndex[o.Index] = i
		}
	}
}

func (b *htmlBuilder) push(lane int, call, ret int64, status, label string, index int64) int {
	ops := &b.out.Ops
	ops.Lane = append(ops.Lane, lane)
	ops.Call = append(ops.Call, call)
	ops.Ret = append(ops.Ret, ret)
	ops.Status = append(ops.Status, status)
	ops.Label = append(ops.Label, label)
	ops.Index = append(ops.Index, index)
	return len(ops.Lane) - 1
}

// bar returns the bar of a report operation, making one when the history
// itself is not at hand (lanes are then the process names).
func (b *htmlBuilder) bar(op Op) int {
	if b.src != nil {
		if op.pos > 0 && op.pos <= len(b.src.Ops) {
			return op.pos - 1
		}
		if i, ok := b.byIndex[op.Index]; ok {
			return i
		}
		return -1
	}
	if i, ok := b.byIndex[op.Index]; ok {
		return i
	}
	l, ok := b.lanes[op.Process]
	if !ok {
		l = len(b.out.Lanes)
		b.lanes[op.Process] = l
		b.out.Lanes = append(b.out.Lanes, htmlLane{Name: op.Process, Client: op.Process})
	}
	ret := int64(-1)
	if op.Return != nil {
		ret = *op.Return - b.t0
	}
	i := b.push(l, op.Call-b.t0, ret, op.Type, op.Label, op.Index)
	if op.Key != nil {
		b.key(i, valueText(op.Key))
	}
	b.byIndex[op.Index] = i
	return i
}

// key sets the key of bar i; the column is made at the first key, with
// no key for the bars before it.
func (b *htmlBuilder) key(i int, key string) {
	ops := &b.out.Ops
	if key == "" && ops.Key == nil {
		return
	}
	for len(ops.Key) <= i {
		ops.Key = append(ops.Key, "")
	}
	ops.Key[i] = key
}

func (b *htmlBuilder) bars(ops []Op) []int {
	out := []int{}
	for _, op := range ops {
		if i := b.bar(op); i >= 0 {
			out = append(out, i)
		}
	}
	return out
}

func (b *htmlBuilder) result(r *Result) htmlResult {
	out := htmlResult{
		Consistency: r.Consistency,
		Valid:       r.Valid.String(),
		Reason:      r.Reason,
		Method:      r.Method,
		ElapsedMS:   r.ElapsedMS,
		Witness:     b.bars(r.Witness),
		Dropped:     b.bars(r.Dropped),
		Violations:  []htmlViolation{},
	}
	if r.Model != "" {
		out.Object = ObjectName(r.Key) + " (" + r.Model + ")"
	}
	for i := range r.Violations {
		v := &r.Violations[i]
		hv := htmlViolation{Ops: b.bars(v.Ops), Explanation: v.Explanation, Pattern: v.Pattern, Key: v.Key,
			Steps: b.steps(v.steps), Cycle: b.cycle(v)}
		if c := v.Core; c != nil {
			hv.Core = &htmlCore{
				Ops:      b.bars(c.Ops),
				Weakened: b.bars(c.Weakened),
				Minimal:  c.Minimal,
				Story:    c.Story(),
			}
			// The page tells one story, the core's: when the core was
			// taken from another failing key than the one the search
			// stopped at, the search's longest legal order is of that
			// other key and is left out.
			if c.Key != "" && c.Key != v.Key {
				hv.Key, hv.Steps = c.Key, nil
			}
		}
		out.Violations = append(out.Violations, hv)
	}
	return out
}

// minCall is the earliest call time the results of h name.
func minCall(h *History) int64 {
	first, t := true, int64(0)
	see := func(ops []Op) {
		for _, op := range ops {
			if first || op.Call < t {
				first, t = false, op.Call
			}
		}
	}
	for i := range h.Results {
		r := &h.Results[i]
		see(r.Witness)
		see(r.Dropped)
		for j := range r.Violations {
			v := &r.Violations[j]
			see(v.Ops)
			if v.Core != nil {
				see(v.Core.Ops)
				see(v.Core.Weakened)
			}
		}
	}
	return t
}

func orNoStrings(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
