package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// textbook builds the register histories H1–H3 of the textbook.
func textbook(t *testing.T, name string) *history.History {
	t.Helper()
	w := func(c string, v, call, ret int64) history.Op {
		return history.Op{Client: c, F: "write", Value: history.IntValue(v), Call: call, Return: ret, Status: history.OK}
	}
	r := func(c string, v, call, ret int64) history.Op {
		return history.Op{Client: c, F: "read", Value: history.IntValue(v), Call: call, Return: ret, Status: history.OK}
	}
	var ops []history.Op
	switch name {
	case "h1":
		ops = []history.Op{w("A", 1, 0, 10), r("B", 0, 2, 4), r("C", 1, 6, 8)}
	case "h2":
		ops = []history.Op{w("A", 1, 0, 10), r("B", 1, 2, 4), r("C", 0, 6, 8)}
	case "h3":
		ops = []history.Op{w("A", 1, 0, 2), r("A", 0, 3, 5)}
	case "overwritten": // a read of a value its own writer had overwritten
		ops = []history.Op{w("min", 1, 0, 1), w("min", 2, 2, 3), r("maj", 1, 4, 5)}
	case "unwritten": // a read of a value nobody wrote
		ops = []history.Op{r("maj", 5, 0, 1)}
	}
	for i := range ops {
		ops[i].Index = int64(i)
	}
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// pos finds the position of the operation with the given label.
func pos(t *testing.T, h *history.History, label string) int {
	t.Helper()
	for i := range h.Ops {
		if h.Ops[i].Label() == label {
			return i
		}
	}
	t.Fatalf("no operation %s", label)
	return -1
}

func TestText(t *testing.T) {
	h1, h2, h3 := textbook(t, "h1"), textbook(t, "h2"), textbook(t, "h3")
	tests := []struct {
		name string
		file string
		h    *history.History
		res  checker.Result
		want string
	}{
		{
			name: "H1 linearizable with witness",
			file: "h1.hist", h: h1,
			res: checker.Result{Criterion: checker.Linearizable, Valid: checker.True,
				Witness: []int{pos(t, h1, "B:r(0)"), pos(t, h1, "A:w(1)"), pos(t, h1, "C:r(1)")}},
			want: "h1.hist\tlinearizable\ttrue\n    witness: B:r(0) -> A:w(1) -> C:r(1)\n",
		},
		{
			name: "H2 sequential with witness",
			file: "h2.hist", h: h2,
			res: checker.Result{Criterion: checker.Sequential, Valid: checker.True,
				Witness: []int{pos(t, h2, "C:r(0)"), pos(t, h2, "A:w(1)"), pos(t, h2, "B:r(1)")}},
			want: "h2.hist\tsequential\ttrue\n    witness: C:r(0) -> A:w(1) -> B:r(1)\n",
		},
		{
			name: "H2 not linearizable, violation with intervals",
			file: "h2.hist", h: h2,
			res: checker.Result{Criterion: checker.Linearizable, Valid: checker.False,
				Violations: []checker.Violation{{
					Ops:     []int{pos(t, h2, "A:w(1)"), pos(t, h2, "B:r(1)"), pos(t, h2, "C:r(0)")},
					Pattern: "stale-read",
					Op:      pos(t, h2, "C:r(0)"), Value: "0", Initial: true,
				}}},
			want: "h2.hist\tlinearizable\tfalse\n" +
				"    violation (stale-read): A:w(1) [0, 10], B:r(1) [2, 4], C:r(0) [6, 8]\n" +
				"      (stale-read: a read returned a value that no order lets the register hold at any\n" +
				"      moment between its call and its return)\n" +
				"      C:r(0) cannot take effect: no order of the operations lets the register hold 0 at any moment between its call (at 6) and its return (at 8); " +
				"it is the initial value and is never written again, and it was overwritten before the read was called\n",
		},
		{
			name: "H3 unknown with reason",
			file: "h3.hist", h: h3,
			res:  checker.Result{Criterion: checker.Linearizable, Valid: checker.Unknown, Reason: "no verdict within 1ns"},
			want: "h3.hist\tlinearizable\tunknown\n    reason: no verdict within 1ns\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hr := NewHistory(tt.file, "register", tt.h)
			hr.Results = append(hr.Results, NewResult(tt.h, tt.res))
			var buf bytes.Buffer
			if err := Text(&buf, &Report{Histories: []History{hr}}); err != nil {
				t.Fatal(err)
			}
			if got := buf.String(); got != tt.want {
				t.Errorf("text output:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestTextLongWitnessAndLadder(t *testing.T) {
	var ops []history.Op
	for i := 0; i < 25; i++ {
		ops = append(ops, history.Op{Client: "A", F: "write", Value: history.IntValue(int64(i)),
			Call: int64(2 * i), Return: int64(2*i + 1), Status: history.OK})
	}
	ops = append(ops, history.Op{Client: "B", F: "write", Value: history.IntValue(99), Call: 100, Status: history.Info})
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	witness := make([]int, 25)
	for i := range witness {
		witness[i] = i
	}
	hr := NewHistory("long.json", "register", h)
	hr.Results = append(hr.Results, NewResult(h, checker.Result{Criterion: checker.Linearizable, Valid: checker.True,
		Witness: witness, Dropped: []int{25}}))
	hr.Ladder = &Ladder{Strongest: []string{"linearizable"}, Weakest: []string{}}
	var buf bytes.Buffer
	if err := Text(&buf, &Report{Histories: []History{hr}}); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	for _, want := range []string{
		"A:w(18) -> A:w(19) -> … (5 more)\n",
		"left out (outcome unknown, need not have taken effect): B:w(99)\n",
		"    strongest satisfied: linearizable\n",
		"    weakest violated: none\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "A:w(20)") {
		t.Errorf("witness not elided after %d steps:\n%s", MaxWitnessSteps, got)
	}
}

func TestSummary(t *testing.T) {
	ops := []history.Op{
		{Client: "0", F: "write", Value: history.IntValue(1), Call: 0, Return: 1, Status: history.OK},
		{Client: "1", F: "read", Value: history.NilValue, Call: 0, Status: history.Info},
		{Client: "1", F: "read", Value: history.NilValue, Call: 5, Return: 6, Status: history.Fail},
	}
	h, err := history.FromOps(ops)
	if err != nil {
		t.Fatal(err)
	}
	h.Ignored = 4
	hr := NewHistory("x.edn", "register", h)
	var buf bytes.Buffer
	if err := Summary(&buf, &hr); err != nil {
		t.Fatal(err)
	}
	want := "x.edn: 3 ops (1 ok, 1 failed, 1 unknown), 3 processes, 2 clients, 4 ignored, 1 warnings\n" +
		"    warning: " + h.Warnings[0] + "\n"
	if buf.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestCombine(t *testing.T) {
	tests := []struct {
		in   []checker.Verdict
		want checker.Verdict
	}{
		{nil, checker.True},
		{[]checker.Verdict{checker.True, checker.True}, checker.True},
		{[]checker.Verdict{checker.True, checker.Unknown}, checker.Unknown},
		{[]checker.Verdict{checker.Unknown, checker.False, checker.True}, checker.False},
	}
	for _, tt := range tests {
		if got := Combine(tt.in...); got != tt.want {
			t.Errorf("Combine(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// decodeStrict decodes a report into the documented types, refusing any
// field the schema does not name.
func decodeStrict(t *testing.T, b []byte) Report {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("report does not match the schema: %v\n%s", err, b)
	}
	return r
}

// requireFields checks that every object at the given path has the keys.
func requireFields(t *testing.T, where string, obj map[string]any, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			t.Errorf("%s lacks required field %q: %v", where, k, obj)
		}
	}
}

func TestJSONSchema(t *testing.T) {
	h2 := textbook(t, "h2")
	// One op with unknown outcome, to see return: null.
	h2.Ops[0].Status, h2.Ops[0].Return = history.Info, history.Infinity
	hr := NewHistory("h2.hist", "register", h2)
	hr.Init = InitJSON(history.IntValue(0))
	hr.Results = append(hr.Results,
		NewResult(h2, checker.Result{Criterion: checker.Linearizable, Valid: checker.False, Elapsed: 1500 * time.Microsecond,
			Violations: []checker.Violation{{Ops: []int{0, 1, 2}, Pattern: "stale-read", Op: 2, Value: "0", Initial: true}}}),
		NewResult(h2, checker.Result{Criterion: checker.Sequential, Valid: checker.True, Witness: []int{2, 0, 1}}),
		NewResult(h2, checker.Result{Criterion: checker.Causal, Valid: checker.Unknown, Reason: "timed out"}),
	)
	rep := &Report{Histories: []History{hr}}
	rep.Finish()
	var buf bytes.Buffer
	if err := JSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	got := decodeStrict(t, buf.Bytes())
	if got.Version != Version || got.Valid != checker.False || len(got.Histories) != 1 {
		t.Fatalf("decoded report: version %d valid %v histories %d", got.Version, got.Valid, len(got.Histories))
	}
	res := got.Histories[0].Results
	if res[0].ElapsedMS != 1.5 {
		t.Errorf("elapsed_ms = %v, want 1.5", res[0].ElapsedMS)
	}
	if v := res[0].Violations[0]; len(v.Ops) != 3 || v.Ops[0].Return != nil || v.Ops[1].Return == nil || *v.Ops[1].Return != 4 {
		t.Errorf("violation ops = %+v", v.Ops)
	}
	if labels := []string{res[1].Witness[0].Label, res[1].Witness[1].Label, res[1].Witness[2].Label}; strings.Join(labels, " ") != "C:r(0) A:w(1) B:r(1)" {
		t.Errorf("witness labels = %v", labels)
	}

	// Required fields, checked on the generic form.
	var raw map[string]any
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	requireFields(t, "report", raw, "version", "valid", "histories")
	hist := raw["histories"].([]any)[0].(map[string]any)
	requireFields(t, "history", hist, "file", "model", "init", "ops", "processes", "ignored", "results")
	if hist["init"] != float64(0) {
		t.Errorf("init = %v, want 0", hist["init"])
	}
	results := hist["results"].([]any)
	for _, r := range results {
		requireFields(t, "result", r.(map[string]any), "consistency", "valid", "elapsed_ms")
	}
	if v := results[0].(map[string]any)["valid"]; v != false {
		t.Errorf("valid = %v, want false", v)
	}
	unknown := results[2].(map[string]any)
	if unknown["valid"] != "unknown" || unknown["reason"] != "timed out" {
		t.Errorf("unknown result = %v", unknown)
	}
	op := results[0].(map[string]any)["violations"].([]any)[0].(map[string]any)["ops"].([]any)[0].(map[string]any)
	requireFields(t, "op", op, "index", "process", "f", "value", "call", "return", "type")
	if op["return"] != nil || op["type"] != "info" || op["process"] != "A" || op["value"] != float64(1) {
		t.Errorf("op = %v", op)
	}
	if raw["valid"] != false {
		t.Errorf("report valid = %v, want false", raw["valid"])
	}
}

// TestFinishUnknown checks the report's reason for an unknown verdict,
// with the verb agreeing with the count: one result is, several are.
func TestFinishUnknown(t *testing.T) {
	u, ok := Result{Valid: checker.Unknown}, Result{Valid: checker.True}
	tests := []struct {
		results []Result
		want    string
	}{
		{[]Result{u}, "1 of 1 results is unknown"},
		{[]Result{ok, u}, "1 of 2 results is unknown"},
		{[]Result{u, ok, u}, "2 of 3 results are unknown"},
	}
	for _, tt := range tests {
		rep := &Report{Histories: []History{{Results: tt.results}}}
		rep.Finish()
		if rep.Valid != checker.Unknown || rep.Reason != tt.want {
			t.Errorf("Finish: valid %v reason %q, want %q", rep.Valid, rep.Reason, tt.want)
		}
	}
}

// TestJSONNotKnownIsNull checks that a history's model, nil-read rule
// and order are null in JSON when not known (a file that could not be
// read), strings when known, in History's field order, and that the
// report decodes back as it was.
func TestJSONNotKnownIsNull(t *testing.T) {
	tests := []struct {
		h    History
		want string
	}{
		{History{File: "gone.edn", Error: "gone.edn: cannot open", Results: []Result{}},
			`"file":"gone.edn","model":null,"nil_read":null,"order":null,"ops":0,`},
		{History{File: "h.hist", Model: "register", Init: json.RawMessage("0"), NilRead: "value", TTL: 5, Order: "times", Results: []Result{}},
			`"file":"h.hist","model":"register","init":0,"nil_read":"value","ttl":5,"order":"times","ops":0,`},
		{History{File: "<a&b>", Results: []Result{}}, `"file":"<a&b>","model":null,`},
	}
	for _, tt := range tests {
		var js bytes.Buffer
		if err := JSON(&js, &Report{Histories: []History{tt.h}}); err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, js.Bytes()); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(compact.String(), tt.want) {
			t.Errorf("%s: JSON %s\nlacks %s", tt.h.File, compact.String(), tt.want)
		}
		dec := json.NewDecoder(&js)
		dec.DisallowUnknownFields()
		var back Report
		if err := dec.Decode(&back); err != nil {
			t.Fatalf("%s: decoding: %v", tt.h.File, err)
		}
		if got := back.Histories[0]; got.File != tt.h.File || got.Model != tt.h.Model || got.NilRead != tt.h.NilRead || got.Order != tt.h.Order || got.TTL != tt.h.TTL {
			t.Errorf("%s: decoded %+v", tt.h.File, got)
		}
	}
}
