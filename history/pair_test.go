package history_test

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
)

var (
	i0, i1, i2, i3 = history.IntValue(0), history.IntValue(1), history.IntValue(2), history.IntValue(3)
	nilv           = history.NilValue
	none           = history.Value{}
)

// ev makes an event; events get lines 1, 2, … by position in evs().
func ev(p string, t history.Type, f string, v history.Value) history.Event {
	return history.Event{Process: p, Type: t, F: f, Value: v}
}

func evs(es ...history.Event) []history.Event {
	for i := range es {
		if es[i].Line == 0 {
			es[i].Line = i + 1
		}
	}
	return es
}

func timed(e history.Event, t int64) history.Event {
	e.Time, e.HasTime = t, true
	return e
}

// opSummary is the part of an Op the pairing tests check.
type opSummary struct {
	Process      int
	Client, F    string
	Value        history.Value
	Call, Return int64
	Status       history.Type
	Index        int64
	Line         int
}

func summarize(h *history.History) []opSummary {
	out := make([]opSummary, len(h.Ops))
	for i, o := range h.Ops {
		out[i] = opSummary{o.Process, o.Client, o.F, o.Value, o.Call, o.Return, o.Status, o.Index, o.Line}
	}
	return out
}

const inf = history.Infinity

func TestPairRules(t *testing.T) {
	tests := []struct {
		name      string
		events    []history.Event
		want      []opSummary
		processes int
		clients   int
		ignored   int
		warnings  []string
	}{
		{
			name:      "ok takes the completion's value",
			events:    evs(ev("0", history.Invoke, "read", nilv), ev("0", history.OK, "read", i3)),
			want:      []opSummary{{0, "0", "read", i3, 0, 1, history.OK, 0, 1}},
			processes: 1, clients: 1,
		},
		{
			name:      "ok without a value keeps the invocation's",
			events:    evs(ev("0", history.Invoke, "write", i2), ev("0", history.OK, "write", none)),
			want:      []opSummary{{0, "0", "write", i2, 0, 1, history.OK, 0, 1}},
			processes: 1, clients: 1,
		},
		{
			name:      "fail keeps the invocation's value and its return",
			events:    evs(ev("0", history.Invoke, "cas", history.ListValue(i1, i2)), ev("0", history.Fail, "cas", nilv)),
			want:      []opSummary{{0, "0", "cas", history.ListValue(i1, i2), 0, 1, history.Fail, 0, 1}},
			processes: 1, clients: 1,
		},
		{
			name:      "info keeps the invocation's value and never returns",
			events:    evs(ev("0", history.Invoke, "write", i1), ev("0", history.Info, "write", history.StringValue("timed-out"))),
			want:      []opSummary{{0, "0", "write", i1, 0, inf, history.Info, 0, 1}},
			processes: 1, clients: 1,
		},
		{
			name:   "no completion by the end is info",
			events: evs(ev("0", history.Invoke, "write", i1), ev("1", history.Invoke, "read", nilv), ev("1", history.OK, "read", i0)),
			want: []opSummary{
				{0, "0", "write", i1, 0, inf, history.Info, 0, 1},
				{1, "1", "read", i0, 1, 2, history.OK, 1, 2},
			},
			processes: 2, clients: 2,
		},
		{
			name: "nemesis events are left out and counted",
			events: evs(ev("nemesis", history.Info, "start", nilv), ev("0", history.Invoke, "read", nilv),
				ev(":nemesis", history.Info, "stop", nilv), ev("0", history.OK, "read", i1)),
			want:      []opSummary{{0, "0", "read", i1, 1, 3, history.OK, 1, 2}},
			processes: 1, clients: 1, ignored: 2,
		},
		{
			name: "invoking again after info starts a new logical process",
			events: evs(
				ev("3", history.Invoke, "write", i1), ev("3", history.Info, "write", nilv),
				ev("3", history.Invoke, "write", i2), ev("3", history.Info, "write", nilv),
				ev("3", history.Invoke, "read", nilv), ev("3", history.OK, "read", i2),
				ev("4", history.Invoke, "read", nilv), ev("4", history.OK, "read", i2)),
			want: []opSummary{
				{0, "3", "write", i1, 0, inf, history.Info, 0, 1},
				{1, "3", "write", i2, 2, inf, history.Info, 2, 3},
				{2, "3", "read", i2, 4, 5, history.OK, 4, 5},
				{3, "4", "read", i2, 6, 7, history.OK, 6, 7},
			},
			processes: 4, clients: 2,
			warnings: []string{"process 3 invoked again after an operation with unknown outcome (line 3); treating it as a new logical process (2 times in all)"},
		},
		{
			name: "after fail the process stays the same",
			events: evs(ev("A", history.Invoke, "write", i1), ev("A", history.Fail, "write", nilv),
				ev("A", history.Invoke, "read", nilv), ev("A", history.OK, "read", i0)),
			want: []opSummary{
				{0, "A", "write", i1, 0, 1, history.Fail, 0, 1},
				{0, "A", "read", i0, 2, 3, history.OK, 2, 3},
			},
			processes: 1, clients: 1,
		},
		{
			name: "times give call and return; ops sorted by call; processes numbered by first call",
			events: evs(
				timed(ev("b", history.Invoke, "write", i1), 50),
				timed(ev("a", history.Invoke, "read", nilv), 10),
				timed(ev("a", history.OK, "read", i0), 20),
				timed(ev("b", history.OK, "write", i1), 60)),
			want: []opSummary{
				{0, "a", "read", i0, 10, 20, history.OK, 1, 2},
				{1, "b", "write", i1, 50, 60, history.OK, 0, 1},
			},
			processes: 2, clients: 2,
			warnings: []string{"the times of 2 event(s) contradict their order in the input, first line 2 (time 10) after line 1 (time 50); " +
				"the events are ordered by their times"},
		},
		{
			name: "equal calls keep input order",
			events: evs(
				timed(ev("x", history.Invoke, "write", i1), 5),
				timed(ev("y", history.Invoke, "write", i2), 5),
				timed(ev("y", history.OK, "write", i2), 5),
				timed(ev("x", history.OK, "write", i1), 9)),
			want: []opSummary{
				{0, "x", "write", i1, 5, 9, history.OK, 0, 1},
				{1, "y", "write", i2, 5, 5, history.OK, 1, 2},
			},
			processes: 2, clients: 2,
		},
		{
			name: "the input's index wins over the position",
			events: func() []history.Event {
				es := evs(ev("0", history.Invoke, "read", nilv), ev("0", history.OK, "read", i1))
				es[0].Index, es[0].HasIdx = 41, true
				es[1].Index, es[1].HasIdx = 42, true
				return es
			}(),
			want:      []opSummary{{0, "0", "read", i1, 0, 1, history.OK, 41, 1}},
			processes: 1, clients: 1,
		},
		{
			name:      "a completion without invocation may have begun at the start",
			events:    evs(ev("3", history.OK, "write", i1)),
			want:      []opSummary{{0, "3", "write", i1, 0, 0, history.OK, 0, 1}},
			processes: 1, clients: 1,
		},
		{
			name: "a completion without invocation began after its process's previous completion",
			events: evs(ev("3", history.Invoke, "write", i1), ev("3", history.OK, "write", i1),
				ev("4", history.Invoke, "read", nilv), ev("4", history.OK, "read", i1),
				ev("3", history.Fail, "write", i2)),
			want: []opSummary{
				{0, "3", "write", i1, 0, 1, history.OK, 0, 1},
				{0, "3", "write", i2, 1, 4, history.Fail, 4, 5},
				{1, "4", "read", i1, 2, 3, history.OK, 2, 3},
			},
			processes: 2, clients: 2,
		},
		{
			name: "completions without invocation after an unknown outcome: another logical process",
			events: evs(ev("a", history.Info, "write", i1), ev("a", history.OK, "write", i2),
				ev("a", history.OK, "read", i2)),
			want: []opSummary{
				{0, "a", "write", i1, 0, inf, history.Info, 0, 1},
				{1, "a", "write", i2, 0, 1, history.OK, 1, 2},
				{1, "a", "read", i2, 1, 2, history.OK, 2, 3},
			},
			processes: 2, clients: 1,
			warnings: []string{"process a invoked again after an operation with unknown outcome (line 2); treating it as a new logical process"},
		},
		{
			name: "by times, a completion without invocation began at its process's previous completion's time, or 0",
			events: evs(
				timed(ev("a", history.Invoke, "write", i1), 10),
				timed(ev("a", history.OK, "write", i1), 20),
				timed(ev("a", history.OK, "read", i1), 30),
				timed(ev("b", history.OK, "read", i1), 25)),
			want: []opSummary{
				{0, "b", "read", i1, 0, 25, history.OK, 3, 4},
				{1, "a", "write", i1, 10, 20, history.OK, 0, 1},
				{1, "a", "read", i1, 20, 30, history.OK, 2, 3},
			},
			processes: 2, clients: 2,
			warnings: []string{"the times of 1 event(s) contradict their order in the input, first line 4 (time 25) after line 3 (time 30); " +
				"the events are ordered by their times"},
		},
		{
			name: "operations run at once are concurrent, of another process, paired by operation",
			events: evs(ev("1", history.Invoke, "read", nilv), ev("1", history.Invoke, "write", i1),
				ev("1", history.OK, "write", i1), ev("1", history.OK, "read", i1),
				ev("1", history.Invoke, "read", nilv), ev("1", history.OK, "read", i1)),
			want: []opSummary{
				{0, "1", "read", i1, 0, 3, history.OK, 0, 1},
				{1, "1#2", "write", i1, 1, 2, history.OK, 1, 2},
				{0, "1", "read", i1, 4, 5, history.OK, 4, 5},
			},
			processes: 2, clients: 2,
			warnings: []string{"process 1 invoked an operation while another of its operations was open (line 2); the operations it ran at once are read as concurrent, of other processes named 1#2, …"},
		},
		{
			name: "operations run at once paired by value, as Elle's transactions",
			events: evs(
				ev("0", history.Invoke, "txn", history.ListValue(history.ListValue(history.StringValue("r"), history.StringValue("x"), nilv))),
				ev("0", history.Invoke, "txn", history.ListValue(history.ListValue(history.StringValue("append"), history.StringValue("x"), i1))),
				ev("0", history.Invoke, "txn", history.ListValue(history.ListValue(history.StringValue("append"), history.StringValue("x"), i2))),
				ev("0", history.OK, "txn", history.ListValue(history.ListValue(history.StringValue("append"), history.StringValue("x"), i2))),
				ev("0", history.OK, "txn", history.ListValue(history.ListValue(history.StringValue("r"), history.StringValue("x"), history.ListValue(i2)))),
				ev("0", history.Fail, "txn", history.ListValue(history.ListValue(history.StringValue("append"), history.StringValue("x"), i1)))),
			want: []opSummary{
				{0, "0", "txn", history.ListValue(history.ListValue(history.StringValue("r"), history.StringValue("x"), history.ListValue(i2))), 0, 4, history.OK, 0, 1},
				{1, "0#2", "txn", history.ListValue(history.ListValue(history.StringValue("append"), history.StringValue("x"), i1)), 1, 5, history.Fail, 1, 2},
				{2, "0#3", "txn", history.ListValue(history.ListValue(history.StringValue("append"), history.StringValue("x"), i2)), 2, 3, history.OK, 2, 3},
			},
			processes: 3, clients: 3,
			warnings: []string{"process 0 invoked an operation while another of its operations was open (line 2); the operations it ran at once are read as concurrent, of other processes named 0#2, … (2 times in all)"},
		},
		{
			name: "a completion without invocation after operations run at once begins after the thread idle longest",
			events: evs(ev("a", history.Invoke, "read", nilv), ev("a", history.Invoke, "write", i1),
				ev("a", history.OK, "read", i0), ev("b", history.Invoke, "read", nilv), ev("b", history.OK, "read", i0),
				ev("a", history.OK, "write", i1), ev("a", history.OK, "read", i1)),
			want: []opSummary{
				{0, "a", "read", i0, 0, 2, history.OK, 0, 1},
				{1, "a#2", "write", i1, 1, 5, history.OK, 1, 2},
				{0, "a", "read", i1, 2, 6, history.OK, 6, 7},
				{2, "b", "read", i0, 3, 4, history.OK, 3, 4},
			},
			processes: 3, clients: 3,
			warnings: []string{"process a invoked an operation while another of its operations was open (line 2); the operations it ran at once are read as concurrent, of other processes named a#2, …"},
		},
		{
			name:   "empty history",
			events: nil,
			want:   []opSummary{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, err := pairIn(history.TimeOrder, tc.events)
			if err != nil {
				t.Fatal(err)
			}
			if got := summarize(h); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ops:\n got %+v\nwant %+v", got, tc.want)
			}
			if h.Processes != tc.processes || h.Clients != tc.clients || h.Ignored != tc.ignored {
				t.Errorf("processes/clients/ignored = %d/%d/%d, want %d/%d/%d", h.Processes, h.Clients, h.Ignored, tc.processes, tc.clients, tc.ignored)
			}
			if !reflect.DeepEqual(h.Warnings, tc.warnings) {
				t.Errorf("warnings:\n got %q\nwant %q", h.Warnings, tc.warnings)
			}
		})
	}
}

func TestPairFields(t *testing.T) {
	k1, k2 := history.StringValue("x"), history.StringValue("y")
	inv := history.Event{Process: "0", Type: history.Invoke, F: "write", Value: i1, Key: k1, Version: i1,
		Extra: []history.Field{{Name: "node", Value: history.StringValue("n1")}, {Name: "try", Value: i1}}, Line: 1}
	ok := history.Event{Process: "0", Type: history.OK, F: "write", Value: i1, Key: k2, Token: i3,
		Extra: []history.Field{{Name: "try", Value: i2}, {Name: "error", Value: nilv}}, Line: 2}
	h, err := history.Pair([]history.Event{inv, ok})
	if err != nil {
		t.Fatal(err)
	}
	o := h.Ops[0]
	if o.Key != k2 || o.Version != i1 || o.Token != i3 {
		t.Errorf("key/version/token = %#v/%#v/%#v, want completion's key, invocation's version, completion's token", o.Key, o.Version, o.Token)
	}
	want := []history.Field{{Name: "node", Value: history.StringValue("n1")}, {Name: "try", Value: i2}, {Name: "error", Value: nilv}}
	if !reflect.DeepEqual(o.Extra, want) {
		t.Errorf("extra = %v, want %v", o.Extra, want)
	}
	if len(inv.Extra) != 2 || inv.Extra[1].Value != i1 {
		t.Errorf("merging changed the invocation's fields: %v", inv.Extra)
	}
}

func TestPairErrors(t *testing.T) {
	tests := []struct {
		name   string
		events []history.Event
		line   int
		op     int
		msg    string
	}{
		{"completion without invocation, back in its process's time", evs(timed(ev("a", history.OK, "write", i1), 20), timed(ev("a", history.OK, "read", i1), 10)), 2, 0,
			"time 10 is before the time 20 of process a's previous event (line 1); each process's events must be in time order"},
		{"two open invocations that fit one completion", evs(ev("1", history.Invoke, "read", nilv), ev("1", history.Invoke, "read", nilv), ev("1", history.OK, "read", i1)), 3, 0,
			"process 1 completes a read that could close its invocation from line 1 or from line 2: the pairing is ambiguous; give operations that run at once distinct processes"},
		{"two open invocations whose values fit one completion", evs(ev("1", history.Invoke, "write", i1), ev("1", history.Invoke, "write", i2), ev("1", history.Invoke, "write", i1), ev("1", history.OK, "write", i1)), 4, 0,
			"process 1 completes a write that could close its invocation from line 1 or from line 3: the pairing is ambiguous; give operations that run at once distinct processes"},
		{"open invocations of other operations", evs(ev("1", history.Invoke, "read", nilv), ev("2", history.Invoke, "read", nilv), ev("1", history.Invoke, "append", i1), ev("1", history.OK, "cas", i1)), 4, 0,
			"process 1 completes a cas but none of its 2 open invocations (line 1, …) is one"},
		{"a thread's name in the input", evs(ev("0", history.Invoke, "read", nilv), ev("0", history.Invoke, "write", i1), ev("0#2", history.Invoke, "read", nilv)), 3, 0,
			"process 0#2 appears in the input, but that name was given to the operations process 0 ran at once; rename one of them"},
		{"f mismatch", evs(ev("0", history.Invoke, "read", nilv), ev("0", history.OK, "write", i1)), 2, 0,
			"process 0 completes a write but its open invocation (line 1) is a read"},
		{"missing process", evs(ev("", history.Invoke, "read", nilv)), 1, 0, "event has no process"},
		{"return before call", evs(timed(ev("0", history.Invoke, "read", nilv), 10), timed(ev("0", history.OK, "read", i1), 4)), 2, 0,
			"completion time 4 is before its invocation's time 10 (line 1)"},
		{"info before call", evs(timed(ev("0", history.Invoke, "read", nilv), 10), timed(ev("0", history.Info, "read", i1), 9)), 2, 0,
			"completion time 9 is before its invocation's time 10 (line 1)"},
		{"no lines: position instead", []history.Event{ev("0", history.Invoke, "read", nilv), ev("0", history.Invoke, "read", nilv), ev("0", history.OK, "read", i1)}, 0, 3,
			"process 0 completes a read that could close its invocation from event 1 or from event 2: the pairing is ambiguous; give operations that run at once distinct processes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pairIn(history.TimeOrder, tc.events)
			var ie *history.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an *InputError", err)
			}
			if ie.Line != tc.line || ie.Op != tc.op || ie.Msg != tc.msg {
				t.Errorf("got line %d op %d %q\nwant line %d op %d %q", ie.Line, ie.Op, ie.Msg, tc.line, tc.op, tc.msg)
			}
		})
	}
}

func TestPairWarningSummary(t *testing.T) {
	var es []history.Event
	for c := 0; c < 12; c++ {
		p := string(rune('a' + c))
		es = append(es, ev(p, history.Invoke, "write", i1), ev(p, history.Info, "write", nilv), ev(p, history.Invoke, "read", nilv))
	}
	h, err := history.Pair(es)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Warnings) != 11 {
		t.Fatalf("got %d warnings, want 10 and a summary: %q", len(h.Warnings), h.Warnings)
	}
	if want := "2 more processes invoked again after an operation with unknown outcome; each was treated as a new logical process"; h.Warnings[10] != want {
		t.Errorf("summary = %q, want %q", h.Warnings[10], want)
	}
	if !strings.HasPrefix(h.Warnings[0], "process a invoked again after an operation with unknown outcome (event 3)") {
		t.Errorf("first warning = %q", h.Warnings[0])
	}
	if h.Processes != 24 || h.Clients != 12 {
		t.Errorf("processes/clients = %d/%d, want 24/12", h.Processes, h.Clients)
	}
}

// TestEventsRoundTrip checks that Events is the inverse of Pair on the
// awkward cases: zero-length operations, touching intervals, equal calls,
// unknown outcomes followed by the same client, failed operations.
func TestEventsRoundTrip(t *testing.T) {
	ops := []history.Op{
		{Client: "A", F: "write", Value: i1, Call: 0, Return: 5, Status: history.OK},
		{Client: "A", F: "read", Value: i1, Call: 5, Return: 5, Status: history.OK},
		{Client: "A", F: "write", Value: i2, Call: 5, Return: 7, Status: history.Fail},
		{Client: "B", F: "write", Value: i3, Call: 5, Status: history.Info},
		{Client: "B", F: "read", Value: i3, Call: 5, Return: 6, Status: history.OK},
		{Client: "C", F: "cas", Value: history.ListValue(i1, i2), Key: history.StringValue("k"), Call: 1, Return: 9, Status: history.OK,
			Extra: []history.Field{{Name: "node", Value: history.StringValue("n2")}}},
		{Client: "B", F: "read", Value: nilv, Call: 8, Status: history.Info},
	}
	for i := range ops {
		ops[i].Index = int64(100 + i)
		ops[i].Line = i + 1
	}
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	back, err := pairIn(history.TimeOrder, h.Events())
	if err != nil {
		t.Fatal(err)
	}
	sameHistory(t, h, back)
}

// TestDerive checks that a part of a history in file order stays in file
// order and keeps its recorded times, where FromOps would read positions
// as times.
func TestDerive(t *testing.T) {
	h, err := history.Pair(evs(
		timed(ev("A", history.Invoke, "write", i1), 100),
		timed(ev("A", history.OK, "write", i1), 200),
		timed(ev("B", history.Invoke, "read", nilv), 50),
		timed(ev("B", history.OK, "read", i1), 300)))
	if err != nil {
		t.Fatal(err)
	}
	part, err := h.Derive([]history.Op{h.Ops[1]})
	if err != nil {
		t.Fatal(err)
	}
	o := part.Ops[0]
	if part.Order != history.FileOrder || !part.Timed || o.Call != 2 || o.Return != 3 || o.Times != (history.Span{Call: 50, Return: 300}) {
		t.Errorf("derived history: order %v, timed %v, op %+v", part.Order, part.Timed, o)
	}
	whole, err := history.FromOps([]history.Op{h.Ops[1]})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Order != history.TimeOrder || whole.Ops[0].Times != (history.Span{Call: 2, Return: 3}) {
		t.Errorf("FromOps: order %v, op %+v", whole.Order, whole.Ops[0])
	}
}

// TestPairExpect checks that the Pairer's size hint changes nothing but
// where the operations are held: too low, too high or given at any point,
// the history is the one paired without it.
func TestPairExpect(t *testing.T) {
	var es []history.Event
	for i := range 20000 {
		p := strconv.Itoa(i % 7)
		if i%13 == 0 { // outcome unknown: a client of its own
			es = append(es, timed(ev("crashed"+strconv.Itoa(i), history.Invoke, "write", history.IntValue(int64(i))), int64(2*i)))
			continue
		}
		es = append(es, timed(ev(p, history.Invoke, "write", history.IntValue(int64(i))), int64(2*i)),
			timed(ev(p, history.OK, "write", history.IntValue(int64(i))), int64(2*i+1)))
	}
	pair := func(hint func(p *history.Pairer, k int)) *history.History {
		p := history.NewPairer()
		for k := range es {
			e := es[k]
			if err := p.Add(&e); err != nil {
				t.Fatal(err)
			}
			hint(p, k)
		}
		return p.History()
	}
	want := pair(func(*history.Pairer, int) {})
	n := int64(len(es))
	const ev = 100 // bytes an event takes in the input the hints describe
	for _, tc := range []struct {
		name       string
		at         int   // event after which the hint is given
		read, size int64 // the share of the input it claims
		flat       bool  // whether the hint is taken
	}{
		{"exact", 5000, 5000 * ev, n * ev, true},
		{"too low", 5000, 5000 * ev, 12000 * ev, true},
		{"too high", 5000, 5000 * ev, 5 * n * ev, true},
		{"late, from several chunks", 20000, 20000 * ev, n * ev, true},
		{"too early", 10, 10 * ev, n * ev, false},
		{"early, from a few hundred operations", 700, 700 * ev, n * ev, true},
		{"early, from too few operations", 300, 300 * ev, n * ev, false},
		{"a dense head", 5000, 5000 * ev, 1 << 40, false},
		{"a dense head, one 64th read", 5000, 1 << 34, 1 << 40, true},
	} {
		opsAt := 0
		got := pair(func(p *history.Pairer, k int) {
			if k == tc.at {
				opsAt = p.Ops()
				p.Expect(tc.read, tc.size)
			}
		})
		if !reflect.DeepEqual(summarize(got), summarize(want)) {
			t.Errorf("%s: the history differs from the one paired without a hint", tc.name)
		}
		// Taken, the hint sizes the slice; it never asks for more than 64
		// times the operations so far (and a twentieth).
		if limit := 64*opsAt*21/20 + 64; cap(got.Ops) > max(limit, len(got.Ops)) {
			t.Errorf("%s: room for %d operations after a hint at %d", tc.name, cap(got.Ops), opsAt)
		}
		if taken := cap(got.Ops) != len(got.Ops); taken != tc.flat {
			t.Errorf("%s: hint taken %v, want %v (room for %d of %d)", tc.name, taken, tc.flat, cap(got.Ops), len(got.Ops))
		}
	}
}

// TestPairMixedTimes covers events of which some have a time and some
// none, as Elle's tests write them: in file order the times are not used,
// with a warning; ordering by times is refused at the first event that
// differs.
func TestPairMixedTimes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		events  []history.Event
		line    int
		warning string
		err     string
	}{
		{"time missing", evs(timed(ev("0", history.Invoke, "read", nilv), 1), ev("0", history.OK, "read", i1),
			ev("1", history.Invoke, "read", nilv), ev("1", history.OK, "read", i1)), 2,
			"3 event(s) have no time, unlike the first event (first line 2); the times are not used: the events are ordered as in the input",
			"event has no time but the events before it do, so the events cannot be ordered by their times"},
		{"time appears", evs(ev("0", history.Invoke, "read", nilv), timed(ev("0", history.OK, "read", i1), 4)), 2,
			"1 event(s) have a time, unlike the first event (first line 2); the times are not used: the events are ordered as in the input",
			"event has a time but the events before it do not, so the events cannot be ordered by their times"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := history.Pair(tc.events)
			if err != nil {
				t.Fatal(err)
			}
			if h.Timed || !reflect.DeepEqual(h.Warnings, []string{tc.warning}) {
				t.Errorf("timed %v, warnings %q; want untimed and %q", h.Timed, h.Warnings, tc.warning)
			}
			err = h.OrderByTimes()
			var ie *history.InputError
			if !errors.As(err, &ie) || ie.Line != tc.line || ie.Msg != tc.err {
				t.Errorf("ordering by times: got %v, want line %d: %s", err, tc.line, tc.err)
			}
		})
	}
}

// TestPairerOpen follows which processes have an operation open while
// events are added: after an invocation, on another thread of the name
// too, and no longer once each is completed, whatever its outcome.
func TestPairerOpen(t *testing.T) {
	steps := []struct {
		e    history.Event
		open map[string]bool
	}{
		{ev("a", history.Invoke, "read", nilv), map[string]bool{"a": true, "b": false}},
		{ev("b", history.Invoke, "write", i1), map[string]bool{"a": true, "b": true}},
		{ev("a", history.OK, "read", i1), map[string]bool{"a": false, "b": true}},
		{ev("b", history.Info, "write", i1), map[string]bool{"a": false, "b": false}},
		{ev("a", history.Invoke, "write", i1), map[string]bool{"a": true}},
		{ev("a", history.Invoke, "write", i2), map[string]bool{"a": true}}, // a second thread of a
		{ev("a", history.Fail, "write", i1), map[string]bool{"a": true}},
		{ev("a", history.OK, "write", i2), map[string]bool{"a": false}},
		{ev("nemesis", history.Invoke, "start", nilv), map[string]bool{"nemesis": false}},
	}
	p := history.NewPairer()
	for i, s := range steps {
		if err := p.Add(&s.e); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		for name, want := range s.open {
			if got := p.Open(name); got != want {
				t.Errorf("after event %d: Open(%q) = %v, want %v", i, name, got, want)
			}
		}
	}
}
