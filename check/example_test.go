package check_test

import (
	"context"
	"fmt"

	"github.com/histcheck/histcheck/check"
	"github.com/histcheck/histcheck/history"
)

// A Go test records what its clients did with a Recorder and checks the
// history, without the command line.
func Example() {
	rec := history.NewRecorder()
	w := rec.Invoke("A", "write", history.IntValue(1))
	rec.Complete(w, history.OK, history.IntValue(1))
	r := rec.Invoke("B", "read", history.NilValue)
	rec.Complete(r, history.OK, history.IntValue(0)) // a stale read
	h, err := rec.History()
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := check.Run(context.Background(), h, check.Request{
		Model:    "register",
		Init:     history.IntValue(0),
		Criteria: []string{"linearizable", "sequential"},
		NoCore:   true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, res := range out.Results {
		fmt.Printf("%s: %s\n", res.Criterion, res.Valid)
	}
	// Output:
	// linearizable: false
	// sequential: true
}

// Each criterion's facts come from one table: what it implies, whether it
// is checked key by key, and what it gives when it holds or fails.
func ExampleLookup() {
	c, _ := check.Lookup("linearizable")
	fmt.Println(c.Name, "implies", c.Implies, "local:", c.Local, "cores:", c.Cores)
	c, _ = check.Lookup("pram")
	fmt.Println(c.Name, "implies", c.Implies, "local:", c.Local, "cores:", c.Cores)
	// Output:
	// linearizable implies [sequential] local: true cores: true
	// pram implies [monotonic-writes] local: false cores: false
}

// A process that reads the initial value after its own write, checked for
// every criterion: the ladder says how weak the history is.
func ExampleRun_ladder() {
	h, err := history.FromOps([]history.Op{
		{Client: "A", F: "w", Value: history.IntValue(1), Call: 0, Return: 2, Status: history.OK},
		{Client: "A", F: "r", Value: history.IntValue(0), Call: 3, Return: 5, Status: history.OK},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := check.Run(context.Background(), h, check.Request{
		Model: "register", Init: history.IntValue(0), Criteria: []string{check.All}, NoCore: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("strongest satisfied:", out.Ladder.Strongest)
	fmt.Println("weakest violated:", out.Ladder.Weakest)
	// Output:
	// strongest satisfied: [writes-follow-reads monotonic-writes monotonic-reads]
	// weakest violated: [causal pram read-your-writes]
}

// A Go test can check as it goes: each event is handed to a Stream as it
// happens, and the callback hears of a violation, with its core, as soon
// as it is certain, so the test can stop there rather than at the end.
func ExampleNewStream() {
	s, err := check.NewStream(check.Request{Model: "register", Init: history.IntValue(0)}, check.StreamLimits{},
		func(f check.Found) {
			fmt.Printf("violation at %s, core of %d operations\n", f.Op.Label(), len(f.Result.Core.Ops))
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range []history.Event{
		{Process: "A", Type: history.Invoke, F: "write", Value: history.IntValue(1)},
		{Process: "A", Type: history.OK, F: "write", Value: history.IntValue(1)},
		{Process: "B", Type: history.Invoke, F: "read", Value: history.NilValue},
		{Process: "B", Type: history.OK, F: "read", Value: history.IntValue(0)}, // stale
	} {
		if err := s.Add(&e); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println("linearizable:", s.Finish().Results[0].Valid)
	// Output:
	// violation at B:r(0), core of 2 operations
	// linearizable: false
}
