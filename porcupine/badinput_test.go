package porcupine_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	upstream "github.com/anishathalye/porcupine"

	"github.com/histcheck/histcheck/porcupine"
)

type regIn struct {
	write bool
	v     int
}

// regModel is a plain register over ints.
var regModel = porcupine.Model{
	Init: func() interface{} { return 0 },
	Step: func(s, in, out interface{}) (bool, interface{}) {
		i := in.(regIn)
		if i.write {
			return true, i.v
		}
		return out == s, s
	},
}

// panics calls f and returns what it panicked with, in this goroutine.
func panics(f func()) (v interface{}) {
	defer func() { v = recover() }()
	f()
	return nil
}

// TestModelPanics checks that a model's panic during a check comes back
// in the caller's goroutine, where a test can recover it and where it
// names the test (Porcupine's, in a goroutine of its own, ends the
// process), and that it says what was being done.
func TestModelPanics(t *testing.T) {
	ops := []porcupine.Operation{{Input: regIn{true, 1}, Call: 0, Return: 1}}
	boom := func(s, in, out interface{}) (bool, interface{}) { panic("boom") }
	cases := []struct {
		name string
		m    porcupine.Model
		want []string
	}{
		{"step", porcupine.Model{Init: regModel.Init, Step: boom}, []string{"step panicked", "boom", "write:true"}},
		{"hash", porcupine.Model{Init: regModel.Init, Step: regModel.Step,
			Hash: func(interface{}) uint64 { panic("no hash") }}, []string{"no hash"}},
		{"nil init", porcupine.Model{Step: regModel.Step}, []string{"needs Init"}},
		{"no step", porcupine.Model{Init: regModel.Init}, []string{"needs Step"}},
	}
	// Without partitions, Porcupine never calls Init: neither does this.
	noParts := porcupine.Model{Step: regModel.Step, Partition: func([]porcupine.Operation) [][]porcupine.Operation { return nil }}
	if v := panics(func() { porcupine.CheckOperations(noParts, ops) }); v != nil {
		t.Errorf("a model without Init and no partitions panics: %v", v)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, check := range []func(){
				func() { porcupine.CheckOperations(c.m, ops) },
				func() { porcupine.CheckOperationsVerbose(c.m, ops, 0) },
				func() {
					porcupine.CheckEvents(c.m, []porcupine.Event{{Kind: porcupine.CallEvent, Value: ops[0].Input}, {Kind: porcupine.ReturnEvent}})
				},
			} {
				v := panics(check)
				if v == nil {
					t.Fatal("no panic in the caller's goroutine")
				}
				msg := ""
				switch x := v.(type) {
				case error:
					msg = x.Error()
					var mp *porcupine.ModelPanic
					if c.name == "step" && !errors.As(x, &mp) {
						t.Errorf("panic %T, want a *ModelPanic", x)
					}
				case string:
					msg = x
				}
				for _, w := range c.want {
					if !strings.Contains(msg, w) {
						t.Errorf("panic %q does not say %q", msg, w)
					}
				}
			}
		})
	}
}

// TestBadHistories checks histories that are not histories: each is
// Illegal, as Porcupine says, never a panic; a verbose check explains what
// is wrong, and the picture is written (Porcupine's own picture of some of
// these panics).
func TestBadHistories(t *testing.T) {
	w1, r0 := regIn{true, 1}, regIn{false, 0}
	ev := func(k porcupine.EventKind, v interface{}, id int) porcupine.Event {
		return porcupine.Event{Kind: k, Value: v, Id: id}
	}
	call, ret := porcupine.CallEvent, porcupine.ReturnEvent
	cases := []struct {
		name   string
		ops    []porcupine.Operation
		events []porcupine.Event
		says   string
	}{
		{name: "return before call", ops: []porcupine.Operation{{Input: w1, Call: 10, Return: 5}, {ClientId: 1, Input: r0, Output: 1, Call: 0, Return: 20}},
			says: "returns (at 5) before its call (at 10)"},
		{name: "call never returns", events: []porcupine.Event{ev(call, w1, 0), ev(call, r0, 1), ev(ret, 0, 1)},
			says: "never returns"},
		{name: "return without call", events: []porcupine.Event{ev(ret, 0, 5), ev(call, r0, 1), ev(ret, 0, 1)},
			says: "has no call before it"},
		{name: "event return before call", events: []porcupine.Event{ev(ret, 0, 1), ev(call, r0, 1)},
			says: "has no call before it"},
		{name: "id called twice", events: []porcupine.Event{ev(call, r0, 1), ev(ret, 0, 1), ev(call, r0, 1), ev(ret, 0, 1)},
			says: "called or returned before"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got porcupine.CheckResult
			var info porcupine.LinearizationInfo
			var want bool
			if c.ops != nil {
				got, info = porcupine.CheckOperationsVerbose(regModel, c.ops, 0)
				var up []upstream.Operation
				for _, o := range c.ops {
					up = append(up, upstream.Operation{Input: o.Input, Output: o.Output, Call: o.Call, Return: o.Return})
				}
				want = upstream.CheckOperations(upstream.Model{Init: regModel.Init, Step: regModel.Step}, up)
			} else {
				got, info = porcupine.CheckEventsVerbose(regModel, c.events, 0)
				var up []upstream.Event
				for _, e := range c.events {
					up = append(up, upstream.Event{Kind: upstream.EventKind(e.Kind), Value: e.Value, Id: e.Id})
				}
				want = upstream.CheckEvents(upstream.Model{Init: regModel.Init, Step: regModel.Step}, up)
			}
			if got != porcupine.Illegal || want {
				t.Fatalf("verdict %v (Porcupine: linearizable %v), want Illegal from both", got, want)
			}
			e, ok := info.Explanation()
			if !ok || !strings.Contains(e.Text, c.says) {
				t.Errorf("explanation %q (%v), want it to say %q", e.Text, ok, c.says)
			}
			var page bytes.Buffer
			if err := porcupine.Visualize(regModel, info, &page); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(page.String(), c.says) {
				t.Errorf("the page does not say %q", c.says)
			}
		})
	}
}

// TestEndOfTime checks operations called or returning at the end of time
// (math.MaxInt64, as users record an operation whose client never heard
// back), against Porcupine's verdicts.
func TestEndOfTime(t *testing.T) {
	const end = math.MaxInt64
	w1, r0 := regIn{true, 1}, regIn{false, 0}
	cases := []struct {
		name string
		ops  []porcupine.Operation
	}{
		{"write returning at the end, read of it", []porcupine.Operation{
			{Input: w1, Call: 0, Return: end}, {ClientId: 1, Input: r0, Output: 1, Call: 5, Return: 6}}},
		{"read called and returning at the end", []porcupine.Operation{
			{Input: w1, Call: 0, Return: 3}, {ClientId: 1, Input: r0, Output: 1, Call: end, Return: end}}},
		{"stale read at the end", []porcupine.Operation{
			{Input: w1, Call: 0, Return: 3}, {ClientId: 1, Input: r0, Output: 0, Call: end, Return: end}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var up []upstream.Operation
			for _, o := range c.ops {
				up = append(up, upstream.Operation{ClientId: o.ClientId, Input: o.Input, Output: o.Output, Call: o.Call, Return: o.Return})
			}
			want := upstream.CheckOperations(upstream.Model{Init: regModel.Init, Step: regModel.Step}, up)
			if got := porcupine.CheckOperations(regModel, c.ops); got != want {
				t.Errorf("linearizable %v, Porcupine says %v", got, want)
			}
		})
	}
}

// TestExploreAsksSafely checks that a model that panics on a step no
// order of the history needs (here: a read after a write of 2, which the
// history never has) checks as it does with Porcupine, since the table of
// reachable states asks such steps.
func TestExploreAsksSafely(t *testing.T) {
	m := porcupine.Model{
		Init: regModel.Init,
		Step: func(s, in, out interface{}) (bool, interface{}) {
			if i := in.(regIn); !i.write && s == 2 {
				panic("a read after the write of 2")
			}
			return regModel.Step(s, in, out)
		},
	}
	var ops []porcupine.Operation
	for i := int64(0); i < 40; i++ {
		// Reads of 1 after a write of 1, then a write of 2 at the end.
		in, out := regIn{false, 0}, interface{}(1)
		if i == 0 {
			in, out = regIn{true, 1}, nil
		}
		ops = append(ops, porcupine.Operation{ClientId: int(i % 4), Input: in, Output: out, Call: 10 * i, Return: 10*i + 5})
	}
	ops = append(ops, porcupine.Operation{Input: regIn{true, 2}, Call: 1000, Return: 1005})
	if got := porcupine.CheckOperations(m, ops); !got {
		t.Errorf("linearizable %v, want true", got)
	}
}
