package format_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
	"github.com/histcheck/histcheck/report"
)

// jepsen is a Jepsen history in EDN: process 1's node has a clock that
// runs behind, so its times contradict the order of the events.
const jepsen = `[{:process 0, :type :invoke, :f :write, :value 1, :time 100}
 {:process 0, :type :ok, :f :write, :value 1, :time 200}
 {:process :nemesis, :type :info, :f :start-partition, :value nil, :time 210}
 {:process 1, :type :invoke, :f :read, :value nil, :time 150}
 {:process 1, :type :ok, :f :read, :value 0, :time 180}]
`

// Read detects the encoding from the file name and the content. The
// events of the fault injector are left out, and, as Jepsen does, the
// operations are ordered by the places of their events in the file: Call
// and Return are those places, and the recorded times are kept in Times.
func ExampleRead() {
	h, err := format.Read("history.edn", strings.NewReader(jepsen), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("order:", h.Order, "ignored:", h.Ignored)
	for _, o := range h.Ops {
		fmt.Println(o.Label(), o.Status, "events", o.Call, o.Return, "times", o.Times.Call, o.Times.Return)
	}
	for _, w := range h.Warnings {
		fmt.Println("warning:", w)
	}
	// Output:
	// order: events ignored: 1
	// 0:w(1) ok events 0 1 times 100 200
	// 1:r(0) ok events 3 4 times 150 180
	// warning: the times of 2 event(s) contradict their order in the input, first line 4 (time 150) after line 2 (time 200); the events are ordered as in the input
}

// ReadWith with Order "times" orders the operations by their recorded
// times instead. The same file then gives another verdict: by its events,
// process 1 read 0 after the write of 1 had returned; by its times, the
// read overlapped the write.
func ExampleReadWith() {
	for _, order := range []string{"events", "times"} {
		h, err := format.ReadWith("history.edn", strings.NewReader(jepsen), format.Options{Order: order})
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
		fmt.Println(order, "linearizable:", res.Valid)
	}
	// Output:
	// events linearizable: false
	// times linearizable: true
}

// The textbook notation is read like any other file; its header gives the
// model and the initial value.
func ExampleRead_notation() {
	const text = `# a stale read
model: register
init: 0
A: w(1) [0, 10]
B: r(1) [2, 4]
C: r(0) [5, 7]
`
	h, err := format.Read("stale.hist", strings.NewReader(text), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	m := model.NewRegister(model.Options{Init: h.Meta["init"]})
	res, err := linear.Check(context.Background(), m, h, linear.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("model:", h.Meta["model"], "linearizable:", res.Valid)
	for _, v := range res.Violations {
		fmt.Println(report.Explain(h, checker.Linearizable, v))
	}
	// Output:
	// model: register linearizable: false
	// The initial value 0 must stay in the register until C:r(0) was called (at 5), since it reads it; but 1, written only by A:w(1), can be in the register only at some instant from 2 to 4 (after B:r(1) was called, before B:r(1) returned), which is within that span
}

// Write turns a history into Jepsen events, here JSON Lines, which Read
// and histcheck check read back as the same operations. An operation of
// unknown outcome gets an info completion right after its invocation.
func ExampleWrite() {
	h, err := history.FromOps([]history.Op{
		{Index: 0, Client: "A", F: "write", Value: history.IntValue(1), Call: 0, Return: 10, Status: history.OK},
		{Index: 1, Client: "B", F: "read", Value: history.IntValue(1), Call: 2, Return: 4, Status: history.OK},
		{Index: 2, Client: "C", F: "write", Value: history.IntValue(2), Call: 5, Status: history.Info},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := format.Write(os.Stdout, h, format.JSONL); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"process":"A","type":"invoke","f":"write","value":1,"time":0,"index":0}
	// {"process":"B","type":"invoke","f":"read","value":1,"time":2,"index":1}
	// {"process":"B","type":"ok","f":"read","value":1,"time":4}
	// {"process":"C","type":"invoke","f":"write","value":2,"time":5,"index":2}
	// {"process":"C","type":"info","f":"write","value":2,"time":5}
	// {"process":"A","type":"ok","f":"write","value":1,"time":10}
}
