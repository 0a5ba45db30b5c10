package check

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/online"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// Stream checks a history for linearizability as its events arrive, each
// object (each key) with an online sweep (checker/online), and reports
// each violation as soon as it is certain: when an operation returns that
// no order of what came before can linearize, whatever comes later. It
// keeps what is still open (the operations not yet settled, the
// configurations at each object's frontier, and a bounded window of each
// object's recent operations to find a violation's core in), not the
// history: memory does not grow with the history's length.
//
// Events are taken in the order given, as the history's real-time order
// (Jepsen's file order). A key's events wait until the operations
// invoked before them on that key have completed, so that the sweep
// knows every open operation's value; an operation that never completes
// holds its key back, within StreamLimits.Held.
type Stream struct {
	req     Request
	lim     StreamLimits
	model   suite.Model
	mopts   model.Options
	found   func(Found)
	objs    map[history.Value]*streamObj
	byNum   []*streamObj // the objects of keys 0 to maxByNum, by number (see object)
	order   []*streamObj // in order of first operation
	clients map[string]*streamClient
	procs   int
	pos     int64 // position of the next event
	timed   bool
	decided bool
	stats   StreamStats
	err     error
	free    []*streamOp // settled operations' records, for reuse
	// window holds the latest operations handed to the sweeps, of every
	// key, the one numbered i at i % Window (see at).
	window [][]kept
	kept   int64
}

// StreamLimits bound what a Stream keeps per object; zero values take the
// defaults.
type StreamLimits struct {
	// Held bounds the events of one key held back behind an operation
	// still open (default 100,000); past it the key's verdict is unknown.
	Held int
	// Window is how many of the latest operations (of every key) are
	// kept to find a violation's core in (default 262,144); a violation
	// whose operations are no longer kept is reported without a core.
	Window int
	// Segment is how many operations of a key the sweep checks before it
	// starts again from the value they leave (default 64), which bounds
	// the values it holds and the window.
	Segment int
}

func (l StreamLimits) withDefaults() StreamLimits {
	if l.Held <= 0 {
		l.Held = 100_000
	}
	if l.Window <= 0 {
		l.Window = 1 << 18
	}
	l.Window = (l.Window + keptChunk - 1) / keptChunk * keptChunk
	if l.Segment <= 0 {
		l.Segment = 64
	}
	return l
}

// Found is a violation a Stream found: the object's verdict, with its
// core when one was found in the operations kept.
type Found struct {
	// Result is the object's verdict (Valid is False), with the
	// violation's core and facts as Run gives them.
	Result Result
	// Op is the operation that could not be linearized, and Events the
	// number of events read when it was found.
	Op     history.Op
	Events int64
	// History holds the operations kept that Result's core and facts
	// name (nil when there is no core).
	History *history.History
}

// StreamStats count what a Stream has read and holds.
type StreamStats struct {
	Events  int64 // events read, the fault injector's included
	Ops     int64 // operations invoked
	Settled int64 // operations linearized in every configuration and dropped
	Open    int   // operations open (invoked, not settled), held-back ones included
	Objects int   // objects (keys) seen
	Failed  int   // objects found not linearizable
	Unknown int   // objects whose verdict is unknown
}

// streamClient is one process name's state.
type streamClient struct {
	proc int
	open *streamOp
}

// streamOp is an operation while it is open.
type streamOp struct {
	obj  *streamObj
	op   history.Op
	done bool // its completion was read (or the input ended)
	slot int
}

// heldEvent is an event of a key waiting for the sweep: an operation's
// invocation or its return.
type heldEvent struct {
	op  *streamOp
	ret bool
}

// segment is where a key's sweep started from: the value there (None:
// the model's initial value), the operations of unknown outcome still
// open then, and the place in the window of the key's operations since.
type segment struct {
	base    history.Value
	carried []*streamOp // records of operations of unknown outcome are never reused
	start   int64
}

// kept is an operation in the window: what a core needs of it (the
// window holds a quarter of a million of them, one written for each
// operation, so that each byte less is memory traffic saved). Its key is
// its object's.
type kept struct {
	obj           *streamObj
	index         int64
	call, ret     int64
	times         history.Span
	client, f     string
	value         history.Value
	process, line int32
	status        history.Type
}

func keptOf(o *streamObj, op *history.Op) kept {
	return kept{obj: o, index: op.Index, call: op.Call, ret: op.Return, times: op.Times, client: op.Client, f: op.F,
		value: op.Value, process: int32(op.Process), line: int32(op.Line), status: op.Status}
}

func (k *kept) op() history.Op {
	return history.Op{Index: k.index, Process: int(k.process), Client: k.client, F: k.f, Value: k.value, Key: k.obj.key,
		Call: k.call, Return: k.ret, Times: k.times, Status: k.status, Line: int(k.line)}
}

// keptChunk is how many operations a piece of the window holds: it is
// allocated piece by piece, so that a short history holds little.
const keptChunk = 4096

// at returns the window's place for the operation numbered i.
func (s *Stream) at(i int64) *kept {
	i %= int64(s.lim.Window)
	return &s.window[i/keptChunk][i%keptChunk]
}

// streamObj is one object's state. The fields every event reads come
// first, with room for the few events a key usually holds back, so that
// an event reads a couple of neighbouring cache lines of its key.
type streamObj struct {
	verdict checker.Verdict
	reason  string // why the verdict is unknown
	sweep   online.Object
	held    []heldEvent // in heldBuf until more are held
	open    int         // operations invoked and not settled
	since   int         // operations handed to the sweep since cur began
	heldBuf [4]heldEvent
	key     history.Value
	result  *Result
	prev    *segment // nil: the window holds none of its operations
	cur     *segment
	pending []*streamOp // operations of unknown outcome in the sweep
}

// NewStream starts a Stream for req, which must name its model (it cannot
// be detected before the history is whole) and ask for linearizability
// only. found, when set, is called with each violation as it is found.
func NewStream(req Request, lim StreamLimits, found func(Found)) (*Stream, error) {
	if req.Model == "" {
		return nil, errors.New("checking as the history is written needs a model (--model): it cannot be detected before the history is whole")
	}
	spec, err := ParseModels(req.Model)
	if err != nil {
		return nil, err
	}
	if spec.perKey() {
		return nil, errors.New("checking as the history is written takes one model for every object, not KEY=MODEL pairs")
	}
	for _, c := range req.Criteria {
		if c != checker.Linearizable {
			return nil, fmt.Errorf("%s is not checked as the history is written, only %s (see docs/online.md); check the file once it is whole", c, checker.Linearizable)
		}
	}
	if req.Models == nil {
		req.Models = suite.Builtin()
	}
	m, err := suite.Lookup(req.Models, spec.all)
	if err != nil {
		return nil, err
	}
	if m.Online == nil || !m.Supports(checker.Linearizable) {
		return nil, fmt.Errorf("model %s cannot be checked as the history is written", m.Info.Name)
	}
	s := &Stream{req: req, lim: lim.withDefaults(), model: m, found: found,
		objs: map[history.Value]*streamObj{}, clients: map[string]*streamClient{}}
	s.mopts.Init = req.Init
	switch req.NilRead {
	case "", "value":
	case "any":
		s.mopts.NilRead = model.NilIsAny
	default:
		return nil, fmt.Errorf("unknown nil-read rule %q (accepted: value, any)", req.NilRead)
	}
	if s.mopts.Settings, err = ParseModelOptions(req.ModelOptions); err != nil {
		return nil, err
	}
	if req.TTL != "" {
		t, err := parseTTL(req.TTL)
		if err != nil {
			return nil, err
		}
		if s.mopts.TTL, err = historyTTL(&t, &history.History{}, req.EventTimes); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Stats returns what the stream has read and holds.
func (s *Stream) Stats() StreamStats {
	st := s.stats
	st.Objects = len(s.objs)
	for _, o := range s.order {
		st.Open += o.open
	}
	return st
}

// Stop ends the stream at an error in its input that the caller found
// (a line that is not an event): Finish then gives the verdicts found
// before it, and unknown for the rest, as for an error Add returns.
func (s *Stream) Stop(err error) {
	if s.err == nil {
		s.err = err
	}
}

// Err returns the input error that stopped the stream, if any.
func (s *Stream) Err() error { return s.err }

// Add takes the next event. An event that breaks the pairing rules is an
// *history.InputError naming its line; the stream then takes no more
// events, and Finish still gives the verdicts found so far.
func (s *Stream) Add(e *history.Event) error {
	if s.err != nil {
		return s.err
	}
	pos := s.pos
	s.pos++
	s.stats.Events++
	if err := s.add(e, pos); err != nil {
		s.err = err
		return err
	}
	return nil
}

func (s *Stream) add(e *history.Event, pos int64) error {
	if history.IsNemesis(e.Process) {
		return nil
	}
	if e.Process == "" {
		return history.Errorf(e.Line, "event has no process")
	}
	if !s.decided {
		s.timed, s.decided = e.HasTime, true
	}
	c := s.clients[e.Process]
	if c == nil {
		c = &streamClient{proc: s.procs}
		s.procs++
		s.clients[e.Process] = c
	}
	if e.Type == history.Invoke {
		return s.invoke(c, e, pos)
	}
	return s.complete(c, e, pos)
}

func (s *Stream) invoke(c *streamClient, e *history.Event, pos int64) error {
	if c.open != nil {
		return history.Errorf(e.Line, "process %s invokes %s while its %s from line %d is open; checking as the history is written needs one operation at a time per process",
			history.Quote(e.Process), e.F, c.open.op.F, c.open.op.Line)
	}
	idx := pos
	if e.HasIdx {
		idx = e.Index
	}
	so := s.newOp()
	*so = streamOp{slot: -1, op: history.Op{Index: idx, Process: c.proc, Client: e.Process, F: e.F, Value: e.Value,
		Key: e.Key, Version: e.Version, Token: e.Token, Call: pos, Return: history.Infinity,
		Times: history.Span{Call: e.Time, Return: history.Infinity}, Status: history.Info, Extra: e.Extra, Line: e.Line}}
	if !s.timed {
		so.op.Times = history.Span{Call: pos, Return: history.Infinity}
	}
	c.open = so
	s.stats.Ops++
	o := s.object(e.Key)
	so.obj = o
	o.open++
	if o.verdict != checker.Unknown || o.reason != "" {
		return nil // decided, or given up: the key is not followed further
	}
	o.held = append(o.held, heldEvent{op: so})
	if len(o.held) > s.lim.Held {
		first := o.held[0].op
		s.giveUp(o, fmt.Sprintf("operation %s (line %d) stayed open while %d later events of its key arrived; its key is not followed further", first.op.Label(), first.op.Line, s.lim.Held))
	}
	return nil
}

func (s *Stream) complete(c *streamClient, e *history.Event, pos int64) error {
	if e.Type != history.OK && e.Type != history.Fail && e.Type != history.Info {
		return history.Errorf(e.Line, "event has unknown type %s", e.Type)
	}
	so := c.open
	if so == nil {
		return history.Errorf(e.Line, "process %s completes %s without an open invocation; checking as the history is written needs each operation's invocation",
			history.Quote(e.Process), e.F)
	}
	if so.op.F != e.F {
		return history.Errorf(e.Line, "process %s completes %s but its open invocation (line %d) is %s", history.Quote(e.Process), e.F, so.op.Line, so.op.F)
	}
	if !e.Key.IsNone() && !so.op.Key.IsNone() && e.Key != so.op.Key && history.Compare(e.Key, so.op.Key) != 0 {
		return history.Errorf(e.Line, "the completion's key %s differs from its invocation's (line %d)", e.Key, so.op.Line)
	}
	if !e.Key.IsNone() && so.op.Key.IsNone() {
		return history.Errorf(e.Line, "the completion gives a key its invocation (line %d) did not; checking as the history is written needs the key at the invocation", so.op.Line)
	}
	c.open = nil
	o := &so.op
	o.Status = e.Type
	if e.HasIdx {
		o.HasDone, o.DoneIndex = true, e.Index
	}
	t := e.Time
	if !s.timed {
		t = pos
	}
	switch e.Type {
	case history.OK:
		if !e.Value.IsNone() {
			o.Value = e.Value
		}
		o.Return, o.Times.Return = pos, t
	case history.Fail:
		o.Return, o.Times.Return = pos, t
	case history.Info:
		// Its next operation is another logical process's, as for a
		// name not seen before: forgetting the name keeps the table of
		// names to the clients still running (Jepsen's crashed clients
		// never come back under their old name).
		delete(s.clients, e.Process)
	}
	if !e.Version.IsNone() {
		o.Version = e.Version
	}
	if !e.Token.IsNone() {
		o.Token = e.Token
	}
	so.done = true
	obj := so.obj
	if obj.verdict != checker.Unknown || obj.reason != "" {
		obj.open--
		s.stats.Settled++
		return nil
	}
	if e.Type == history.OK {
		obj.held = append(obj.held, heldEvent{op: so, ret: true})
	}
	return s.drain(obj)
}

// newOp returns a record for an operation.
func (s *Stream) newOp() *streamOp {
	if n := len(s.free); n > 0 {
		so := s.free[n-1]
		s.free = s.free[:n-1]
		return so
	}
	return new(streamOp)
}

// maxByNum is the largest key found by number rather than in the map.
const maxByNum = 1 << 16

// object returns the object of key k, made when new. Jepsen's keys are
// mostly small numbers, found in a slice: hashing the key's text for the
// map was a tenth of the time an event takes.
func (s *Stream) object(k history.Value) *streamObj {
	n, byNum := smallKey(k)
	if byNum && n < len(s.byNum) && s.byNum[n] != nil {
		return s.byNum[n]
	}
	if o := s.objs[k]; o != nil {
		return o
	}
	o := &streamObj{key: k, sweep: s.model.Online(s.mopts), cur: &segment{start: s.kept}}
	o.held = o.heldBuf[:0]
	s.objs[k] = o
	s.order = append(s.order, o)
	if byNum {
		if n >= len(s.byNum) {
			s.byNum = append(s.byNum, make([]*streamObj, n+1-len(s.byNum))...)
		}
		s.byNum[n] = o
	}
	return o
}

// smallKey returns the number k is when it is an integer from 0 to
// maxByNum written without leading zeros (as every integer value is).
func smallKey(k history.Value) (int, bool) {
	t := k.Text()
	if k.Kind() != history.Int || len(t) == 0 || len(t) > 5 || len(t) > 1 && t[0] == '0' {
		return 0, false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		d := t[i] - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int(d)
	}
	return n, n <= maxByNum
}

// drain hands the object's held events to its sweep, up to the first
// invocation whose outcome is not known yet.
func (s *Stream) drain(o *streamObj) error {
	n := 0
	defer func() {
		if n <= len(o.held) { // a verdict empties it
			o.held = append(o.held[:0], o.held[n:]...)
		}
	}()
	for n < len(o.held) && o.verdict == checker.Unknown && o.reason == "" {
		h := o.held[n]
		if !h.ret && !h.op.done {
			break
		}
		n++
		if h.ret {
			if err := s.ret(o, h.op); err != nil {
				return err
			}
			continue
		}
		if h.op.op.Status == history.Fail {
			o.open--
			s.stats.Settled++
			continue
		}
		if err := s.enter(o, h.op); err != nil {
			return err
		}
	}
	return nil
}

// enter adds an operation whose outcome is known to the object's sweep.
func (s *Stream) enter(o *streamObj, so *streamOp) error {
	slot, st, err := o.sweep.Invoke(&so.op)
	if err != nil {
		return checker.OpError(&so.op, int(so.op.Index), err)
	}
	if st == online.Exceeded {
		s.giveUp(o, o.sweep.Reason())
		return nil
	}
	so.slot = slot
	s.keep(o, &so.op)
	if so.op.Status == history.Info {
		if len(o.pending) >= 2*online.MaxOpen { // drop those every order used
			o.pending = slices.DeleteFunc(o.pending, func(p *streamOp) bool { return !o.sweep.Holds(p.slot, p.op.Call) })
		}
		o.pending = append(o.pending, so)
	}
	return nil
}

// ret settles a returned operation.
func (s *Stream) ret(o *streamObj, so *streamOp) error {
	switch o.sweep.Return(so.slot) {
	case online.Exceeded:
		s.giveUp(o, o.sweep.Reason())
		return nil
	case online.Violated:
		s.violated(o, so)
		return nil
	}
	o.open--
	s.stats.Settled++
	s.free = append(s.free, so) // nothing refers to it any more
	if o.since >= s.lim.Segment {
		s.restart(o)
	}
	return nil
}

// keep adds an operation to the window.
func (s *Stream) keep(o *streamObj, op *history.Op) {
	if s.kept < int64(s.lim.Window) && s.kept%keptChunk == 0 { // it grows until it is whole, then turns round
		s.window = append(s.window, make([]kept, keptChunk))
	}
	*s.at(s.kept) = keptOf(o, op)
	s.kept++
	o.since++
}

// restart starts the object's sweep again from the value its operations
// so far leave, when there is one: what the sweep holds (its model's
// values) and the window stay bounded.
func (s *Stream) restart(o *streamObj) {
	v, ok := o.sweep.Base()
	if !ok {
		return
	}
	sw := o.sweep
	var pending []*streamOp
	for _, p := range o.pending {
		if sw.Holds(p.slot, p.op.Call) { // else every order used it: it is settled
			pending = append(pending, p)
		}
	}
	rebuilt := sw.Restart(v)
	carried := &segment{base: v, start: s.kept}
	for _, p := range pending {
		if rebuilt {
			slot, st, err := sw.Invoke(&p.op)
			if err != nil || st != online.Open {
				s.giveUp(o, "the operations of unknown outcome could not be carried over: "+sw.Reason())
				return
			}
			p.slot = slot
		}
	}
	carried.carried = slices.Clone(pending)
	o.pending = pending
	o.prev, o.cur, o.since = o.cur, carried, 0
}

// giveUp makes the object's verdict unknown and stops following it.
func (s *Stream) giveUp(o *streamObj, reason string) {
	o.reason = reason
	o.held, o.prev, o.cur, o.pending = nil, nil, nil, nil
	o.sweep = nil
	s.stats.Unknown++
}

// violated records a certain violation at the return of so, with its
// core from the operations kept, and stops following the object.
func (s *Stream) violated(o *streamObj, so *streamOp) {
	o.verdict = checker.False
	res, h := s.core(o)
	res.Key, res.PerKey = o.key, !o.key.IsNone()
	if res.Valid != checker.False {
		h = nil
		label := so.op.Label()
		res = Result{Key: o.key, PerKey: !o.key.IsNone(), Result: checker.Result{Criterion: checker.Linearizable, Valid: checker.False,
			Reason: fmt.Sprintf("operation %s (line %d) cannot be linearized after what came before it; the operations it conflicts with were not kept, so there is no core", label, so.op.Line)}}
	}
	o.result = &res
	o.held, o.prev, o.cur, o.pending, o.sweep = nil, nil, nil, nil, nil
	s.stats.Failed++
	if s.found != nil {
		s.found(Found{Result: res, Op: so.op, Events: s.stats.Events, History: h})
	}
}

// core checks the operations kept of the object from the value its
// window starts at, with Run, which finds the violation's core.
func (s *Stream) core(o *streamObj) (Result, *history.History) {
	seg := o.prev
	w := int64(s.lim.Window)
	if seg == nil || seg.start < s.kept-w {
		seg = o.cur // the window lost the previous segment's start
	}
	if seg.start < s.kept-w {
		return Result{}, nil
	}
	base := seg.base
	ops := make([]history.Op, 0, len(seg.carried))
	for _, p := range seg.carried {
		ops = append(ops, p.op)
	}
	for i := seg.start; i < s.kept; i++ {
		if k := s.at(i); k.obj == o {
			ops = append(ops, k.op())
		}
	}
	if len(ops) == 0 {
		return Result{}, nil
	}
	h, err := (&history.History{Order: history.FileOrder, Timed: s.timed}).Derive(ops)
	if err != nil {
		return Result{}, nil
	}
	req := s.req
	req.Criteria = []string{checker.Linearizable}
	req.Note, req.Progress = nil, nil
	if !base.IsNone() {
		req.Init = base
	}
	out, err := Run(context.Background(), h, req)
	if err != nil || len(out.Results) == 0 {
		return Result{}, nil
	}
	r := out.Results[0]
	if r.Valid == checker.False && !base.IsNone() {
		r.Reason = strings.TrimSpace(fmt.Sprintf("%s (the key held %s when the operations shown began)", r.Reason, base))
	}
	return r, h
}

// Finish ends the stream: invocations still open have unknown outcome (as
// when a history is read whole), the operations they held back are
// checked, and the outcome is the verdict on the whole history.
func (s *Stream) Finish() Outcome {
	for _, c := range s.clients {
		if c.open != nil {
			c.open.done = true // Status stays Info
			c.open = nil
		}
	}
	for _, o := range s.order {
		if o.verdict == checker.Unknown && o.reason == "" {
			if err := s.drain(o); err != nil && s.err == nil {
				s.err = err
			}
		}
	}
	return s.outcome()
}

// outcome is the verdict so far on the history read so far.
func (s *Stream) outcome() Outcome {
	out := Outcome{Settled: true, Model: s.model.Info.Name, Options: s.mopts, NilRead: "value"}
	if s.mopts.NilRead == model.NilIsAny {
		out.NilRead = "any"
	}
	objs := slices.Clone(s.order)
	slices.SortFunc(objs, func(a, b *streamObj) int { return history.Compare(a.key, b.key) })
	perKey := !s.model.Info.Keyed && len(objs) > 1
	if perKey {
		for _, o := range objs {
			r := s.objResult(o)
			r.Key, r.PerKey, r.Model = o.key, true, s.model.Info.Name
			out.Results = append(out.Results, r)
		}
	} else {
		out.Results = []Result{s.whole(objs)}
		if s.model.Info.Keyed && s.stats.Failed > 0 {
			out.Keys = &KeyCounts{Keys: len(objs), Failed: s.stats.Failed, ReadsSkipped: true}
		}
	}
	if s.err != nil {
		out.Refused = s.err
		for i := range out.Results {
			if out.Results[i].Valid == checker.True {
				out.Results[i].Valid = checker.Unknown
				out.Results[i].Reason = "the input stopped at an error before its end: " + s.err.Error()
			}
		}
	}
	return out
}

// objResult is one object's verdict.
func (s *Stream) objResult(o *streamObj) Result {
	switch {
	case o.result != nil:
		return *o.result
	case o.reason != "":
		return Result{Result: checker.Result{Criterion: checker.Linearizable, Valid: checker.Unknown, Reason: o.reason}}
	}
	return Result{Result: checker.Result{Criterion: checker.Linearizable, Valid: checker.True, Method: online.Method}}
}

// whole is the verdict of the history checked as one object, its keys
// (if any) checked one by one.
func (s *Stream) whole(objs []*streamObj) Result {
	var res Result
	res.Criterion = checker.Linearizable
	res.Valid = checker.True
	res.Method = online.Method
	var unknown []string
	for _, o := range objs {
		r := s.objResult(o)
		switch r.Valid {
		case checker.False:
			if res.Valid != checker.False {
				core := r.Core
				res.Result = r.Result
				res.Core = core
			} else {
				res.Violations = append(res.Violations, r.Violations...)
			}
		case checker.Unknown:
			if o.key.IsNone() {
				unknown = append(unknown, r.Reason)
			} else {
				unknown = append(unknown, fmt.Sprintf("key %s: %s", o.key, r.Reason))
			}
		}
	}
	if res.Valid == checker.True && len(unknown) > 0 {
		res.Valid = checker.Unknown
		res.Reason = unknown[0]
		if len(unknown) > 1 {
			res.Reason = fmt.Sprintf("%d of %d keys are unknown; %s", len(unknown), len(objs), unknown[0])
		}
	}
	return res
}
