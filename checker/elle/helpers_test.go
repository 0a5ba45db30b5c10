package elle_test

import (
	"context"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/report"
)

// mops reads Elle's test notation for a transaction: "ax1" appends 1 to
// x, "rx12" reads x = [1 2], "rx" reads x empty (list-append), "wx1"
// writes 1 to x and "rx1" reads x = 1 (rw-register, registers true).
// Keys are single letters; values single digits.
func mops(s string, registers bool) history.Value {
	var out []history.Value
	var f string
	var key history.Value
	var vals []history.Value
	flush := func() {
		if f == "" {
			return
		}
		var v history.Value
		switch {
		case f == "r" && registers && len(vals) == 0:
			v = history.NilValue
		case f == "r" && registers:
			v = vals[0]
		case f == "r":
			v = history.ListValue(vals...)
		default:
			v = vals[0]
		}
		name := map[string]string{"a": "append", "r": "r", "w": "w"}[f]
		out = append(out, history.ListValue(history.StringValue(name), key, v))
		f, vals = "", nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case 'a', 'r', 'w':
			flush()
			f = string(c)
			i++
			key = history.StringValue(string(s[i]))
		default:
			vals = append(vals, history.IntValue(int64(c-'0')))
		}
	}
	flush()
	return history.ListValue(out...)
}

// invokeValue is what a transaction's invocation carries: reads of nil.
func invokeValue(v history.Value) history.Value {
	var out []history.Value
	for _, m := range v.Elems() {
		e := m.Elems()
		if s, _ := e[0].Str(); s == "r" {
			e[2] = history.NilValue
		}
		out = append(out, history.ListValue(e...))
	}
	return history.ListValue(out...)
}

// tx is one transaction of a test history: its process, outcome and
// notation.
type tx struct {
	proc string
	typ  history.Type
	s    string
}

// concurrent builds a history in which every transaction, each on its own
// process, is invoked before any completes: no process or real-time
// order, only the data dependencies.
func concurrent(t *testing.T, registers bool, txns ...string) *history.History {
	t.Helper()
	var invokes, completes []history.Event
	for i, s := range txns {
		typ := history.OK
		if st, rest, ok := strings.Cut(s, ":"); ok {
			s = rest
			typ = map[string]history.Type{"fail": history.Fail, "info": history.Info}[st]
		}
		v := mops(s, registers)
		proc := string(rune('A' + i))
		invokes = append(invokes, history.Event{Process: proc, Type: history.Invoke, F: "txn", Value: invokeValue(v)})
		switch typ {
		case history.OK:
			completes = append(completes, history.Event{Process: proc, Type: history.OK, F: "txn", Value: v})
		case history.Fail:
			completes = append(completes, history.Event{Process: proc, Type: history.Fail, F: "txn", Value: invokeValue(v)})
		}
	}
	h, err := history.Pair(append(invokes, completes...))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// build makes a history of transactions run one after another in the
// order given (each completes before the next begins).
func build(t *testing.T, registers bool, txns ...tx) *history.History {
	t.Helper()
	var evs []history.Event
	for _, x := range txns {
		v := mops(x.s, registers)
		evs = append(evs, history.Event{Process: x.proc, Type: history.Invoke, F: "txn", Value: invokeValue(v)})
		if x.typ != history.Info {
			done := v
			if x.typ == history.Fail {
				done = invokeValue(v)
			}
			evs = append(evs, history.Event{Process: x.proc, Type: x.typ, F: "txn", Value: done})
		}
	}
	h, err := history.Pair(evs)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// analyze runs the inference on h.
func analyze(t *testing.T, h *history.History, w elle.Workload) *elle.Analysis {
	t.Helper()
	a, err := elle.Analyze(context.Background(), h, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// verdict is level's verdict on a.
func verdict(t *testing.T, a *elle.Analysis, h *history.History, level string) checker.Result {
	t.Helper()
	res, err := a.Result(h, level)
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid == checker.False && len(res.Violations) == 0 {
		t.Fatalf("%s: false without a violation", level)
	}
	for _, v := range res.Violations {
		if v.Pattern == "" || report.Explain(h, level, v) == "" || len(v.Ops) == 0 {
			t.Fatalf("%s: incomplete violation %+v", level, v)
		}
	}
	return res
}

// names lists the anomalies a found, cycles then other cases.
func names(a *elle.Analysis) []string {
	var out []string
	for _, c := range a.Cycles {
		out = append(out, c.Name)
	}
	for _, c := range a.Cases {
		out = append(out, c.Name)
	}
	return out
}
