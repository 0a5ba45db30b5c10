package model

import (
	"fmt"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/histcheck/histcheck/history"
)

// kvValuesDrawn are the values the purity property draws from: strings
// that are each other's prefixes, suffixes and concatenations, so that
// appends in different orders build equal strings, and nil and a number,
// to which appends are legal and illegal.
var kvValuesDrawn = []history.Value{str(""), str("a"), str("b"), str("ab"), str("ba"), str("aab"), history.NilValue, v1}

// drawKVOps draws a few operations of one key, appends among them.
func drawKVOps(t *rapid.T) []*history.Op {
	val := func(label string) history.Value {
		return kvValuesDrawn[rapid.IntRange(0, len(kvValuesDrawn)-1).Draw(t, label)]
	}
	text := func(label string) history.Value { return kvValuesDrawn[rapid.IntRange(0, 5).Draw(t, label)] }
	n := rapid.IntRange(2, 6).Draw(t, "ops")
	ops := make([]*history.Op, 0, n)
	for i := 0; i < n; i++ {
		switch rapid.IntRange(0, 5).Draw(t, "kind") {
		case 0:
			ops = append(ops, hop("read", val("read")))
		case 1:
			ops = append(ops, hop("write", val("write")))
		case 2:
			ops = append(ops, hop("cas", cas(val("from"), val("to"))))
		default:
			ops = append(ops, hop("append", text("suffix")))
		}
	}
	return ops
}

// refKVStep is the key-value model on values, written plainly: the
// reference the compiled model must agree with.
func refKVStep(s history.Value, op *history.Op) (history.Value, bool) {
	switch op.F {
	case "read":
		return s, s == op.Value
	case "write":
		return op.Value, true
	case "cas":
		e := op.Value.Elems()
		return e[1], s == e[0]
	}
	prefix, ok := s.Str()
	if !ok && !s.IsNil() {
		return s, false
	}
	return str(prefix + op.Value.Text()), true
}

// kvAnswer is what one step answered, in terms of values rather than ids.
type kvAnswer struct {
	legal bool
	next  string // the next state, described
}

// kvWalk explores every order of at most depth distinct operations from
// the initial state, trying the operations in the order given, and
// returns the answers by described state and operation. It fails the
// property when an answer disagrees with the reference, when two states
// with the same text have different ids or one id names two texts, or when
// asking again about a state and an operation gives another id.
type kvWalk struct {
	m     Model[int64]
	ops   []Op
	hops  []*history.Op
	order []int
	depth int

	answers map[string]kvAnswer // "state|op" -> answer
	ids     map[string]int64    // described state -> id
	first   map[[2]int64]int64  // (state, op) -> the first next state
	err     error
}

func (w *kvWalk) run(s int64, v history.Value, taken uint64, depth int) {
	if depth == w.depth || w.err != nil {
		return
	}
	for _, i := range w.order {
		if taken&(1<<i) != 0 {
			continue
		}
		ns, ok := w.m.Step(s, &w.ops[i])
		want, wantOK := refKVStep(v, w.hops[i])
		if !ok {
			ns, want = s, v
		}
		desc := w.m.Describe(ns, nil)
		switch {
		case ok != wantOK || desc != describeValue(want):
			w.err = fmt.Errorf("%s in %s: got %v, %s; want %v, %s", w.hops[i].Label(), describeValue(v), ok, desc, wantOK, describeValue(want))
		case w.ids[desc] != 0 && w.ids[desc] != ns:
			w.err = fmt.Errorf("%s has two ids, %d and %d", desc, w.ids[desc], ns)
		case w.first[[2]int64{s, int64(i)}] != 0 && w.first[[2]int64{s, int64(i)}] != ns:
			w.err = fmt.Errorf("%s in %s gave %d, then %d", w.hops[i].Label(), describeValue(v), w.first[[2]int64{s, int64(i)}], ns)
		}
		if w.err != nil {
			return
		}
		w.ids[desc] = ns
		w.first[[2]int64{s, int64(i)}] = ns
		w.answers[describeValue(v)+"|"+fmt.Sprint(i)] = kvAnswer{ok, desc}
		if ok {
			w.run(ns, want, taken|1<<i, depth+1)
		}
	}
}

// walkKV compiles hops for m and walks them in the given order.
func walkKV(m Model[int64], init history.Value, hops []*history.Op, order []int, depth int) *kvWalk {
	tab := NewTable()
	w := &kvWalk{m: m, hops: hops, order: order, depth: depth,
		answers: map[string]kvAnswer{}, ids: map[string]int64{}, first: map[[2]int64]int64{}}
	for _, o := range hops {
		c, err := m.Compile(o, tab)
		if err != nil {
			w.err = err
			return w
		}
		w.ops = append(w.ops, c)
	}
	if init.IsNone() {
		init = history.NilValue
	}
	s := m.Init(tab)
	w.ids[m.Describe(s, nil)] = s
	w.run(s, init, 0, 0)
	// Ask again, now that every state exists: the same ids come back.
	for k, ns := range w.first {
		if again, _ := m.Step(k[0], &w.ops[k[1]]); again != ns && w.err == nil {
			w.err = fmt.Errorf("step %d in state %d gave %d, then %d", k[1], k[0], ns, again)
		}
	}
	return w
}

// TestKVStepPure checks that kv's Step is a pure function of (state, op),
// although appends intern the strings they build in the model's table:
// whatever was stepped before and in whatever order, on a model, on its
// forks or on one model from several goroutines, the same state and op
// give the same legality and a next state with the same value (the plain
// reference's), equal values share one state, and asking again gives the
// very same state.
func TestKVStepPure(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		hops := drawKVOps(t)
		var init history.Value
		if rapid.Bool().Draw(t, "empty init") {
			init = str("")
		}
		depth := rapid.IntRange(1, len(hops)).Draw(t, "depth")
		inOrder := make([]int, len(hops))
		for i := range inOrder {
			inOrder[i] = i
		}
		shuffled := rapid.Permutation(inOrder).Draw(t, "order")

		opts := Options{Init: init}
		walks := []*kvWalk{
			walkKV(NewKV(opts), init, hops, inOrder, depth),
			walkKV(NewKV(opts), init, hops, shuffled, depth),
			walkKV(NewKV(opts).(Forker[int64]).Fork(), init, hops, shuffled, depth),
		}
		// One model value stepped from two goroutines at once, in the two
		// orders (run with -race to check its table too).
		shared := NewKV(opts)
		var wg sync.WaitGroup
		both := make([]*kvWalk, 2)
		for g, order := range [][]int{inOrder, shuffled} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				both[g] = walkKV(shared, init, hops, order, depth)
			}()
		}
		wg.Wait()
		walks = append(walks, both...)
		for k, w := range walks {
			if w.err != nil {
				t.Fatalf("walk %d: %v", k, w.err)
			}
			if len(w.answers) != len(walks[0].answers) {
				t.Fatalf("walk %d asked %d questions, walk 0 %d", k, len(w.answers), len(walks[0].answers))
			}
			for q, a := range w.answers {
				if a != walks[0].answers[q] {
					t.Fatalf("walk %d: %s answered %+v, walk 0 %+v", k, q, a, walks[0].answers[q])
				}
			}
		}
	})
}
