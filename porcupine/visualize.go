package porcupine

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
	"os"
	"slices"
	"sort"
)

// An Annotation marks a span or an instant of a picture: on a client's
// lane (ClientId) or on a lane of its own named by Tag. End before Start
// (or left 0) makes it an instant. Colours are CSS colours, optional.
type Annotation struct {
	ClientId        int
	Tag             string
	Start           int64
	End             int64
	Description     string
	Details         string // shown when the pointer is over it
	TextColor       string
	BackgroundColor string
	_               struct{} // keeps literals keyed, so fields can be added
}

// AddAnnotations adds annotations to the picture [Visualize] draws.
func (li *LinearizationInfo) AddAnnotations(annotations []Annotation) {
	for _, a := range annotations {
		if a.End < a.Start {
			a.End = a.Start
		}
		li.annotations = append(li.annotations, a)
	}
}

// Visualize writes a self-contained web page of what a verbose check
// found: for each partition a timeline of its operations by client (the
// illegal partition's core in red, operations it only needs to exist in
// orange), and its longest partial linearization step by step with the
// state after each step; the annotations on lanes of their own; and, for
// an illegal history, histcheck's explanation. Everything taken from the
// history or the model is escaped.
func Visualize(model Model, info LinearizationInfo, output io.Writer) error {
	f := fill(model)
	page := buildPage(&f, &info)
	w := bufio.NewWriter(output)
	if err := pageTemplate.Execute(w, page); err != nil {
		return fmt.Errorf("porcupine: writing the picture: %w", err)
	}
	return w.Flush()
}

// VisualizePath is Visualize into the file at path.
func VisualizePath(model Model, info LinearizationInfo, path string) (err error) {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}()
	return Visualize(model, info, file)
}

// Drawing sizes, in pixels.
const (
	slotWidth  = 28 // between consecutive distinct instants
	laneHeight = 26
	barHeight  = 18
	marginLeft = 90
)

type page struct {
	Explanation *Explanation
	Parts       []pagePart
	Notes       *pageLanes
}

type pagePart struct {
	Index   int
	Problem string
	Lanes   pageLanes
	Steps   []pageStep
	Others  int // partial linearizations not shown step by step
}

type pageLanes struct {
	Width, Height int
	Names         []pageName
	Bars          []pageBar
}

type pageName struct {
	Y    int
	Text string
}

type pageBar struct {
	X, Y, W     int
	Label, Tip  string
	Fill, Color string
}

type pageStep struct {
	N           int
	Description string
	State       string
}

// buildPage lays out info: times become slots (each distinct instant of
// the operations and annotations one slot, in order), clients lanes.
func buildPage(f *filled, info *LinearizationInfo) page {
	slots := timeSlots(info)
	var pg page
	if e, ok := info.Explanation(); ok {
		pg.Explanation = &e
	}
	for i, p := range info.parts {
		pg.Parts = append(pg.Parts, buildPart(f, i, p, pg.Explanation, slots))
	}
	if len(info.annotations) > 0 {
		pg.Notes = buildNotes(info.annotations, slots)
	}
	return pg
}

func timeSlots(info *LinearizationInfo) map[int64]int {
	var ts []int64
	for _, p := range info.parts {
		for _, o := range p.ops {
			ts = append(ts, o.Call, o.Return)
		}
	}
	for _, a := range info.annotations {
		ts = append(ts, a.Start, a.End)
	}
	slices.Sort(ts)
	ts = slices.Compact(ts)
	slots := make(map[int64]int, len(ts))
	for i, t := range ts {
		slots[t] = i
	}
	return slots
}

func buildPart(f *filled, i int, p partInfo, e *Explanation, slots map[int64]int) pagePart {
	pp := pagePart{Index: i, Problem: p.problem}
	marks := map[int]string{}
	if e != nil && e.Partition == i {
		for _, id := range e.Weakened {
			marks[id] = "#f0ad4e"
		}
		for _, id := range e.Core {
			marks[id] = "#d9534f"
		}
	}
	partials := append([][]int(nil), p.partials...)
	sort.SliceStable(partials, func(a, b int) bool { return len(partials[a]) > len(partials[b]) })
	states := map[int]string{}
	if len(partials) > 0 {
		pp.Steps = replay(f, p.ops, partials[0])
		pp.Others = len(partials) - 1
		for _, s := range pp.Steps {
			states[s.N] = s.State
		}
	}
	lanes := map[int]int{}
	var clients []int
	for _, o := range p.ops {
		if _, ok := lanes[o.ClientId]; !ok {
			lanes[o.ClientId] = 0
			clients = append(clients, o.ClientId)
		}
	}
	sort.Ints(clients)
	for k, c := range clients {
		lanes[c] = k
		pp.Lanes.Names = append(pp.Lanes.Names, pageName{Y: k*laneHeight + barHeight - 4, Text: fmt.Sprintf("client %d", c)})
	}
	inOrder := map[int]int{}
	if len(partials) > 0 {
		for k, id := range partials[0] {
			inOrder[id] = k + 1
		}
	}
	for id, o := range p.ops {
		fill := "#cfe3f7"
		if c, ok := marks[id]; ok {
			fill = c
		}
		desc := f.DescribeOperation(o.Input, o.Output)
		tip := fmt.Sprintf("%s\ncalled %d, returned %d", desc, o.Call, o.Return)
		if md := f.DescribeOperationMetadata(o.Metadata); md != "" {
			tip += "\n" + md
		}
		if k, ok := inOrder[id]; ok {
			tip += fmt.Sprintf("\nstep %d of the longest order; state after: %s", k, states[id])
		}
		pp.Lanes.Bars = append(pp.Lanes.Bars, bar(slots[o.Call], slots[o.Return], lanes[o.ClientId], desc, tip, fill, ""))
	}
	pp.Lanes.Width = marginLeft + (len(slots)+1)*slotWidth
	pp.Lanes.Height = len(clients)*laneHeight + 4
	return pp
}

// replay steps the model through order from its initial state, for the
// state after each step; it stops at a step the model refuses, which a
// partial linearization never has.
func replay(f *filled, ops []Operation, order []int) []pageStep {
	var steps []pageStep
	if f.Init == nil {
		panic("porcupine: the model needs Init")
	}
	state := f.Init()
	for _, id := range order {
		ok, next := f.Step(state, ops[id].Input, ops[id].Output)
		if !ok {
			break
		}
		state = next
		steps = append(steps, pageStep{N: id, Description: f.DescribeOperation(ops[id].Input, ops[id].Output),
			State: f.DescribeState(state)})
	}
	return steps
}

func buildNotes(notes []Annotation, slots map[int64]int) *pageLanes {
	lanes := map[string]int{}
	var names []string
	name := func(a Annotation) string {
		if a.Tag != "" {
			return a.Tag
		}
		return fmt.Sprintf("client %d", a.ClientId)
	}
	for _, a := range notes {
		if _, ok := lanes[name(a)]; !ok {
			lanes[name(a)] = len(names)
			names = append(names, name(a))
		}
	}
	pl := &pageLanes{Width: marginLeft + (len(slots)+1)*slotWidth, Height: len(names)*laneHeight + 4}
	for k, n := range names {
		pl.Names = append(pl.Names, pageName{Y: k*laneHeight + barHeight - 4, Text: n})
	}
	for _, a := range notes {
		fill := a.BackgroundColor
		if fill == "" {
			fill = "#e8e8e8"
		}
		tip := a.Description
		if a.Details != "" {
			tip += "\n" + a.Details
		}
		pl.Bars = append(pl.Bars, bar(slots[a.Start], slots[a.End], lanes[name(a)], a.Description, tip, fill, a.TextColor))
	}
	return pl
}

func bar(from, to, lane int, label, tip, fill, color string) pageBar {
	if color == "" {
		color = "#222"
	}
	return pageBar{X: marginLeft + from*slotWidth, Y: lane * laneHeight, W: max((to-from)*slotWidth, 6),
		Label: label, Tip: tip, Fill: fill, Color: color}
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>linearizability check</title>
<style>
body { font-family: sans-serif; margin: 1.5em; }
svg text { font-size: 11px; }
.expl { background: #fbeaea; padding: .6em; border-left: 4px solid #d9534f; white-space: pre-wrap; }
ol { font-family: monospace; }
</style></head><body>
<h1>Linearizability check</h1>
{{with .Explanation}}<p class="expl">Illegal: partition {{.Partition}}. {{.Text}}{{if .Core}}
Core ({{if .Minimal}}minimal{{else}}not shown minimal{{end}}): operations {{.Core}}{{if .Weakened}}, with {{.Weakened}} weakened{{end}} (red and orange below).{{end}}</p>{{end}}
{{with .Notes}}<h2>Annotations</h2>{{template "lanes" .}}{{end}}
{{range .Parts}}<h2>Partition {{.Index}}</h2>
{{if .Problem}}<p class="expl">{{.Problem}}</p>{{end}}
{{template "lanes" .Lanes}}
{{if .Steps}}<p>Longest partial linearization ({{len .Steps}} steps{{if .Others}}; {{.Others}} more not shown{{end}}), with the state after each step:</p>
<ol>{{range .Steps}}<li>[{{.N}}] {{.Description}} → {{.State}}</li>{{end}}</ol>{{end}}
{{end}}
</body></html>
{{define "lanes"}}<svg width="{{.Width}}" height="{{.Height}}" xmlns="http://www.w3.org/2000/svg">
{{range .Names}}<text x="2" y="{{.Y}}">{{.Text}}</text>
{{end}}{{range .Bars}}<g><title>{{.Tip}}</title><rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="18" rx="3" fill="{{.Fill}}" stroke="#555"/><text x="{{.X}}" dx="3" y="{{.Y}}" dy="13" fill="{{.Color}}">{{.Label}}</text></g>
{{end}}</svg>{{end}}
`))
