package history_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// register is the system under test of the Recorder examples: one integer
// guarded by a mutex, which is linearizable.
type register struct {
	mu sync.Mutex
	v  int64
}

func (r *register) write(v int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.v = v
}

func (r *register) read() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.v
}

// A Go test records what its goroutines did with a Recorder, then checks
// the history: each client calls Invoke before an operation and Complete
// after it. The register model comes from the built-in models by name.
func ExampleRecorder_goroutines() {
	var (
		reg register
		rec = history.NewRecorder()
		wg  sync.WaitGroup
	)
	for c := 0; c < 4; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			client := "client" + strconv.Itoa(c)
			for i := 0; i < 5; i++ {
				v := int64(10*c + i)
				id := rec.Invoke(client, "write", history.IntValue(v))
				reg.write(v)
				rec.Complete(id, history.OK, history.IntValue(v))

				id = rec.Invoke(client, "read", history.NilValue)
				rec.Complete(id, history.OK, history.IntValue(reg.read()))
			}
		}(c)
	}
	wg.Wait()

	h, err := rec.History()
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := suite.Lookup(suite.Builtin(), "register")
	if err != nil {
		fmt.Println(err)
		return
	}
	mopts := model.Options{Init: history.IntValue(0)}
	res, err := suite.Run(context.Background(), m, h, checker.Linearizable, mopts, suite.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(h.Ops), "operations by", h.Clients, "clients")
	fmt.Println("linearizable:", res.Valid)
	// Output:
	// 40 operations by 4 clients
	// linearizable: true
}

// A stale read recorded in a test is found, with the reason. Here the
// steps are written one after another so that the history is always the
// same; a real test runs its clients concurrently. A recorded history is
// ordered by its events, so the instants in the explanation are the
// events' places (0, 1, 2, …), not nanoseconds.
func ExampleRecorder_staleRead() {
	rec := history.NewRecorder()
	w := rec.Invoke("A", "write", history.IntValue(1))
	rec.Complete(w, history.OK, history.IntValue(1))
	// B reads from a replica that has not seen A's write yet.
	r := rec.Invoke("B", "read", history.NilValue)
	rec.Complete(r, history.OK, history.IntValue(0))

	h, err := rec.History()
	if err != nil {
		fmt.Println(err)
		return
	}
	m := model.NewRegister(model.Options{Init: history.IntValue(0)})
	res, err := linear.Check(context.Background(), m, h, linear.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("linearizable:", res.Valid)
	for _, v := range res.Violations {
		fmt.Println(report.Explain(h, checker.Linearizable, v))
	}
	// Output:
	// linearizable: false
	// The initial value 0 must stay in the register until B:r(0) was called (at 2), since it reads it; but 1, written only by A:w(1), can be in the register only at some instant from 0 to 1 (after A:w(1) was called, before A:w(1) returned), which is within that span
}

// FromOps builds a history from operations with call and return times.
// RealTime then gives the order a checker uses: operations of different
// processes whose times touch overlap, but a process's own operations
// stay in its order even when one returns at the instant the next is
// called.
func ExampleFromOps() {
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "write", Value: history.IntValue(1), Call: 0, Return: 5, Status: history.OK},
		{Client: "A", F: "read", Value: history.IntValue(1), Call: 5, Return: 9, Status: history.OK},
		{Client: "B", F: "read", Value: history.IntValue(0), Call: 5, Return: 7, Status: history.OK},
		// C's write may or may not have taken effect: no return time.
		{Client: "C", F: "write", Value: history.IntValue(2), Call: 8, Status: history.Info},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	rt := h.RealTime()
	precedes := func(i, j int) bool {
		return rt.Spans[i].Return < rt.Spans[j].Call ||
			rt.Tangled && h.Ops[i].Process == h.Ops[j].Process && i < j
	}
	for i := range h.Ops {
		for j := i + 1; j < len(h.Ops); j++ {
			a, b := h.Ops[i].Label(), h.Ops[j].Label()
			switch {
			case precedes(i, j):
				fmt.Println(a, "precedes", b)
			case precedes(j, i):
				fmt.Println(b, "precedes", a)
			default:
				fmt.Println(a, "overlaps", b)
			}
		}
	}
	fmt.Println("touching:", rt.Touching)
	fmt.Println("C's outcome unknown:", h.Ops[3].Pending())
	// Output:
	// A:w(1) precedes A:r(1)
	// A:w(1) overlaps B:r(0)
	// A:w(1) precedes C:w(2)
	// A:r(1) overlaps B:r(0)
	// A:r(1) overlaps C:w(2)
	// B:r(0) precedes C:w(2)
	// touching: true
	// C's outcome unknown: true
}

// Quote shows a name from the input as one line of printable text, so that
// a process named with control characters or quotes cannot forge output.
func ExampleQuote() {
	for _, name := range []string{
		"A",
		"node 1",
		"",
		"A\nB:r(0) ok",
		"\x1b[31mred",
		`say "hi"`,
		"\u202eabc",
	} {
		fmt.Println(history.Quote(name))
	}
	// Labels quote their names the same way.
	o := history.Op{Client: "A\nB", F: "write", Value: history.StringValue("x\ty")}
	fmt.Println(o.Label())
	// Output:
	// A
	// node 1
	// ""
	// "A\nB:r(0) ok"
	// "\x1b[31mred"
	// "say \"hi\""
	// "\u202eabc"
	// "A\nB":w("x\ty")
}

// A reader builds a batch's lists in scratch memory and keeps only those
// that are to outlive the batch before the memory is reused.
func ExampleListBuilder_SetScratch() {
	var lb history.ListBuilder
	var scratch history.Scratch
	lb.SetScratch(&scratch)
	var kept []history.Value
	for i := range 3 {
		lb.Reset()
		lb.AddInt(int64(i))
		lb.AddString([]byte("append"))
		if v := lb.List(); i != 1 {
			kept = append(kept, lb.Keep(v)) // a copy out of the scratch memory
		}
	}
	scratch.Reset() // the lists not kept are gone
	fmt.Println(kept)
	// Output: [[0 append] [2 append]]
}
