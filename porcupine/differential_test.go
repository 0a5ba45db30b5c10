package porcupine_test

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"testing"

	upstream "github.com/anishathalye/porcupine"

	"github.com/histcheck/histcheck/porcupine"
)

// genOp is one generated operation: what it is, its interval, its true
// moment (when it takes effect, if it does) and its outcome.
type genOp struct {
	client    int
	in        casInput
	out       int
	call, ret int64
	at        int64
	takes     bool // an operation of unknown outcome that took effect
	failedCAS bool // a cas that found another value, recorded as such
}

// genCAS simulates a compare-and-set register (values 0..values-1) used
// by clients one operation at a time: each operation takes effect at a
// random moment of its interval; some crash (unknown outcome, returning
// at the end of time) and half of those take effect anyway. With
// corrupt, one read's result is changed, which usually makes the
// history illegal.
func genCAS(r *rand.Rand, n, clients, values int, corrupt bool) []genOp {
	var ops []genOp
	free := make([]int64, clients)
	for len(ops) < n {
		c := r.Intn(clients)
		call := free[c] + int64(r.Intn(5))
		ret := call + 1 + int64(r.Intn(20))
		o := genOp{client: c, call: call, ret: ret, at: call + int64(r.Int63n(ret-call+1))}
		switch k := r.Intn(10); {
		case k < 4:
			o.in = casInput{op: "read"}
		case k < 7:
			o.in = casInput{op: "write", a: r.Intn(values)}
		default:
			o.in = casInput{op: "cas", a: r.Intn(values), b: r.Intn(values)}
		}
		free[c] = ret + 1
		if r.Intn(20) == 0 {
			o.in.unknown, o.takes = true, r.Intn(2) == 0
			free[c] = ret + 1000 // a crashed client does not come back soon
		}
		ops = append(ops, o)
	}
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ops[order[a]].at < ops[order[b]].at })
	s := 0
	for _, i := range order {
		o := &ops[i]
		if o.in.unknown && !o.takes {
			continue
		}
		switch o.in.op {
		case "read":
			o.out = s
		case "write":
			s = o.in.a
		case "cas":
			if s == o.in.a {
				s = o.in.b
			} else {
				o.failedCAS = true
			}
		}
	}
	if corrupt {
		for tries := 0; tries < 10; tries++ {
			if o := &ops[r.Intn(len(ops))]; o.in.op == "read" && !o.in.unknown {
				o.out = (o.out + 1 + r.Intn(values-1)) % values
				break
			}
		}
	}
	return ops
}

// operations converts generated operations for both packages: failed cas
// left out, or (withFails) kept as observations of another value.
func operations(ops []genOp, withFails bool) ([]porcupine.Operation, []upstream.Operation) {
	var ours []porcupine.Operation
	var theirs []upstream.Operation
	for _, o := range ops {
		in := o.in
		if o.failedCAS && !in.unknown {
			if !withFails {
				continue
			}
			in.op = "failed-cas"
		}
		ret := o.ret
		if in.unknown {
			ret = math.MaxInt64
		}
		var out interface{}
		if in.op == "read" {
			out = o.out
		}
		ours = append(ours, porcupine.Operation{ClientId: o.client, Input: in, Call: o.call, Output: out, Return: ret})
		theirs = append(theirs, upstream.Operation{ClientId: o.client, Input: in, Call: o.call, Output: out, Return: ret})
	}
	return ours, theirs
}

// failingCASModel is casModel with failed cas recorded as such: legal
// when the register does not hold the expected value. No register class
// fits it, so its histories go to the search.
func failingCASModel() porcupine.Model {
	m := casModel
	step := casModel.Step
	m.Step = func(state, input, output interface{}) (bool, interface{}) {
		if in := input.(casInput); in.op == "failed-cas" {
			return in.unknown || state.(int) != in.a, state
		}
		return step(state, input, output)
	}
	return m
}

func upstreamModel(m porcupine.Model) upstream.Model {
	return upstream.Model{Init: m.Init, Step: m.Step, Equal: m.Equal, Hash: m.Hash}
}

// TestAgainstPorcupine compares verdicts with Porcupine v1.3.1 itself on
// random compare-and-set histories: small ones (the search) and ones of
// 64 operations or more (the register sweep, when the model acts as a
// register), with failed cas left out or kept, through operations and
// through events. Each verbose verdict's partial linearizations must
// replay under the model.
func TestAgainstPorcupine(t *testing.T) {
	seeds := 1000
	if testing.Short() {
		seeds = 200
	}
	counts := map[porcupine.CheckResult]int{}
	for seed := 0; seed < seeds; seed++ {
		r := rand.New(rand.NewSource(int64(seed)))
		n := 10 + r.Intn(40)
		if seed%2 == 1 {
			n = 64 + r.Intn(100)
		}
		withFails := seed%3 == 0
		ops := genCAS(r, n, 2+r.Intn(4), 2+r.Intn(3), r.Intn(2) == 0)
		ours, theirs := operations(ops, withFails)
		m := casModel
		if withFails {
			m = failingCASModel()
		}
		want := upstream.CheckOperationsTimeout(upstreamModel(m), theirs, 0)
		name := fmt.Sprintf("seed %d (%d ops, fails kept %v)", seed, len(ours), withFails)
		if got := porcupine.CheckOperationsTimeout(m, ours, 0); string(got) != string(want) {
			t.Fatalf("%s: verdict %v, Porcupine says %v", name, got, want)
		}
		got, info := porcupine.CheckOperationsVerbose(m, ours, 0)
		if string(got) != string(want) {
			t.Fatalf("%s: verbose verdict %v, Porcupine says %v", name, got, want)
		}
		checkPartials(t, name, m, info, got == porcupine.Ok, len(ours))
		if got := porcupine.CheckEvents(m, toEvents(ours)); got != (want == upstream.Ok) {
			t.Fatalf("%s: as events %v, Porcupine says %v", name, got, want)
		}
		counts[got]++
	}
	// Both verdicts must be well represented, or the comparison proves
	// little.
	if counts[porcupine.Ok] < seeds/5 || counts[porcupine.Illegal] < seeds/5 {
		t.Errorf("verdicts too one-sided: %v", counts)
	}
	t.Logf("%v", counts)
}

// checkPartials checks that each partial linearization is a legal order
// under m, and that a linearizable history's is complete.
func checkPartials(t *testing.T, name string, m porcupine.Model, info porcupine.LinearizationInfo, complete bool, n int) {
	t.Helper()
	for p, partials := range info.PartialLinearizationsOperations() {
		if complete && (len(partials) != 1 || len(partials[0]) != n) {
			t.Fatalf("%s: partition %d of a linearizable history of %d operations has %d linearizations, want 1 of them all", name, p, n, len(partials))
		}
		for _, order := range partials {
			s := m.Init()
			for k, o := range order {
				ok, next := m.Step(s, o.Input, o.Output)
				if !ok {
					t.Fatalf("%s: partial linearization %v fails at step %d", name, order, k)
				}
				s = next
			}
		}
	}
}

// toEvents lists the operations' calls and returns in time order, calls
// first at equal times.
func toEvents(ops []porcupine.Operation) []porcupine.Event {
	type ev struct {
		t    int64
		ret  bool
		id   int
		data interface{}
	}
	var evs []ev
	for i, o := range ops {
		evs = append(evs, ev{o.Call, false, i, o.Input}, ev{o.Return, true, i, o.Output})
	}
	sort.SliceStable(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return !evs[a].ret && evs[b].ret
	})
	out := make([]porcupine.Event, len(evs))
	for k, e := range evs {
		kind := porcupine.CallEvent
		if e.ret {
			kind = porcupine.ReturnEvent
		}
		out[k] = porcupine.Event{ClientId: ops[e.id].ClientId, Kind: kind, Value: e.data, Id: e.id}
	}
	return out
}
