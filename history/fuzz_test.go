package history_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// byteSource hands out the fuzzer's bytes as small choices, and zeros when
// they run out.
type byteSource struct{ b []byte }

func (s *byteSource) next() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

func (s *byteSource) empty() bool { return len(s.b) == 0 }

// signed reads a small signed number, so that times can go backwards.
func (s *byteSource) signed() int64 { return int64(int8(s.next())) }

var (
	fuzzClients = []string{"0", "1", "2", "A", "nemesis", ""}
	fuzzFs      = []string{"read", "write", "cas"}
)

func fuzzValue(s *byteSource) history.Value {
	switch c := s.next(); c % 4 {
	case 0:
		return history.Value{}
	case 1:
		return history.NilValue
	default:
		return history.IntValue(int64(c / 4))
	}
}

// fuzzEvents decodes events: a header byte says whether the events carry
// times, indexes and lines (sometimes not all of them do, to reach the
// mixed-time errors); then 4 bytes per event.
func fuzzEvents(data []byte) []history.Event {
	s := &byteSource{b: data}
	flags := s.next()
	var out []history.Event
	t := int64(0)
	for !s.empty() && len(out) < 400 {
		a := s.next()
		e := history.Event{
			Process: fuzzClients[int(a)%len(fuzzClients)],
			Type:    history.Type((a / 8) % 5), // 4 is not a type
			F:       fuzzFs[int(a/64)%len(fuzzFs)],
			Value:   fuzzValue(s),
		}
		t += s.signed()
		if flags&1 != 0 && (flags&8 == 0 || len(out)%7 != 6) {
			e.Time, e.HasTime = t, true
		}
		if flags&2 != 0 {
			e.Index, e.HasIdx = int64(s.next()), true
		}
		if flags&4 != 0 {
			e.Line = len(out) + 1
		}
		out = append(out, e)
	}
	return out
}

// checkInputError asserts that err is an *InputError with a place.
func checkInputError(t *testing.T, err error) {
	t.Helper()
	var ie *history.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T) is not an *InputError", err, err)
	}
	if ie.Line <= 0 && ie.Op <= 0 {
		t.Fatalf("error %q names no line or operation", err)
	}
}

// sameAsRoundTrip checks that Pair reads h.Events() back as h.
func sameAsRoundTrip(t *testing.T, h *history.History) {
	t.Helper()
	back, err := pairIn(h.Order, h.Events())
	if err != nil {
		t.Fatalf("pairing the history's own events: %v", err)
	}
	sameHistory(t, h, back)
}

// sameHistory fails the test unless got is equivalent to want.
func sameHistory(t *testing.T, want, got *history.History) {
	t.Helper()
	if err := history.Equivalent(want, got); err != nil {
		t.Fatalf("round trip: %v", err)
	}
}

// FuzzPair checks that pairing any events gives either a valid history
// that reads back from its own events, or an *InputError with a place.
func FuzzPair(f *testing.F) {
	f.Add([]byte{1, 0, 0, 1, 8, 3, 1})
	f.Add([]byte{5, 0, 0, 10, 1, 0, 8, 7, 0, 2, 9, 2})
	f.Add([]byte{7, 3, 1, 0, 4, 64, 0, 1, 5, 24, 1, 1, 6, 65, 9, 250, 7})
	f.Add([]byte{13, 0, 1, 1, 1, 1, 1, 1, 1, 8, 1, 1, 1, 16, 1, 1, 1, 0, 2, 1, 1, 25, 2, 1, 1, 0, 3, 1, 1, 8, 3, 1, 1})
	f.Add([]byte{0, 4, 0, 4, 0, 32, 0, 40, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		events := fuzzEvents(data)
		h, err := history.Pair(events)
		if err != nil {
			checkInputError(t, err)
			return
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("invalid history: %v", err)
		}
		// One operation per invocation, and one per completion that
		// has no open invocation (its call was not recorded).
		// (A process may have several open at once.)
		ops, open := 0, map[string]int{}
		for _, e := range events {
			switch {
			case history.IsNemesis(e.Process):
			case e.Type == history.Invoke:
				ops++
				open[e.Process]++
			case open[e.Process] > 0:
				open[e.Process]--
			default:
				ops++
			}
		}
		if len(h.Ops) != ops {
			t.Fatalf("%d ops from %d invocations and completions without one", len(h.Ops), ops)
		}
		sameAsRoundTrip(t, h)
	})
}

// fuzzOps decodes operations, 5 bytes each.
func fuzzOps(data []byte) []history.Op {
	s := &byteSource{b: data}
	var out []history.Op
	for !s.empty() && len(out) < 300 {
		a := s.next()
		o := history.Op{
			Client: fuzzClients[int(a)%len(fuzzClients)],
			F:      fuzzFs[int(a/8)%len(fuzzFs)],
			Status: history.Type((a / 32) % 5), // Invoke and 4 are not statuses
			Value:  fuzzValue(s),
			Call:   s.signed(),
			Index:  int64(len(out)),
		}
		o.Return = o.Call + s.signed()
		switch c := s.next(); {
		case c == 255:
			o.Return = history.Infinity
		case c == 254:
			o.Call = history.Infinity
		case c%2 == 1:
			o.Line = len(out) + 1
		}
		out = append(out, o)
	}
	return out
}

// FuzzFromOps checks that validating any operations gives either a valid
// history that reads back from its own events, or an *InputError with a
// place, and that the input is left alone.
func FuzzFromOps(f *testing.F) {
	f.Add([]byte{32, 1, 0, 10, 1, 33, 2, 2, 2, 1})
	f.Add([]byte{96, 1, 4, 0, 1, 96, 3, 5, 3, 1, 32, 5, 0, 2, 1})
	f.Add([]byte{32, 1, 5, 255, 0, 32, 1, 2, 2, 0})
	f.Add([]byte{64, 1, 0, 0, 255, 32, 1, 0, 0, 254, 0, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		ops := fuzzOps(data)
		before := append([]history.Op(nil), ops...)
		h, err := history.FromOps(ops)
		if !reflect.DeepEqual(ops, before) {
			t.Fatal("FromOps changed its input")
		}
		if err != nil {
			checkInputError(t, err)
			return
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("invalid history: %v", err)
		}
		kept := 0
		for _, o := range ops {
			if !history.IsNemesis(o.Client) {
				kept++
			}
		}
		if len(h.Ops) != kept || h.Ignored != len(ops)-kept {
			t.Fatalf("%d ops and %d ignored from %d, of which %d of the nemesis", len(h.Ops), h.Ignored, len(ops), len(ops)-kept)
		}
		sameAsRoundTrip(t, h)
	})
}

// TestValidateRejects checks that Validate finds each broken invariant.
func TestValidateRejects(t *testing.T) {
	good := func() *history.History {
		h, err := history.FromOps([]history.Op{
			{Client: "A", F: "write", Value: i1, Call: 0, Return: 5, Status: history.OK},
			{Client: "B", F: "read", Value: i1, Call: 2, Return: 6, Status: history.OK},
			{Client: "A", F: "read", Value: i1, Call: 7, Status: history.Info},
		})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if err := good().Validate(); err != nil {
		t.Fatalf("valid history rejected: %v", err)
	}
	tests := []struct {
		name   string
		mutate func(h *history.History)
	}{
		{"unsorted", func(h *history.History) { h.Ops[0].Call = 3 }},
		{"return before call", func(h *history.History) { h.Ops[1].Return = 1 }},
		{"info with a return", func(h *history.History) { h.Ops[2].Return = 9 }},
		{"ok without a return", func(h *history.History) { h.Ops[0].Return = history.Infinity }},
		{"invoke as a status", func(h *history.History) { h.Ops[0].Status = history.Invoke }},
		{"no client", func(h *history.History) { h.Ops[1].Client = "" }},
		{"process numbered out of order", func(h *history.History) { h.Ops[0].Process, h.Ops[1].Process = 1, 0 }},
		{"process shared by two clients", func(h *history.History) { h.Ops[1].Process = 0; h.Processes = 2 }},
		{"overlap in one process", func(h *history.History) { h.Ops[2].Process = 1 }},
		{"wrong process count", func(h *history.History) { h.Processes = 4 }},
		{"wrong client count", func(h *history.History) { h.Clients = 1 }},
	}
	for _, tc := range tests {
		h := good()
		tc.mutate(h)
		if err := h.Validate(); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

// TestPairTimeOrder covers the per-process time order: a process may not
// invoke before its previous operation completed, even when every
// operation on its own is well formed.
func TestPairTimeOrder(t *testing.T) {
	_, err := pairIn(history.TimeOrder, evs(
		timed(ev("A", history.Invoke, "write", i1), 10),
		timed(ev("A", history.OK, "write", i1), 20),
		timed(ev("B", history.Invoke, "read", nilv), 3), // other processes may lag
		timed(ev("B", history.OK, "read", i0), 4),
		timed(ev("A", history.Invoke, "read", nilv), 15),
		timed(ev("A", history.OK, "read", i1), 30)))
	var ie *history.InputError
	if !errors.As(err, &ie) || ie.Line != 5 ||
		ie.Msg != "time 15 is before the time 20 of process A's previous event (line 2); each process's events must be in time order" {
		t.Fatalf("got %v", err)
	}
}

// TestPairerStreams checks that the Pairer gives what Pair gives and stops
// at the first error.
func TestPairerStreams(t *testing.T) {
	events := evs(ev("0", history.Invoke, "read", nilv), ev("1", history.Invoke, "write", i1),
		ev("0", history.OK, "read", i0), ev("1", history.Info, "write", nilv), ev("1", history.Invoke, "read", nilv))
	want, err := history.Pair(events)
	if err != nil {
		t.Fatal(err)
	}
	p := history.NewPairer()
	for i := range events {
		if err := p.Add(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if p.Events() != len(events) {
		t.Errorf("Events() = %d, want %d", p.Events(), len(events))
	}
	if got := p.History(); !reflect.DeepEqual(got, want) {
		t.Errorf("Pairer gave %+v, Pair gave %+v", got, want)
	}
	p = history.NewPairer()
	bad := ev("", history.Invoke, "read", nilv)
	if p.Add(&bad) == nil || p.Add(&events[0]) == nil || p.History() != nil {
		t.Error("the Pairer went on after an error")
	}
}

// TestMessagesStayOnOneLine checks that names from the input that do not
// print are quoted in messages (a case the fuzzer found).
func TestMessagesStayOnOneLine(t *testing.T) {
	_, err := history.Pair(evs(ev("p\n1", history.Invoke, "a\tb", nilv), ev("p\n1", history.OK, "", nilv)))
	var ie *history.InputError
	if !errors.As(err, &ie) || ie.Msg != `process "p\n1" completes a "" but its open invocation (line 1) is an "a\tb"` {
		t.Fatalf("got %v", err)
	}
}

// TestOverlapWithOneLineKnown covers an overlap between an operation with a
// line and one without (the fuzzer found a panic there).
func TestOverlapWithOneLineKnown(t *testing.T) {
	_, err := history.FromOps([]history.Op{
		{Client: "A", F: "write", Value: i1, Call: 0, Return: 10, Status: history.OK, Line: 7},
		{Client: "A", F: "read", Value: i1, Call: 5, Return: 6, Status: history.OK},
	})
	var ie *history.InputError
	if !errors.As(err, &ie) || ie.Line != 7 || ie.Msg != "process A has two operations open at once: line 7 and operation 2" {
		t.Fatalf("got %v", err)
	}
}

// pairIn pairs events and puts the history in the order asked for.
func pairIn(o history.Ordering, events []history.Event) (*history.History, error) {
	h, err := history.Pair(events)
	if err == nil && o == history.TimeOrder && h.Timed {
		err = h.OrderByTimes()
	}
	return h, err
}
