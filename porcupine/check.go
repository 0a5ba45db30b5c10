package porcupine

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// CheckOperations reports whether history is linearizable under model.
func CheckOperations(model Model, history []Operation) bool {
	res, _ := checkOperations(model, history, false, 0)
	return res == Ok
}

// CheckOperationsTimeout is CheckOperations with a time limit, after
// which the verdict is Unknown; 0 means no limit.
func CheckOperationsTimeout(model Model, history []Operation, timeout time.Duration) CheckResult {
	res, _ := checkOperations(model, history, false, timeout)
	return res
}

// CheckOperationsVerbose is CheckOperationsTimeout that also returns what
// the check found, for [Visualize]: the partial linearizations, and for
// an illegal history histcheck's explanation and core
// ([LinearizationInfo.Explanation]).
func CheckOperationsVerbose(model Model, history []Operation, timeout time.Duration) (CheckResult, LinearizationInfo) {
	return checkOperations(model, history, true, timeout)
}

// CheckEvents reports whether history is linearizable under model.
func CheckEvents(model Model, history []Event) bool {
	res, _ := checkEvents(model, history, false, 0)
	return res == Ok
}

// CheckEventsTimeout is CheckEvents with a time limit, after which the
// verdict is Unknown; 0 means no limit.
func CheckEventsTimeout(model Model, history []Event, timeout time.Duration) CheckResult {
	res, _ := checkEvents(model, history, false, timeout)
	return res
}

// CheckEventsVerbose is CheckEventsTimeout that also returns what the
// check found, for [Visualize] (see CheckOperationsVerbose).
func CheckEventsVerbose(model Model, history []Event, timeout time.Duration) (CheckResult, LinearizationInfo) {
	return checkEvents(model, history, true, timeout)
}

func checkOperations(m Model, ops []Operation, verbose bool, timeout time.Duration) (CheckResult, LinearizationInfo) {
	f := fill(m)
	groups := [][]Operation{ops}
	if f.Partition != nil {
		groups = f.Partition(ops)
	}
	parts := make([]partition, len(groups))
	for i, g := range groups {
		parts[i] = fromOperations(g)
	}
	return checkParts(&f, parts, verbose, timeout)
}

func checkEvents(m Model, events []Event, verbose bool, timeout time.Duration) (CheckResult, LinearizationInfo) {
	f := fill(m)
	groups := [][]Event{events}
	if f.PartitionEvent != nil {
		groups = f.PartitionEvent(events)
	}
	parts := make([]partition, len(groups))
	for i, g := range groups {
		parts[i] = fromEvents(g)
	}
	return checkParts(&f, parts, verbose, timeout)
}

// partition is one part of a history, checked on its own.
type partition struct {
	// ops are its operations, numbered by their index (Porcupine's ids);
	// a history of events has the positions of its events as times.
	ops []Operation
	// problem, when set, says why the operations are not a history (an
	// operation that returns before its call, an event without its
	// pair): such a partition is illegal, as it is to Porcupine.
	problem string
}

func fromOperations(ops []Operation) partition {
	p := partition{ops: ops}
	for i := range ops {
		if ops[i].Return < ops[i].Call {
			p.problem = fmt.Sprintf("operation %d returns (at %d) before its call (at %d)", i, ops[i].Return, ops[i].Call)
			break
		}
	}
	return p
}

// fromEvents pairs each call with the return of its id. Operations are
// numbered in order of their ids' first events, and their times are the
// positions of their events.
func fromEvents(events []Event) partition {
	var p partition
	index := make(map[int]int, len(events)/2+1)
	called := make([]bool, 0, len(events)/2+1)
	returned := make([]bool, 0, len(events)/2+1)
	for pos, e := range events {
		i, seen := index[e.Id]
		if !seen {
			i = len(p.ops)
			index[e.Id] = i
			p.ops = append(p.ops, Operation{ClientId: e.ClientId})
			called, returned = append(called, false), append(returned, false)
		}
		o := &p.ops[i]
		switch {
		case p.problem != "":
		case e.Kind == CallEvent && (called[i] || returned[i]):
			p.problem = fmt.Sprintf("event %d calls id %d, which was called or returned before", pos, e.Id)
		case e.Kind == CallEvent:
			called[i] = true
			o.ClientId, o.Input, o.Call, o.Metadata = e.ClientId, e.Value, int64(pos), e.Metadata
		case !called[i] || returned[i]:
			p.problem = fmt.Sprintf("event %d returns id %d, which has no call before it that has not returned", pos, e.Id)
		default:
			returned[i] = true
			o.Output, o.Return = e.Value, int64(pos)
			if e.Metadata != nil {
				o.Metadata = e.Metadata
			}
		}
	}
	if p.problem == "" {
		for i := range p.ops {
			if !returned[i] {
				p.problem = fmt.Sprintf("operation %d (called at event %d) never returns", i, p.ops[i].Call)
				break
			}
		}
	}
	if p.problem != "" {
		// The pairs are not a history: keep no operation, so that
		// nothing shows or replays half an operation.
		p.ops = nil
	}
	return p
}

// partResult is what the check of one partition found.
type partResult struct {
	verdict CheckResult
	// partials are Porcupine's partial linearizations: the complete one
	// when linearizable, else the longest orders found containing each
	// operation (operation indices).
	partials [][]int
	// hist, res and adapter are kept for the explanation of an illegal
	// partition.
	hist    *history.History
	res     checker.Result
	adapter *adapter
}

// checkParts checks every partition in a goroutine of its own, as
// Porcupine does, so that a step that blocks in one partition holds up no
// other. Without verbose, the first illegal partition ends the check and
// cancels the others' context; with it, every partition is checked to the
// end (or the time limit) so that each has its partial linearizations.
func checkParts(f *filled, parts []partition, verbose bool, timeout time.Duration) (CheckResult, LinearizationInfo) {
	info := LinearizationInfo{}
	if verbose {
		info.parts = make([]partInfo, len(parts))
		for i := range parts {
			info.parts[i] = partInfo{ops: parts[i].ops, problem: parts[i].problem}
		}
	}
	if len(parts) == 0 {
		return Ok, info
	}
	if f.Init == nil {
		// Porcupine calls Init for every partition, and ends the process
		// doing so in a goroutine of its own: here the caller hears why.
		panic("porcupine: the model needs Init")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	type done struct {
		i     int
		r     partResult
		panic *ModelPanic
	}
	results := make(chan done, len(parts))
	for i := range parts {
		go func() {
			r, mp := checkOne(ctx, f, i, &parts[i], verbose)
			results <- done{i, r, mp}
		}()
	}
	found := make([]partResult, len(parts))
	illegal, unknown, timedOut := false, false, false
	count := 0
	for count < len(parts) && !timedOut && (verbose || !illegal) {
		select {
		case d := <-results:
			count++
			if d.panic != nil {
				panic(d.panic)
			}
			found[d.i] = d.r
			switch d.r.verdict {
			case Illegal:
				illegal = true
			case Unknown:
				unknown = true
			}
		case <-expired:
			timedOut = true
		}
	}
	cancel()
	if verbose {
		// The searches notice the cancelled context within milliseconds;
		// their results are read so that info holds every partition's.
		for ; count < len(parts); count++ {
			d := <-results
			if d.panic != nil {
				panic(d.panic)
			}
			found[d.i] = d.r
		}
		info.fill(f, found)
	}
	switch {
	case illegal:
		return Illegal, info
	case timedOut || unknown:
		return Unknown, info
	}
	return Ok, info
}

// checkOne checks partition i with histcheck's linearizability search. A
// panic of the model's comes back as a ModelPanic, for the caller's
// goroutine to raise.
func checkOne(ctx context.Context, f *filled, i int, p *partition, verbose bool) (r partResult, mp *ModelPanic) {
	if p.problem != "" {
		return partResult{verdict: Illegal}, nil
	}
	if len(p.ops) == 0 {
		return partResult{verdict: Ok}, nil
	}
	var a *adapter
	defer func() {
		if v := recover(); v != nil {
			mp = newModelPanic(i, a, v)
		}
	}()
	a = newAdapter(ctx, f, p.ops)
	var m model.Model[int32] = a
	if len(p.ops) >= exploreMinOps {
		t, ok := a.explore()
		if a.cancelled {
			// A step was cut short: it must not be asked again (a
			// model may count on being asked once), and the verdict
			// would not stand.
			return partResult{verdict: Unknown}, nil
		}
		if ok && !verbose {
			if v, ok := checkRegister(ctx, a, p, &t); ok {
				return partResult{verdict: v}, nil
			}
		}
		if ok && t.observers > 0 {
			m = &observing{adapter: a, classes: t.classes}
		}
	}
	h, err := p.history()
	if err != nil {
		// Not a verdict on the history: the operations were checked to
		// be one already.
		return partResult{verdict: Unknown}, nil
	}
	res, err := linear.Check(ctx, m, h, linear.Options{Workers: 1, Partials: verbose})
	if err != nil {
		return partResult{verdict: Unknown}, nil
	}
	r = partResult{hist: h, res: res, adapter: a}
	switch {
	case res.Valid == checker.True:
		r.verdict = Ok
		if verbose {
			r.partials = [][]int{indices(h, res.Witness)}
		}
	case res.Valid == checker.False && !a.cancelled:
		r.verdict = Illegal
		for _, order := range res.Partials {
			r.partials = append(r.partials, indices(h, order))
		}
	default:
		r.verdict = Unknown
	}
	return r, nil
}

// checkRegister checks the partition with histcheck's cas-register model
// when the model acts as one on it (see registerHistory); ok is false
// when it does not.
func checkRegister(ctx context.Context, a *adapter, p *partition, t *table) (CheckResult, bool) {
	h, ok := a.registerHistory(p, t)
	if !ok {
		return "", false
	}
	m := model.NewCASRegister(model.Options{Init: history.IntValue(int64(t.init))})
	res, err := linear.Check(ctx, m, h, linear.Options{Workers: 1})
	switch {
	case err != nil:
		return "", false
	case res.Valid == checker.True:
		return Ok, true
	case res.Valid == checker.False:
		return Illegal, true
	}
	return Unknown, true
}

// history is the partition as a history.History: each operation's value
// is its index, and each is a client of its own, since Porcupine's
// clients may overlap their own calls and only real time orders
// operations.
func (p *partition) history() (*history.History, error) {
	ops := make([]history.Op, len(p.ops))
	for i := range p.ops {
		o := &p.ops[i]
		// A return at the end of time would read as an unknown outcome.
		ops[i] = history.Op{Client: strconv.Itoa(i), F: "op", Value: history.IntValue(int64(i)),
			Call: min(o.Call, history.Infinity-1), Return: min(o.Return, history.Infinity-1), Status: history.OK, Index: int64(i)}
	}
	return history.FromOps(ops)
}

// indices maps positions in h to the partition's operation indices.
func indices(h *history.History, positions []int) []int {
	out := make([]int, len(positions))
	for k, pos := range positions {
		i, _ := h.Ops[pos].Value.Int()
		out[k] = int(i)
	}
	return out
}

// ModelPanic is the panic of a model's function during a check, raised
// again in the goroutine that called the check (where a test can recover
// it, and where it names the test) rather than in the check's own, which
// would end the process.
type ModelPanic struct {
	// Partition is the index of the partition being checked.
	Partition int
	// Input and Output are those of the operation being stepped, when the
	// panic came from a step.
	Input, Output interface{}
	Stepping      bool
	// Value is what the model panicked with, and Stack where.
	Value interface{}
	Stack string
}

func newModelPanic(part int, a *adapter, v interface{}) *ModelPanic {
	pe := checker.AsPanic(v)
	mp := &ModelPanic{Partition: part, Value: pe.Value, Stack: pe.Stack}
	if a == nil {
		return mp
	}
	if o := a.current; o >= 0 {
		mp.Stepping, mp.Input, mp.Output = true, a.ins[o], a.outs[o]
	}
	return mp
}

func (e *ModelPanic) Error() string {
	if e.Stepping {
		return fmt.Sprintf("porcupine: the model's step panicked on input %#v, output %#v (partition %d): %v\n%s",
			e.Input, e.Output, e.Partition, e.Value, e.Stack)
	}
	return fmt.Sprintf("porcupine: the model panicked (partition %d): %v\n%s", e.Partition, e.Value, e.Stack)
}
