package porcupine

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/shrink"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
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

// Visualize writes what a verbose check found as histcheck's report page
// (the page histcheck check --html writes): a history per partition, its
// operations on a timeline by client, each labelled by the model's
// DescribeOperation; for a linearizable partition the order in which its
// operations took effect; for the illegal one histcheck's explanation,
// its core highlighted and the longest legal order found with the
// model's state (DescribeState) after each step. The annotations are
// drawn in lanes of their own, on every partition's timeline, a client's
// named after it. Everything taken from the history or the model is
// shown as text.
func Visualize(model Model, info LinearizationInfo, output io.Writer) error {
	f := fill(model)
	rep := &report.Report{Histories: []report.History{}}
	notes := annotations(info.annotations)
	part, core, explained := info.explainedCore()
	for i := range info.parts {
		hr := partitionReport(&f, i, &info.parts[i], core, explained && part == i)
		hr.Annotations = notes
		rep.Histories = append(rep.Histories, hr)
	}
	rep.Finish()
	w := bufio.NewWriter(output)
	if err := report.HTML(w, rep); err != nil {
		return fmt.Errorf("porcupine: writing the page: %w", err)
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

// partitionReport is report's account of partition i: its operations as
// a history and the check's result on it, with the core when the
// partition is the one explained.
func partitionReport(f *filled, i int, p *partInfo, core *shrink.Core, explained bool) report.History {
	name := "partition " + strconv.Itoa(i)
	h := shownHistory(f, p.ops)
	if p.problem != "" {
		// Illegal, as to Porcupine: the operations are not a history.
		res := checker.Result{Criterion: checker.Linearizable, Valid: checker.False, Reason: p.problem}
		return report.NewHistoryOf(name, h, check.Outcome{Model: modelName, Results: []check.Result{{Result: res}}})
	}
	res := checker.Result{Criterion: checker.Linearizable, Valid: checker.True}
	if p.hist != nil {
		res = p.res
		res.Criterion = checker.Linearizable
	}
	if p.verdict == Unknown {
		res.Valid = checker.Unknown
		res.Violations, res.Witness = nil, nil
		if res.Reason == "" {
			res.Reason = "the check stopped before it decided"
		}
	}
	r := check.Result{Result: res}
	if explained {
		r.Core = core
	}
	hr := report.NewHistoryOf(name, h, check.Outcome{Model: modelName, Results: []check.Result{r}})
	hr.Source = h
	return hr
}

// modelName names a Porcupine model on the page.
const modelName = "porcupine"

// shownHistory is the partition as the page shows it: each operation by
// its client and the model's description of it. Its operations are in the
// order of the history the search checked (see partition.history), so
// that the positions the search's results name are the same in both.
// Porcupine lets a client overlap its own operations, which a history's
// process cannot: such a partition shows each operation on a lane of
// its own, named by its client and id.
func shownHistory(f *filled, ops []Operation) *history.History {
	hops := make([]history.Op, len(ops))
	for i := range ops {
		o := &ops[i]
		hops[i] = history.Op{Client: strconv.Itoa(o.ClientId), F: f.DescribeOperation(o.Input, o.Output),
			Call: min(o.Call, history.Infinity-1), Return: min(o.Return, history.Infinity-1), Status: history.OK, Index: int64(i)}
	}
	if h, err := history.FromOps(hops); err == nil {
		return h
	}
	for i := range hops {
		hops[i].Client += "#" + strconv.Itoa(i)
	}
	h, _ := history.FromOps(hops) // every process now runs one operation
	return h
}

// annotations are Porcupine's annotations as report's: a client's on a
// lane named after it, the others on their Tag's.
func annotations(as []Annotation) []report.Annotation {
	out := make([]report.Annotation, len(as))
	for i, a := range as {
		lane := a.Tag
		if lane == "" {
			lane = "client " + strconv.Itoa(a.ClientId)
		}
		out[i] = report.Annotation{Lane: lane, Start: a.Start, End: a.End, Label: a.Description, Details: a.Details,
			Color: a.TextColor, Background: a.BackgroundColor}
	}
	return out
}
