package history

import (
	"fmt"
	"sort"
	"strconv"
	"unsafe"
)

// IsNemesis reports whether a process name is Jepsen's fault injector, whose
// events are not operations of the system under test.
func IsNemesis(process string) bool { return process == "nemesis" || process == ":nemesis" }

// where builds an InputError at an event or operation: its line when known,
// else its 1-based position.
func where(line, pos int, format string, args ...any) *InputError {
	e := &InputError{Line: line, Msg: fmt.Sprintf(format, args...)}
	if line <= 0 {
		e.Line = 0
		e.Op = pos + 1
	}
	return e
}

// lineRef names a place for messages: "line 12", or "event 12" when the
// input has no lines.
func lineRef(line, pos int, unit string) string {
	if line > 0 {
		return "line " + strconv.Itoa(line)
	}
	return unit + " " + strconv.Itoa(pos+1)
}

// article returns "a" or "an" for an operation name in messages.
func article(f string) string {
	if f != "" && (f[0] == 'a' || f[0] == 'e' || f[0] == 'i' || f[0] == 'o' || f[0] == 'u') {
		return "an " + Quote(f)
	}
	return "a " + Quote(f)
}

// restarts collects, per client, the events of one kind that the user
// is told about once per client: invocations that followed an operation
// with unknown outcome, or operations run while another of the client's
// was open.
type restarts struct {
	order []string
	first map[string]int // line of the first such event
	pos   map[string]int
	count map[string]int
	unit  string
	// one says it of a client, at the first such event; more sums up the
	// clients past maxRestartWarnings.
	one  func(client, where string) string
	more func(n int) string
}

func newRestarts(unit string) *restarts {
	return &restarts{first: map[string]int{}, pos: map[string]int{}, count: map[string]int{}, unit: unit,
		one: func(c, at string) string {
			return fmt.Sprintf("process %s invoked again after an operation with unknown outcome (%s); treating it as a new logical process", Quote(c), at)
		},
		more: func(n int) string {
			return fmt.Sprintf("%d more processes invoked again after an operation with unknown outcome; each was treated as a new logical process", n)
		},
	}
}

// newOverlaps collects the processes that invoked an operation while
// another of theirs was open.
func newOverlaps(unit string) *restarts {
	r := newRestarts(unit)
	r.one = func(c, at string) string {
		return fmt.Sprintf("process %s invoked an operation while another of its operations was open (%s); the operations it ran at once are read as concurrent, of other processes named %s",
			Quote(c), at, Quote(c+"#2")+", …")
	}
	r.more = func(n int) string {
		return fmt.Sprintf("%d more processes invoked an operation while another of theirs was open; each such operation was read as another process's", n)
	}
	return r
}

func (r *restarts) add(client string, line, pos int) {
	if r.count[client] == 0 {
		r.order = append(r.order, client)
		r.first[client] = line
		r.pos[client] = pos
	}
	r.count[client]++
}

// maxRestartWarnings bounds the warning lines about restarted clients; the
// rest are summarised in one line.
const maxRestartWarnings = 10

func (r *restarts) warnings() []string {
	var out []string
	for i, c := range r.order {
		if i == maxRestartWarnings {
			out = append(out, r.more(len(r.order)-i))
			break
		}
		w := r.one(c, lineRef(r.first[c], r.pos[c], r.unit))
		if n := r.count[c]; n > 1 {
			w += fmt.Sprintf(" (%d times in all)", n)
		}
		out = append(out, w)
	}
	return out
}

// mergeFields returns a's fields overridden and extended by b's.
func mergeFields(a, b []Field) []Field {
	if len(b) == 0 {
		return a
	}
	out := append([]Field(nil), a...)
	for _, f := range b {
		replaced := false
		for i := range out {
			if out[i].Name == f.Name {
				out[i].Value = f.Value
				replaced = true
				break
			}
		}
		if !replaced {
			out = append(out, f)
		}
	}
	return out
}

// orValue returns b if given, else a.
func orValue(a, b Value) Value {
	if b.IsNone() {
		return a
	}
	return b
}

// Pair builds a validated History from an event history: each invocation is
// closed by the next completion of the same process (of the same
// operation and a fitting value, when the process has several open); a
// completion with none open is an operation whose call was not recorded;
// events of the fault injector ("nemesis") are left out. Logical processes
// are numbered in order of their first call. Errors are *InputError naming the
// event's line (or its position when the events carry no lines).
func Pair(events []Event) (*History, error) {
	p := NewPairer()
	for i := range events {
		if err := p.Add(&events[i]); err != nil {
			return nil, err
		}
	}
	return p.History(), nil
}

// pairClient is the pairing state of one process name, or of one of its
// threads: the operations a name runs at once (invoked while another of
// its operations is open) are read as another process's, a thread of the
// name, which keeps a client name of its own.
type pairClient struct {
	open     int // index in ops of the open invocation, or -1
	proc     int
	unknown  bool  // the last operation ended with unknown outcome
	lastTime int64 // recorded time of the client's latest event
	lastLine int   // its line, or
	lastPos  int   // its position
	name     string
	// threads are the name's other threads, in the order they were
	// made (only on the name's own state).
	threads []*pairClient
}

// Pairer pairs events one at a time, so that a reader can stream a long
// history without holding its events: memory grows with the operations
// only. Pair is the same for a slice of events.
type Pairer struct {
	h       *History
	clients map[string]*pairClient
	ops     opChunks
	opened  []int  // event position of each op's invocation
	given   bitset // the ops whose invocation gave an index
	rs      *restarts
	overlap *restarts // names that ran operations at once
	// threadNames are the client names given to threads, with the
	// name each belongs to: the input may not use them itself.
	threadNames map[string]string
	timed       bool
	// mixed counts the events whose having a time differs from the
	// first event's, and keeps the first (see mixedTime).
	mixed struct {
		count     int
		line, pos int
		err       *InputError
	}
	decided bool
	pos     int // position of the next event
	err     error
	maxTime struct {
		t         int64
		line, pos int
	} // the latest recorded time so far, and its event
}

// NewPairer returns a Pairer for an empty history.
func NewPairer() *Pairer {
	p := &Pairer{h: &History{Order: FileOrder}, clients: map[string]*pairClient{}, rs: newRestarts("event"), overlap: newOverlaps("event")}
	p.maxTime.pos = -1
	return p
}

// Add pairs the next event; the Pairer keeps no reference to it. After an
// error the Pairer accepts no more events.
func (p *Pairer) Add(e *Event) error {
	if p.err != nil {
		return p.err
	}
	pos := p.pos
	p.pos++
	if err := p.add(e, pos); err != nil {
		p.err = err
		return err
	}
	return nil
}

// add pairs the event at position pos.
func (p *Pairer) add(e *Event, pos int) error {
	if IsNemesis(e.Process) {
		p.h.Ignored++
		return nil
	}
	if e.Process == "" {
		return where(e.Line, pos, "event has no process")
	}
	if err := p.checkTime(e, pos); err != nil {
		return err
	}
	if e.Type == Invoke {
		return p.invoke(e, pos)
	}
	return p.complete(e, pos)
}

// checkTime checks that the event has a time if and only if the first
// event has one, and notes a time out of order.
func (p *Pairer) checkTime(e *Event, pos int) error {
	if !p.decided {
		p.timed, p.decided = e.HasTime, true
	} else if e.HasTime != p.timed {
		p.mixedTime(e, pos)
	}
	if e.HasTime && e.Time == Infinity {
		return where(e.Line, pos, "time %d is too large", e.Time)
	}
	if p.timed {
		p.noteTime(e, pos)
	}
	return nil
}

// mixedTime notes an event that has a time when the first event had none,
// or none when it had one, as Elle's tests mix them (jepsen.history gives
// the ones without :time -1, no time). In file order the times are only
// informational: the history is read without them, with a warning, and
// ordering it by times is refused naming the first such event.
func (p *Pairer) mixedTime(e *Event, pos int) {
	m := &p.mixed
	if m.count == 0 {
		m.line, m.pos = e.Line, pos
		if p.timed {
			m.err = where(e.Line, pos, "event has no time but the events before it do, so the events cannot be ordered by their times")
		} else {
			m.err = where(e.Line, pos, "event has a time but the events before it do not, so the events cannot be ordered by their times")
		}
	}
	m.count++
}

// invoke opens an operation for the invocation at position pos.
func (p *Pairer) invoke(e *Event, pos int) error {
	c, err := p.invoker(e, pos)
	if err != nil {
		return err
	}
	if c.lastPos >= 0 && p.timed && e.Time < c.lastTime {
		// Only ordering by times needs a process's times in order.
		p.badOrder(where(e.Line, pos, "time %d is before the time %d of process %s's previous event (%s); each process's events must be in time order",
			e.Time, c.lastTime, Quote(e.Process), lineRef(c.lastLine, c.lastPos, "event")))
	}
	idx := int64(pos)
	if e.HasIdx {
		idx = e.Index
		p.given.set(p.ops.n)
	}
	c.open = p.ops.n
	c.lastTime, c.lastLine, c.lastPos = e.Time, e.Line, pos
	at := int64(pos) // file order: the event's place in the input
	p.ops.add(Op{
		Index: idx, Process: c.proc, Client: c.name, F: e.F, Value: e.Value,
		Key: e.Key, Version: e.Version, Token: e.Token, Call: at, Return: Infinity,
		Times: Span{Call: e.Time, Return: Infinity}, Status: Info, Extra: e.Extra, Line: e.Line,
	})
	p.opened = append(p.opened, pos)
	return nil
}

// client returns the state of a process name, made for a name not seen
// before (a new logical process).
func (p *Pairer) client(e *Event, pos int) (*pairClient, error) {
	if c := p.clients[e.Process]; c != nil {
		return c, nil
	}
	if owner, ok := p.threadNames[e.Process]; ok {
		return nil, where(e.Line, pos, "process %s appears in the input, but that name was given to the operations process %s ran at once; rename one of them",
			Quote(e.Process), Quote(owner))
	}
	c := &pairClient{open: -1, proc: p.h.Processes, lastPos: -1, name: e.Process}
	p.h.Processes++
	p.h.Clients++
	p.clients[e.Process] = c
	return c, nil
}

// invoker returns the state of the thread of the invoking process that
// runs the invocation: the name's own when it has no open invocation,
// else a thread of the name that has none, else a new thread (the
// process runs operations at once: they are concurrent, so they cannot be
// one process's). A thread whose last operation has an unknown outcome
// goes on as a new logical process (it may still be running, so the
// name's next operation is another process's).
func (p *Pairer) invoker(e *Event, pos int) (*pairClient, error) {
	c, err := p.client(e, pos)
	if err != nil {
		return nil, err
	}
	if c.open >= 0 {
		c = p.freeThread(c, e, pos)
	}
	if c.unknown {
		p.rs.add(c.name, e.Line, pos)
		c.proc = p.h.Processes
		p.h.Processes++
		c.unknown = false
	}
	return c, nil
}

// freeThread returns a thread of the name whose state is c that has no
// open invocation, making one when every thread is busy.
func (p *Pairer) freeThread(c *pairClient, e *Event, pos int) *pairClient {
	for _, t := range c.threads {
		if t.open < 0 {
			return t
		}
	}
	if p.threadNames == nil {
		p.threadNames = map[string]string{}
	}
	name := ""
	for k := len(c.threads) + 2; ; k++ {
		name = c.name + "#" + strconv.Itoa(k)
		_, taken := p.threadNames[name]
		if !taken && p.clients[name] == nil {
			break
		}
	}
	p.threadNames[name] = c.name
	p.overlap.add(c.name, e.Line, pos)
	t := &pairClient{open: -1, proc: p.h.Processes, lastPos: -1, name: name}
	p.h.Processes++
	p.h.Clients++
	c.threads = append(c.threads, t)
	return t
}

// complete closes an open invocation of the completing process with the
// completion at position pos: its only one, or, when it has several open
// (see invoker), the one that names the same operation with a value the
// completion could complete (a read's nil filled in); when none or more
// than one fits, the pairing is ambiguous and the input is refused. A
// completion with no open invocation is an operation whose call was not
// recorded (completeOnly).
func (p *Pairer) complete(e *Event, pos int) error {
	if e.Type != OK && e.Type != Fail && e.Type != Info {
		return where(e.Line, pos, "event has unknown type %s", e.Type)
	}
	c, err := p.client(e, pos)
	if err != nil {
		return err
	}
	if len(c.threads) == 0 { // the usual case, without allocating
		if c.open < 0 {
			return p.completeOnly(c, e, pos)
		}
		return p.closeOnly(c, e, pos)
	}
	var open []*pairClient
	if c.open >= 0 {
		open = append(open, c)
	}
	for _, t := range c.threads {
		if t.open >= 0 {
			open = append(open, t)
		}
	}
	switch len(open) {
	case 0:
		return p.completeOnly(idlest(c), e, pos)
	case 1:
		return p.closeOnly(open[0], e, pos)
	}
	t, err := p.match(open, e, pos)
	if err != nil {
		return err
	}
	return p.close(t, e, pos)
}

// closeOnly closes the one open invocation of the completing process,
// on thread c, which must be of the same operation.
func (p *Pairer) closeOnly(c *pairClient, e *Event, pos int) error {
	if o := p.ops.at(c.open); e.F != o.F {
		return where(e.Line, pos, "process %s completes %s but its open invocation (%s) is %s",
			Quote(e.Process), article(e.F), lineRef(o.Line, p.opened[c.open], "event"), article(o.F))
	}
	return p.close(c, e, pos)
}

// match picks the thread whose open invocation the completion at pos
// closes, among several: the one of the same operation, or, among those,
// the one whose value the completion's fits (see fits).
func (p *Pairer) match(open []*pairClient, e *Event, pos int) (*pairClient, error) {
	var byF, byValue []*pairClient
	for _, t := range open {
		if o := p.ops.at(t.open); o.F == e.F {
			byF = append(byF, t)
			if fits(o.Value, e.Value) {
				byValue = append(byValue, t)
			}
		}
	}
	switch {
	case len(byF) == 1:
		return byF[0], nil
	case len(byValue) == 1:
		return byValue[0], nil
	case len(byF) == 0:
		return nil, where(e.Line, pos, "process %s completes %s but none of its %d open invocations (%s, …) is one",
			Quote(e.Process), article(e.F), len(open), p.openRef(open[0]))
	}
	both := byValue
	if len(both) < 2 {
		both = byF
	}
	return nil, where(e.Line, pos, "process %s completes %s that could close its invocation from %s or from %s: the pairing is ambiguous; give operations that run at once distinct processes",
		Quote(e.Process), article(e.F), p.openRef(both[0]), p.openRef(both[1]))
}

// openRef names the place of a thread's open invocation.
func (p *Pairer) openRef(t *pairClient) string {
	return lineRef(p.ops.at(t.open).Line, p.opened[t.open], "event")
}

// fits reports whether a completion's value could complete an invocation's
// value: no value or nil on either side, equal values, or lists of one
// length whose elements fit one by one (a transaction whose reads' nil
// are filled in).
func fits(inv, done Value) bool {
	switch {
	case done.IsNone() || inv.IsNone() || inv.IsNil() || done.IsNil():
		return true
	case Compare(inv, done) == 0:
		return true
	case inv.Kind() != List || done.Kind() != List || inv.NumElems() != done.NumElems():
		return false
	}
	is, ds := inv.Elems(), done.Elems()
	for i := range is {
		if !fits(is[i], ds[i]) {
			return false
		}
	}
	return true
}

// idlest returns the thread of the name whose state is c that completed
// its last operation first (the name's own when it has no other): an
// operation whose call was not recorded may have begun after that
// completion, and no later one is sure.
func idlest(c *pairClient) *pairClient {
	best := c
	for _, t := range c.threads {
		if t.lastPos < best.lastPos {
			best = t
		}
	}
	return best
}

// close closes the open invocation of thread c with the completion at
// position pos.
func (p *Pairer) close(c *pairClient, e *Event, pos int) error {
	o := p.ops.at(c.open)
	if p.timed && e.Time < o.Times.Call {
		p.badOrder(where(e.Line, pos, "completion time %d is before its invocation's time %d (%s)",
			e.Time, o.Times.Call, lineRef(o.Line, p.opened[c.open], "event")))
	}
	at := int64(pos)
	o.Status = e.Type
	if e.HasIdx {
		o.HasDone, o.DoneIndex = true, e.Index
	}
	switch e.Type {
	case OK:
		o.Value = orValue(o.Value, e.Value)
		o.Return, o.Times.Return = at, e.Time
	case Fail:
		o.Return, o.Times.Return = at, e.Time
	}
	o.Key = orValue(o.Key, e.Key)
	o.Version = orValue(o.Version, e.Version)
	o.Token = orValue(o.Token, e.Token)
	o.Extra = mergeFields(o.Extra, e.Extra)
	c.open = -1
	c.unknown = e.Type == Info
	c.lastTime, c.lastLine, c.lastPos = e.Time, e.Line, pos
	return nil
}

// completeOnly adds the operation of a completion whose invocation was not
// recorded, as Elle's own histories write transactions (only their :ok
// events), to thread c. Its call is unknown: the process may have begun it
// at any time after its previous completion, or at the start. So its call
// is put at that completion (position or time), or at 0, which widens its
// interval to every instant it may have begun at: real time orders it only
// after what surely finished before it began.
func (p *Pairer) completeOnly(c *pairClient, e *Event, pos int) error {
	if c.unknown {
		// Its previous operation may still be running: another logical
		// process, as for an invocation after an unknown outcome.
		p.rs.add(c.name, e.Line, pos)
		c.proc = p.h.Processes
		p.h.Processes++
		c.unknown = false
	}
	var call, callTime int64 // at the start
	if c.lastPos >= 0 {
		call, callTime = int64(c.lastPos), c.lastTime
		if p.timed && e.Time < c.lastTime {
			p.badOrder(where(e.Line, pos, "time %d is before the time %d of process %s's previous event (%s); each process's events must be in time order",
				e.Time, c.lastTime, Quote(e.Process), lineRef(c.lastLine, c.lastPos, "event")))
		}
	}
	idx := int64(pos)
	if e.HasIdx {
		idx = e.Index
		p.given.set(p.ops.n)
	}
	at := int64(pos)
	o := Op{
		Index: idx, Process: c.proc, Client: c.name, F: e.F, Value: e.Value,
		Key: e.Key, Version: e.Version, Token: e.Token, Call: call, Return: at,
		Times: Span{Call: callTime, Return: e.Time}, Status: e.Type, Extra: e.Extra, Line: e.Line,
	}
	if e.Type == Info {
		o.Return, o.Times.Return = Infinity, Infinity
	}
	p.ops.add(o)
	p.opened = append(p.opened, pos)
	c.unknown = e.Type == Info
	c.lastTime, c.lastLine, c.lastPos = e.Time, e.Line, pos
	return nil
}

// noteTime records an event whose time is before an earlier event's: in
// file order the times are only informational, but the user hears once
// that they disagree.
func (p *Pairer) noteTime(e *Event, pos int) {
	if p.maxTime.pos < 0 || e.Time >= p.maxTime.t {
		if p.maxTime.pos < 0 || e.Time > p.maxTime.t {
			p.maxTime.t, p.maxTime.line, p.maxTime.pos = e.Time, e.Line, pos
		}
		return
	}
	v := &p.h.inv
	if v.count == 0 {
		v.first = fmt.Sprintf("%s (time %d) after %s (time %d)",
			lineRef(e.Line, pos, "event"), e.Time, lineRef(p.maxTime.line, p.maxTime.pos, "event"), p.maxTime.t)
	}
	v.count++
}

// badOrder keeps the first reason the events cannot be ordered by time.
func (p *Pairer) badOrder(e *InputError) {
	if p.h.inv.bad == nil {
		p.h.inv.bad = e
	}
}

// opChunks holds operations in fixed-size chunks while they are paired: a
// long history grows without copying and clearing ever larger slices. Once
// the reader has said how many to expect (expect), they go into one slice
// of that size instead, which becomes the history's without a copy.
type opChunks struct {
	chunks [][]Op
	flat   []Op // non-nil after expect: every operation, chunks unused
	n      int
}

const (
	opChunk      = 4096
	firstOpChunk = 64
	// expectAfter is how many operations Expect waits for before it
	// takes a rate from them.
	expectAfter = 256
)

func (c *opChunks) add(o Op) {
	if c.flat != nil {
		c.flat = append(c.flat, o) // grows past the estimate only by append
		c.n++
		return
	}
	if c.n%opChunk == 0 {
		size := opChunk
		if c.n == 0 {
			// Most histories are short: the first chunk starts small and
			// grows by append up to opChunk, so that reading many small
			// files does not allocate and clear a full chunk for each.
			size = firstOpChunk
		}
		c.chunks = append(c.chunks, make([]Op, 0, size))
	}
	k := len(c.chunks) - 1
	c.chunks[k] = append(c.chunks[k], o)
	c.n++
}

// expect moves the operations into one slice with room for n, when n is
// more than it holds now.
func (c *opChunks) expect(n int) {
	if c.flat != nil || n <= c.n {
		return
	}
	c.flat = make([]Op, 0, n)
	for k := range c.chunks {
		c.flat = append(c.flat, c.chunks[k]...)
	}
	c.chunks = nil
}

func (c *opChunks) at(i int) *Op {
	if c.flat != nil {
		return &c.flat[i]
	}
	return &c.chunks[i/opChunk][i%opChunk]
}

// flatten returns the operations in one slice, letting go of the chunks as
// they are copied.
func (c *opChunks) flatten() []Op {
	if c.flat != nil {
		out := c.flat
		c.flat, c.n = nil, 0
		return out
	}
	if c.n == 0 {
		return nil
	}
	if len(c.chunks) == 1 {
		// A short history: its one chunk is the slice.
		out := c.chunks[0]
		c.chunks, c.n = nil, 0
		return out
	}
	out := make([]Op, 0, c.n)
	for k := range c.chunks {
		out = append(out, c.chunks[k]...)
		c.chunks[k] = nil
	}
	c.chunks, c.n = nil, 0
	return out
}

// Open reports whether the process name has an operation invoked and
// not yet completed, on any of its threads: its next completion then
// may not be of the next invocation. A reader that gave an invocation
// its completion's value in advance (the value the operation takes when
// it completes ok) asks before adding it.
func (p *Pairer) Open(name string) bool {
	c := p.clients[name]
	if c == nil {
		return false
	}
	if c.open >= 0 {
		return true
	}
	for _, t := range c.threads {
		if t.open >= 0 {
			return true
		}
	}
	return false
}

// Ops returns how many operations were opened so far.
func (p *Pairer) Ops() int { return p.ops.n }

// Expect says that read of size bytes of the input have been added. Once
// at least a 64th of the input has given a few hundred operations, the
// Pairer holds them in one slice sized for the whole input at that rate,
// so that a long history is not copied from chunks at the end, nor a
// short one grown by doubling (which allocates about twice its size). The size is
// at most 64 times the operations so far, and takes at most twice the
// input's bytes, so that an input whose head is dense cannot make it take
// much more than the input does. It is only a hint: any count still pairs.
func (p *Pairer) Expect(read, size int64) {
	n := int64(p.ops.n)
	if read <= 0 || size <= read || n < expectAfter || read < size/64 {
		return
	}
	// A twentieth more than the rate so far: the rest of the input may
	// hold somewhat shorter events.
	want := n * size / read
	want += want/20 + 64
	p.ops.expect(int(min(want, 2*size/int64(unsafe.Sizeof(Op{})))))
}

// Events returns how many events were added, nemesis events included.
func (p *Pairer) Events() int { return p.pos }

// History finishes pairing: invocations still open have unknown outcome.
// The Pairer must not be used afterwards. It returns nil after an error.
func (p *Pairer) History() *History {
	if p.err != nil {
		return nil
	}
	h, ops := p.h, p.ops.flatten()
	dup := duplicateIndex(ops, p.given.has, func(k int) string { return lineRef(ops[k].Line, p.opened[k], "event") })
	p.opened, p.clients, p.given = nil, nil, nil
	sortByCall(ops)
	renumber(ops, h.Processes)
	h.Ops = ops
	h.Timed = p.timed && p.mixed.count == 0
	h.Warnings = append(p.rs.warnings(), p.overlap.warnings()...)
	if dup != "" {
		h.Warnings = append(h.Warnings, dup)
	}
	if m := &p.mixed; m.count > 0 {
		h.inv = inversions{bad: m.err}
		which := "have a time, unlike the first event"
		if p.timed {
			which = "have no time, unlike the first event"
		}
		h.Warnings = append(h.Warnings, fmt.Sprintf("%d event(s) %s (first %s); the times are not used: the events are ordered as in the input",
			m.count, which, lineRef(m.line, m.pos, "event")))
	}
	if n := h.inv.note(); n != "" {
		h.Warnings = append(h.Warnings, n)
	}
	return h
}

// bitset is a set of small non-negative integers.
type bitset []uint64

func (b *bitset) set(i int) {
	for len(*b) <= i/64 {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (i % 64)
}

func (b bitset) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }

// duplicateIndex returns a warning when operations that were given an
// index share one: the index names an operation in reports, so a repeated
// one makes them ambiguous. ops are in input order; given and where take a
// position in ops and say whether its index was given and where the
// operation is in the input. The warning gives the first repeat in input
// order, the operation that had the index before it, and how many repeats
// there are; it is "" when the indices are distinct. Indices that only
// increase, as Jepsen writes them, are settled without allocating.
func duplicateIndex(ops []Op, given func(int) bool, where func(int) string) string {
	increasing, seen, last := true, false, int64(0)
	for k := range ops {
		if !given(k) {
			continue
		}
		if seen && ops[k].Index <= last {
			increasing = false
			break
		}
		seen, last = true, ops[k].Index
	}
	if increasing {
		return ""
	}
	var ks []int
	for k := range ops {
		if given(k) {
			ks = append(ks, k)
		}
	}
	// Stable: the operations of one index stay in input order, the first
	// one holding it and the next its first repeat.
	sort.SliceStable(ks, func(a, b int) bool { return ops[ks[a]].Index < ops[ks[b]].Index })
	count, first, orig := 0, -1, -1
	for i := 0; i < len(ks); {
		j := i + 1
		for j < len(ks) && ops[ks[j]].Index == ops[ks[i]].Index {
			j++
		}
		if j-i > 1 {
			count += j - i - 1
			if first < 0 || ks[i+1] < first {
				first, orig = ks[i+1], ks[i]
			}
		}
		i = j
	}
	if count == 0 {
		return ""
	}
	w := fmt.Sprintf("index %d is given to more than one operation (%s and %s), so reports that name operations by index are ambiguous",
		ops[first].Index, where(orig), where(first))
	if count > 1 {
		w += fmt.Sprintf("; %d operations in all repeat an earlier operation's index", count)
	}
	return w
}

// FromOps validates operations written directly with call and return times
// (Client set, Line set when known): Return >= Call, and one process runs
// one operation at a time. An operation with unknown outcome gets Return =
// Infinity; a client that continues after one becomes a new logical process.
// Processes are numbered in order of first call; Ops end up sorted by Call.
// Operations of the fault injector ("nemesis") are left out, as Pair
// leaves out its events. Index is kept as given, not set to the position
// in the slice: set it when written histories and reports should number
// the operations. When indices are set (not all 0) and two operations
// share one, the history gets a warning.
func FromOps(in []Op) (*History, error) { return fromOps(in, false) }

// Derive validates operations taken from h (a part of it, or altered
// copies of its operations) as FromOps does, into a history in h's order:
// Call and Return mean what they mean in h (times, or positions in h's
// input), and each operation keeps its recorded Times.
func (h *History) Derive(ops []Op) (*History, error) {
	out, err := fromOps(ops, true)
	if err != nil {
		return nil, err
	}
	out.Order, out.Timed = h.Order, h.Timed
	return out, nil
}

func fromOps(in []Op, keepTimes bool) (*History, error) {
	ops := make([]Op, 0, len(in))
	pos := make([]int, 0, len(in)) // input position, for messages
	ignored := 0
	for i := range in {
		if IsNemesis(in[i].Client) {
			ignored++
			continue
		}
		ops = append(ops, in[i])
		pos = append(pos, i)
	}
	for k := range ops {
		o, i := &ops[k], pos[k]
		if o.Client == "" {
			return nil, where(o.Line, i, "operation has no process")
		}
		switch o.Status {
		case OK, Fail:
			if o.Return == Infinity {
				return nil, where(o.Line, i, "%s operation needs a return time; an operation with unknown outcome has status info", article(o.Status.String()))
			}
		case Info:
			o.Return = Infinity
		default:
			return nil, where(o.Line, i, "operation has status %s; expected ok, fail or info", o.Status)
		}
		if o.Call == Infinity {
			return nil, where(o.Line, i, "call time %d is too large", o.Call)
		}
		if o.Return < o.Call {
			return nil, where(o.Line, i, "return time %d is before call time %d", o.Return, o.Call)
		}
	}
	var dup string
	if !keepTimes {
		// A derived history repeats indices its source was warned about.
		dup = duplicateIndex(ops, indexed(ops), func(k int) string { return lineRef(ops[k].Line, pos[k], "operation") })
	}
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ops[order[a]].Call < ops[order[b]].Call })
	type client struct {
		proc int
		last int // position in ops of the client's latest operation
	}
	h := &History{Ignored: ignored}
	clients := map[string]*client{}
	rs := newRestarts("operation")
	for _, i := range order {
		o := &ops[i]
		c := clients[o.Client]
		switch {
		case c == nil:
			c = &client{proc: h.Processes}
			h.Processes++
			h.Clients++
			clients[o.Client] = c
		case ops[c.last].Status == Info:
			rs.add(o.Client, o.Line, pos[i])
			c.proc = h.Processes
			h.Processes++
		case o.Call < ops[c.last].Return:
			p := &ops[c.last]
			a, b := lineRef(p.Line, pos[c.last], "operation"), lineRef(o.Line, pos[i], "operation")
			switch {
			case p.Line > 0 && o.Line > 0:
				l1, l2 := min(p.Line, o.Line), max(p.Line, o.Line)
				a, b = "lines "+strconv.Itoa(l1), strconv.Itoa(l2)
			case p.Line <= 0 && o.Line <= 0:
				a, b = "operations "+strconv.Itoa(pos[c.last]+1), strconv.Itoa(pos[i]+1)
			}
			line := max(p.Line, o.Line)
			return nil, where(line, pos[i], "process %s has two operations open at once: %s and %s", Quote(o.Client), a, b)
		}
		o.Process = c.proc
		c.last = i
	}
	sorted := make([]Op, len(ops))
	for k, i := range order {
		sorted[k] = ops[i]
		if !keepTimes {
			sorted[k].Times = Span{Call: sorted[k].Call, Return: sorted[k].Return}
		}
	}
	h.Ops = sorted
	h.Timed = true
	h.Warnings = rs.warnings()
	if dup != "" {
		h.Warnings = append(h.Warnings, dup)
	}
	return h, nil
}

// indexed says which operations were given an index: all of them, unless
// every index is 0, which is how callers of FromOps leave them unset.
func indexed(ops []Op) func(int) bool {
	for k := range ops {
		if ops[k].Index != 0 {
			return func(int) bool { return true }
		}
	}
	return func(int) bool { return false }
}

// Events turns the history back into an event history that Pair reads as
// the same operations in the same real-time order: events are written in
// the order RealTime gives, each carrying its recorded time (its position
// when the input had none). An operation with unknown outcome gets an info
// completion right after its invocation. When RealTime is tangled no event
// order keeps every tie of times: each client's order is kept, and some
// operations that touch become ordered; a file that records the times and
// says it is in time order keeps them all.
func (h *History) Events() []Event {
	type keyed struct {
		at    int64
		seq   int // operation order
		sub   int // 0: invocation; 1: completion
		event Event
	}
	rt := h.realTime(true)
	ks := make([]keyed, 0, 2*len(h.Ops))
	for i := range h.Ops {
		o := &h.Ops[i]
		call, ret := o.Call, o.Return
		if h.Order == FileOrder && h.Timed {
			call, ret = o.Times.Call, o.Times.Return
		}
		inv := Event{Process: o.Client, Type: Invoke, F: o.F, Value: o.Value, Key: o.Key, Version: o.Version,
			Token: o.Token, Time: call, HasTime: true, Index: o.Index, HasIdx: true, Extra: o.Extra}
		done := inv
		done.Type, done.HasIdx, done.Index = o.Status, o.HasDone, o.DoneIndex
		inv.Extra = nil // the completion carries them; pairing merges them back
		sp := rt.Spans[i]
		ks = append(ks, keyed{at: sp.Call, seq: i, event: inv})
		if o.Status == Info || o.Return == Infinity {
			done.Type = Info
			ks = append(ks, keyed{at: sp.Call, seq: i, sub: 1, event: done})
			continue
		}
		done.Time = ret
		ks = append(ks, keyed{at: sp.Return, seq: i, sub: 1, event: done})
	}
	sort.SliceStable(ks, func(a, b int) bool {
		x, y := &ks[a], &ks[b]
		if x.at != y.at {
			return x.at < y.at
		}
		if x.seq != y.seq {
			return x.seq < y.seq
		}
		return x.sub < y.sub
	})
	out := make([]Event, len(ks))
	for i := range ks {
		out[i] = ks[i].event
	}
	return out
}
