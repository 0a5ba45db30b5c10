package sequential

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// lockWords draws a history of acquires and releases the way lock tests
// record them: each client mostly alternates acquire and release, with
// now and then a letter repeated or left out, operations of unknown
// outcome (after which the client goes on as a new process), and, for
// the lock model, fencing tokens that mostly increase. Calls interleave
// the clients at random; sequential consistency ignores them.
func lockWords(r *rand.Rand, ops, clients int, tokens bool) *history.History {
	next := make([]string, clients) // each client's next letter
	for c := range next {
		next[c] = "acquire"
		if r.IntN(4) == 0 {
			next[c] = "release"
		}
	}
	var in []history.Op
	tok := int64(0)
	for i := range ops {
		c := r.IntN(clients)
		o := history.Op{Client: fmt.Sprintf("c%d", c), F: next[c], Call: int64(2 * i), Return: int64(2*i + 1), Status: history.OK, Index: int64(i)}
		if r.IntN(8) == 0 {
			o.Status = history.Info
		}
		if tokens && o.F == "acquire" && r.IntN(3) != 0 {
			tok += int64(r.IntN(3))
			o.Token = history.IntValue(tok)
		}
		in = append(in, o)
		// Alternate, except that a letter sometimes repeats.
		if r.IntN(6) != 0 {
			if next[c] == "acquire" {
				next[c] = "release"
			} else {
				next[c] = "acquire"
			}
		}
	}
	h, err := history.FromOps(in)
	if err != nil {
		panic(err)
	}
	return h
}

// Counting refutes only histories the reference finds no order for, and
// Check, with counting first, agrees with the reference on every small
// lock history: thousands of them, with repeated letters and operations
// of unknown outcome.
func TestCountAgreesWithReference(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 1000
	}
	for _, name := range []string{"mutex", "lock"} {
		t.Run(name, func(t *testing.T) {
			counts := map[string]int{}
			for i := range n {
				r := rand.New(rand.NewPCG(uint64(i), 31))
				h := lockWords(r, 1+r.IntN(reference.MaxOps), 1+r.IntN(4), name == "lock")
				var v checker.Verdict
				var method string
				if name == "mutex" {
					v, method = countAgrees(t, model.NewMutex(model.Options{}), h, mode(i%3))
				} else {
					v, method = countAgrees(t, model.NewLock(model.Options{}), h, mode(i%3))
				}
				if t.Failed() {
					t.Fatalf("seed %d", i)
				}
				counts[fmt.Sprintf("%s/%s", v, method)]++
			}
			t.Logf("verdicts by method: %v", counts)
			if counts["false/count"] == 0 || counts["true/greedy"] == 0 || counts["true/search"] == 0 || counts["false/search"] == 0 {
				t.Errorf("the histories did not exercise counting, the greedy order and the search: %v", counts)
			}
		})
	}
}

// countAgrees is agree, and besides checks that counting alone refutes
// nothing the reference accepts.
func countAgrees[S comparable](t *testing.T, m model.Model[S], h *history.History, md mode) (checker.Verdict, string) {
	t.Helper()
	c, err := checker.Compile(m, h, nil, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	refuted := refuteByCount(newProblem(m, h, c, false))
	v, method := agree(t, m, h, md)
	if refuted != nil && v != checker.False {
		t.Errorf("counting refuted a history with an order: %+v\n%s", *refuted.Count, dump(h))
	}
	return v, method
}

// On lock histories too long for the reference, Check (counting, then
// the search with its count bound) and the search without the bound, both
// exact and with a budget of configurations, never contradict each other;
// witnesses are checked again.
func TestCountAgreesWithSearch(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 150
	}
	counts := map[string]int{}
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 37))
		if i%2 == 1 {
			// Lock histories, decided client by client.
			h := jepsenWords(r, 20+r.IntN(40), 2+r.IntN(4), 2+r.IntN(10), 4+r.IntN(10))
			counts[agreesWithSearch(t, i, model.NewLock(model.Options{}), h)]++
			continue
		}
		h := lockWords(r, 20+r.IntN(40), 2+r.IntN(4), false)
		counts[agreesWithSearch(t, i, model.NewMutex(model.Options{}), h)]++
	}
	t.Logf("verdicts: %v", counts)
	if counts["mutex:false-by-count/alone-false"]+counts["mutex:false-by-count/alone-unknown"] == 0 || counts["mutex:true-by-greedy/alone-true"] == 0 ||
		counts["lock:false-by-owners/alone-false"] == 0 || counts["lock:true-by-owners/alone-true"] == 0 {
		t.Errorf("the histories did not exercise both verdicts: %v", counts)
	}
}

// jepsenWords draws a history the way Jepsen's lock tests record one:
// each client alternates acquire and release, repeating a letter once in
// repeat operations (a bug, or a client that lost track), and crashes
// once in crash operations (outcome unknown; the client goes on as a new
// process, in the state it believed it had).
func jepsenWords(r *rand.Rand, ops, clients, repeat, crash int) *history.History {
	acquire := make([]bool, clients)
	for c := range acquire {
		acquire[c] = true
	}
	in := make([]history.Op, ops)
	for i := range in {
		c := r.IntN(clients)
		in[i] = history.Op{Client: fmt.Sprintf("c%d", c), F: "release", Call: int64(2 * i), Return: int64(2*i + 1), Status: history.OK, Index: int64(i)}
		if acquire[c] {
			in[i].F = "acquire"
		}
		if r.IntN(crash) == 0 {
			in[i].Status = history.Info
		}
		if r.IntN(repeat) != 0 {
			acquire[c] = !acquire[c]
		}
	}
	h, err := history.FromOps(in)
	if err != nil {
		panic(err)
	}
	return h
}

// Mutex and lock histories shaped like Jepsen's, with hundreds of
// operations and tens of processes (crashed clients), are decided without
// the search of all processes together: refuted by counting, ordered
// greedily, or (the lock) decided client by client; every witness is
// checked again. The search alone explores hundreds of thousands of
// configurations on most of them without a verdict.
func TestJepsenLikeLocksNeedNoSearch(t *testing.T) {
	configs := []struct{ ops, clients, repeat, crash int }{
		{264, 5, 30, 20}, {264, 5, 10, 20}, {100, 5, 8, 10}, {500, 10, 40, 30},
	}
	for _, cfg := range configs {
		mutex, lock := map[string]int{}, map[string]int{}
		for i := range 100 {
			r := rand.New(rand.NewPCG(uint64(i), 41))
			h := jepsenWords(r, cfg.ops, cfg.clients, cfg.repeat, cfg.crash)
			mutex[decidedWithoutSearch(t, model.NewMutex(model.Options{}), h)]++
			lock[decidedWithoutSearch(t, model.NewLock(model.Options{}), h)]++
			if t.Failed() {
				t.Fatalf("%+v, seed %d", cfg, i)
			}
		}
		t.Logf("%+v: mutex %v, lock %v", cfg, mutex, lock)
		if mutex["false/count"] == 0 || mutex["true/greedy"] == 0 || lock["false/owners"] == 0 {
			t.Errorf("%+v: not every method: mutex %v, lock %v", cfg, mutex, lock)
		}
	}
}

// decidedWithoutSearch checks h with a search budget of one configuration,
// fails the test unless another method decided, and returns how.
func decidedWithoutSearch[S comparable](t *testing.T, m model.Model[S], h *history.History) string {
	t.Helper()
	res, err := Check(context.Background(), m, h, Options{NoLinearFirst: true, Workers: 1, MaxNodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	switch res.Method {
	case MethodCount, MethodGreedy, MethodOwners:
	default:
		t.Errorf("%s: %s by %s", m.Info().Name, res.Valid, res.Method)
	}
	if res.Valid == checker.True {
		if err := checker.VerifyWitness(m, h, res.Witness, checker.ProcessOrder); err != nil {
			t.Errorf("%s: %v", m.Info().Name, err)
		}
	}
	return fmt.Sprintf("%s/%s", res.Valid, res.Method)
}

// agreesWithSearch compares Check with the search alone, without its
// count bound, on h, checks every witness again, and returns how each
// decided.
func agreesWithSearch[S comparable](t *testing.T, seed int, m model.Model[S], h *history.History) string {
	t.Helper()
	name := m.Info().Name
	full, err := Check(context.Background(), m, h, Options{NoLinearFirst: true, Workers: 1, MaxNodes: boundNodes})
	if err != nil {
		t.Fatal(err)
	}
	c, err := checker.Compile(m, h, nil, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	p := newProblem(m, h, c, false)
	p.noCountBound = true
	alone := runSearch(context.Background(), p, boundNodes, defaultMemoBytes)
	if full.Valid != checker.Unknown && alone.Valid != checker.Unknown && full.Valid != alone.Valid {
		t.Fatalf("seed %d: %s: %s by %s, the search alone says %s\n%s", seed, name, full.Valid, full.Method, alone.Valid, dump(h))
	}
	for _, res := range []checker.Result{full, alone} {
		if res.Valid != checker.True {
			continue
		}
		if err := checker.VerifyWitness(m, h, res.Witness, checker.ProcessOrder); err != nil {
			t.Fatalf("seed %d: %s: %v", seed, name, err)
		}
	}
	return fmt.Sprintf("%s:%s-by-%s/alone-%s", name, full.Valid, full.Method, alone.Valid)
}

// boundNodes bounds each search of the comparisons on longer lock
// histories.
const boundNodes = 50_000

// The facts of each refutation by counting: the end count over the whole
// history, and one process's share against what the others can make up.
func TestCountFacts(t *testing.T) {
	a := func(c string, at int64, st history.Type) op {
		return op{client: c, f: "acquire", call: at, ret: at + 1, status: st}
	}
	rel := func(c string, at int64) op { return op{client: c, f: "release", call: at, ret: at + 1} }
	tests := []struct {
		name string
		ops  []op
		want *checker.Count // nil: no refutation
		upto int            // index in ops of Upto, or -1
		cite []int          // indices in ops of the violation's operations
	}{
		{"two holders at the end", []op{a("A", 0, 0), rel("A", 2), a("A", 4, 0), a("B", 6, 0)},
			&checker.Count{Up: 3, Down: 1, Capacity: 1}, -1, []int{2, 3}},
		{"an unknown release may free it", []op{a("A", 0, 0), a("B", 2, 0), {client: "C", f: "release", call: 4, status: history.Info}},
			nil, -1, nil},
		{"released more than taken", []op{rel("A", 0), rel("B", 2), a("C", 4, history.Info)},
			&checker.Count{Down: 2, MayUp: 1, Capacity: 1}, -1, []int{0, 1}},
		{"two releases in a row, one other holder at most", []op{rel("A", 0), rel("A", 2), a("B", 6, 0), rel("B", 8), a("A", 10, 0), a("A", 12, 0)},
			&checker.Count{Down: 2, OthersMost: 1, Capacity: 1}, 1, []int{0, 1}},
		{"one acquire of another process cannot help twice", []op{a("B", 0, history.Info), rel("A", 2), a("A", 4, 0), a("A", 6, 0), rel("A", 8)},
			&checker.Count{Down: 1, Up: 2, Capacity: 1, InOrder: true}, 3, []int{1, 2, 3}},
		{"an alternation has an order", []op{a("A", 0, 0), rel("A", 2), a("B", 4, 0), rel("B", 6), a("B", 8, history.Info)},
			nil, -1, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := build(t, tc.ops...)
			m := model.NewMutex(model.Options{})
			res, err := Check(context.Background(), m, h, Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if res.Method == MethodCount {
					t.Fatalf("refuted by counting: %+v", res.Violations)
				}
				return
			}
			if res.Valid != checker.False || res.Method != MethodCount {
				t.Fatalf("got %s by %s, want a refutation by counting", res.Valid, res.Method)
			}
			v := res.Violations[0]
			want := *tc.want
			want.Upto = checker.None
			if tc.upto >= 0 {
				want.Upto = position(t, h, tc.ops[tc.upto])
			}
			if *v.Count != want {
				t.Errorf("facts %+v, want %+v", *v.Count, want)
			}
			var cite []int
			for _, i := range tc.cite {
				cite = append(cite, position(t, h, tc.ops[i]))
			}
			if fmt.Sprint(v.Ops) != fmt.Sprint(cite) {
				t.Errorf("operations %s, want %s", labels(h, v.Ops), labels(h, cite))
			}
			if Explain(h, checker.Sequential, v) == "" {
				t.Error("no words for the violation")
			}
		})
	}
}

// position finds the operation of h that o describes (by its call).
func position(t *testing.T, h *history.History, o op) int {
	t.Helper()
	for i := range h.Ops {
		if h.Ops[i].Call == o.call && h.Ops[i].Client == o.client {
			return i
		}
	}
	t.Fatalf("no operation of %s called at %d", o.client, o.call)
	return -1
}

// Lock histories decided client by client agree with the reference:
// small histories shaped like Jepsen's, where clients crash (and go on as
// new processes with the same name), repeat a letter now and then, and
// often end holding the lock.
func TestOwnersAgreeWithReference(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 1500
	}
	counts := map[string]int{}
	for i := range n {
		r := rand.New(rand.NewPCG(uint64(i), 43))
		h := jepsenWords(r, 2+r.IntN(reference.MaxOps-1), 2+r.IntN(3), 2+r.IntN(6), 2+r.IntN(4))
		m := model.NewLock(model.Options{})
		v, method := agree(t, m, h, full)
		if t.Failed() {
			t.Fatalf("seed %d", i)
		}
		res, err := Check(context.Background(), m, h, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Valid == checker.False {
			v := res.Violations[0]
			method += "/" + v.Pattern
			if v.Count != nil && v.Count.OneClient != (res.Method == MethodOwners) {
				t.Errorf("seed %d: a count by %s with OneClient %t", i, res.Method, v.Count.OneClient)
			}
		}
		counts[fmt.Sprintf("%s/%s", v, method)]++
	}
	t.Logf("verdicts by method: %v", counts)
	for _, want := range []string{"true/owners", "false/owners/owners-held", "false/owners/count", "false/owners/no-sequential-order"} {
		if counts[want] == 0 {
			t.Errorf("no history decided as %s: %v", want, counts)
		}
	}
}
