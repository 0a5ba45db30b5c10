package model_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/reference"
	"github.com/histcheck/histcheck/checker/sequential"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// naiveColl holds the rules of the set, queue and counter models, written
// again from their documentation over history operations. Unlike the
// models it is nondeterministic where the data type is: a dequeue of
// unknown outcome from an unordered queue may remove any element, so the
// differential test also checks that the models' deterministic choice
// loses no verdict.
type naiveColl struct {
	kind string // "set", "fifo-queue", "unordered-queue" or "counter"
	init int64  // the counter's initial value
}

// collState is a state of naiveColl: the elements (sorted for the set,
// head first for the queues), or the counter's value.
type collState struct {
	elems []history.Value
	n     int64
}

func (s collState) key() string {
	return history.ListValue(s.elems...).Text() + "/" + history.IntValue(s.n).Text()
}

func without(vs []history.Value, i int) []history.Value {
	return append(append([]history.Value(nil), vs[:i]...), vs[i+1:]...)
}

// next returns every state op may lead to from s; none when it is illegal.
func (nv naiveColl) next(s collState, o *history.Op) []collState {
	unknown := o.Status == history.Info
	switch nv.kind {
	case "set":
		switch o.F {
		case "add":
			es := history.SetValue(append(append([]history.Value(nil), s.elems...), o.Value)...).Elems()
			return []collState{{elems: es}}
		case "read":
			if unknown {
				return []collState{s}
			}
			// A set holds each element once: a read that returned one
			// twice is illegal in every state.
			read := history.SetValue(o.Value.Elems()...)
			if len(read.Elems()) == o.Value.Len() && read == history.SetValue(s.elems...) {
				return []collState{s}
			}
			return nil
		}
	case "fifo-queue", "unordered-queue":
		switch {
		case o.F == "enqueue":
			return []collState{{elems: append(append([]history.Value(nil), s.elems...), o.Value)}}
		case o.F == "dequeue" && unknown:
			if len(s.elems) == 0 {
				return []collState{s}
			}
			if nv.kind == "fifo-queue" {
				return []collState{{elems: without(s.elems, 0)}}
			}
			var out []collState
			for i := range s.elems {
				out = append(out, collState{elems: without(s.elems, i)})
			}
			return out
		case o.F == "dequeue" && o.Value.IsNil():
			// As in Knossos, no completed dequeue returns nil.
			return nil
		case o.F == "dequeue":
			for i, e := range s.elems {
				if e == o.Value {
					return []collState{{elems: without(s.elems, i)}}
				}
				if nv.kind == "fifo-queue" {
					break
				}
			}
			return nil
		}
	case "counter":
		switch o.F {
		case "add":
			d, _ := o.Value.Int()
			return []collState{{n: s.n + d}}
		case "read":
			v, _ := o.Value.Int()
			if unknown || v == s.n {
				return []collState{s}
			}
			return nil
		}
	}
	panic(nv.kind + ": " + o.F)
}

// check tries every sequence of distinct operations that did not fail,
// extending only legal prefixes, and accepts when one holds every completed
// operation. With realTime, no operation may follow one that was called
// after it returned; otherwise each process's operations keep their order.
func (nv naiveColl) check(h *history.History, realTime bool) bool {
	var ops []*history.Op
	var required uint32
	for i := range h.Ops {
		if h.Ops[i].Status != history.Fail {
			if h.Ops[i].Status == history.OK {
				required |= 1 << len(ops)
			}
			ops = append(ops, &h.Ops[i])
		}
	}
	failed := map[string]bool{}
	var try func(s collState, used uint32) bool
	try = func(s collState, used uint32) bool {
		if used&required == required {
			return true
		}
		memo := s.key() + "/" + history.IntValue(int64(used)).Text()
		if failed[memo] {
			return false
		}
		for i, o := range ops {
			if used&(1<<i) != 0 {
				continue
			}
			ok := true
			for j, x := range ops {
				if used&(1<<j) == 0 {
					continue
				}
				if realTime && o.Return < x.Call || !realTime && o.Process == x.Process && o.Call < x.Call {
					ok = false
				}
			}
			if !ok {
				continue
			}
			for _, ns := range nv.next(s, o) {
				if try(ns, used|1<<i) {
					return true
				}
			}
		}
		failed[memo] = true
		return false
	}
	return try(collState{n: nv.init}, 0)
}

type collCase struct {
	h    *history.History
	nv   naiveColl
	opts model.Options
}

func genColl(r *rand.Rand, kind string) collCase {
	cfg := randhist.Config{
		Ops:       1 + r.IntN(7),
		Processes: 1 + r.IntN(3),
		Values:    1 + r.IntN(4),
		CrashRate: 0.15,
		FailRate:  0.1,
		Corrupt:   0.6,
	}
	if kind == "set" {
		// A read altered to repeat an element is never sequentially
		// consistent: alter more, to keep enough histories that are.
		cfg.Corrupt = 0.9
	}
	if strings.HasSuffix(kind, "queue") {
		// Queue histories stay linearizable more often when altered.
		cfg.Corrupt = 0.85
	}
	nv := naiveColl{kind: kind}
	var opts model.Options
	var h *history.History
	switch kind {
	case "set":
		h = randhist.Set(r, cfg)
	case "fifo-queue":
		h = randhist.FIFOQueue(r, cfg)
	case "unordered-queue":
		h = randhist.UnorderedQueue(r, cfg)
	case "counter":
		if r.IntN(2) == 0 {
			nv.init = int64(r.IntN(5))
			cfg.Init = history.IntValue(nv.init)
			opts.Init = cfg.Init
		}
		h = randhist.Counter(r, cfg)
	}
	return collCase{h: h, nv: nv, opts: opts}
}

// diffCollection checks, on random small histories, that the reference
// checker agrees with the naive rules for linearizability and sequential
// consistency, and that linear.Check and sequential.Check (which prune with
// the model's Pruner) agree with the reference and give witnesses that
// replay.
func diffCollection[S comparable](t *testing.T, kind string, mk func(model.Options) model.Model[S], seed uint64) {
	const histories = 3000
	r := rand.New(rand.NewPCG(41, seed))
	var tally collTally
	for n := 0; n < histories; n++ {
		c := genColl(r, kind)
		diffOneCollection(t, n, c, mk(c.opts), &tally)
	}
	t.Logf("%d linearizable, %d not (%d of them sequentially consistent); %d pruned", tally.valid, tally.invalid, tally.seqOnly, tally.pruned)
	if tally.pruned < histories/20 {
		t.Errorf("the Pruner dropped operations in only %d histories: the test has no bite", tally.pruned)
	}
	if tally.valid < histories/5 || tally.invalid < histories/5 || tally.seqOnly < histories/50 {
		t.Errorf("%d linearizable, %d not, %d only sequential: too lopsided to test much", tally.valid, tally.invalid, tally.seqOnly)
	}
}

// collTally counts the verdicts diffCollection saw, to tell whether its
// histories test much.
type collTally struct {
	valid, invalid, seqOnly, pruned int
}

// diffOneCollection checks history n of diffCollection with every checker
// and counts its verdicts in tally.
func diffOneCollection[S comparable](t *testing.T, n int, c collCase, m model.Model[S], tally *collTally) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("history %d: "+format+"\n%s", append([]any{n}, append(args, dump(c.h))...)...)
	}
	comp, err := checker.Compile(m, c.h, nil, nil, true)
	if err != nil {
		fail("compile: %v", err)
	}
	if len(comp.Dropped) > 0 {
		tally.pruned++
	}
	ref, lin := diffCollectionCriterion(c, m, true, fail)
	refSeq, _ := diffCollectionCriterion(c, m, false, fail)
	switch {
	case ref == checker.True:
		tally.valid++
	case refSeq == checker.True:
		tally.seqOnly++
		tally.invalid++
	default:
		tally.invalid++
	}
	if ref == checker.False {
		e := report.Explain(c.h, checker.Linearizable, lin.Violations[0])
		if !strings.Contains(e, "but the") && !strings.Contains(e, "but a set") && !strings.Contains(e, "nil from the empty queue") && !strings.HasSuffix(e, "model.") {
			fail("explanation %q names no violation", e)
		}
	}
}

// diffCollectionCriterion checks one criterion (linearizability, or
// sequential consistency) on c: the reference agrees with the naive rules,
// and linear.Check (its witness verified) or sequential.Check (its
// witness replayed) with the reference. It returns the reference's verdict
// and the checker's result.
func diffCollectionCriterion[S comparable](c collCase, m model.Model[S], linearizable bool, fail func(string, ...any)) (checker.Verdict, checker.Result) {
	ctx := context.Background()
	word, engine, refCheck := "sequential", "sequential", reference.Sequential[S]
	check := func() (checker.Result, error) { return sequential.Check(ctx, m, c.h, sequential.Options{Workers: 1}) }
	if linearizable {
		word, engine, refCheck = "linearizable", "linear", reference.Linearizable[S]
		check = func() (checker.Result, error) {
			return linear.Check(ctx, m, c.h, linear.Options{Workers: 1, Verify: true})
		}
	}
	ref, err := refCheck(ctx, m, c.h)
	if err != nil {
		fail("reference: %v", err)
	}
	if want := c.nv.check(c.h, linearizable); (ref.Valid == checker.True) != want || ref.Valid == checker.Unknown {
		fail("reference says %s %v, naive says %v", word, ref.Valid, want)
	}
	got, err := check()
	if err != nil || got.Valid != ref.Valid {
		fail("%s says %v (%v), reference %v", engine, got.Valid, err, ref.Valid)
	}
	if !linearizable && got.Valid == checker.True {
		if err := checker.VerifyWitness(m, c.h, got.Witness, checker.ProcessOrder); err != nil {
			fail("sequential witness: %v", err)
		}
	}
	return ref.Valid, got
}

func TestSetDifferential(t *testing.T)     { diffCollection(t, "set", model.NewSet, 1) }
func TestFIFODifferential(t *testing.T)    { diffCollection(t, "fifo-queue", model.NewFIFOQueue, 2) }
func TestCounterDifferential(t *testing.T) { diffCollection(t, "counter", model.NewCounter, 4) }
func TestUnorderedDifferential(t *testing.T) {
	diffCollection(t, "unordered-queue", model.NewUnorderedQueue, 3)
}

// TestQueueDequeueOfNil checks Knossos's rule for both queues: a dequeue
// that completed with nil is a violation whether the queue was empty or
// not, and a dequeue of unknown outcome need not take effect (removing an
// element never helps the unordered queue, whichever one it removes), so
// recording the nil dequeue as failed makes the history linearizable.
func TestQueueDequeueOfNil(t *testing.T) {
	op := func(c, f string, v history.Value, call, ret int64, st history.Type) history.Op {
		return history.Op{Client: c, F: f, Value: v, Call: call, Return: ret, Status: st}
	}
	one, two, null := history.IntValue(1), history.IntValue(2), history.NilValue
	models := map[string]func(model.Options) model.Model[string]{
		"fifo-queue": model.NewFIFOQueue, "unordered-queue": model.NewUnorderedQueue,
	}
	for name, mk := range models {
		for _, last := range []history.Type{history.OK, history.Fail} {
			h, err := history.FromOps([]history.Op{
				op("A", "enqueue", one, 0, 1, history.OK),
				op("A", "enqueue", two, 2, 3, history.OK),
				op("B", "dequeue", null, 4, history.Infinity, history.Info),
				op("A", "dequeue", one, 5, 6, history.OK),
				op("A", "dequeue", null, 7, 8, last),
			})
			if err != nil {
				t.Fatal(err)
			}
			want := checker.False
			if last == history.Fail {
				want = checker.True
			}
			lin, err := linear.Check(context.Background(), mk(model.Options{}), h, linear.Options{})
			if err != nil || lin.Valid != want {
				t.Errorf("%s, last dequeue %s: linearizable %v (%v), want %v", name, last, lin.Valid, err, want)
			}
			seq, err := sequential.Check(context.Background(), mk(model.Options{}), h, sequential.Options{})
			if err != nil || seq.Valid != want {
				t.Errorf("%s, last dequeue %s: sequential %v (%v), want %v", name, last, seq.Valid, err, want)
			}
			ref, err := reference.Linearizable(context.Background(), mk(model.Options{}), h)
			if err != nil || ref.Valid != want {
				t.Errorf("%s, last dequeue %s: reference %v (%v), want %v", name, last, ref.Valid, err, want)
			}
		}
	}
}
