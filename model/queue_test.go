package model

import (
	"testing"

	"github.com/histcheck/histcheck/history"
)

func TestFIFOQueueStep(t *testing.T) {
	info, null := history.Info, history.NilValue
	runSteps(t, NewFIFOQueue, []stepCase{
		{name: "nil from empty", ops: []*history.Op{hop("dequeue", null)},
			why: "dequeue returned nil from the empty queue: a dequeue that finds the queue empty must be recorded as failed"},
		{name: "first in first out", ops: []*history.Op{hop("enqueue", v1), hop("enqueue", v2), hop("dequeue", v1)}, legal: true, state: "[2]"},
		{name: "out of order", ops: []*history.Op{hop("enqueue", v1), hop("enqueue", v2), hop("dequeue", v2)},
			why: "dequeued 2 but the head of the queue is 1: [1 2]"},
		{name: "from empty", ops: []*history.Op{hop("dequeue", v1)}, why: "dequeued 1 but the queue is empty"},
		{name: "nil from a queue that holds", ops: []*history.Op{hop("enqueue", v1), hop("dequeue", null)},
			why: "dequeue returned nil but the queue holds [1]"},
		{name: "twice", ops: []*history.Op{hop("enqueue", v1), hop("dequeue", v1), hop("dequeue", v1)}, why: "dequeued 1 but the queue is empty"},
		{name: "duplicates", ops: []*history.Op{hop("enqueue", v1), hop("enqueue", v1), hop("dequeue", v1), hop("dequeue", v1)}, legal: true, state: "empty"},
		{name: "initial list head first", opts: Options{Init: listOf(v2, v0)}, ops: []*history.Op{hop("dequeue", v2)}, legal: true, state: "[0]"},
		{name: "unknown dequeue removes the head", ops: []*history.Op{hop("enqueue", v1), hop("enqueue", v2), hop("dequeue", null, info), hop("dequeue", v2)},
			legal: true, state: "empty"},
		{name: "unknown dequeue ignores its value", ops: []*history.Op{hop("enqueue", v1), hop("enqueue", v2), hop("dequeue", v2, info)}, legal: true, state: "[2]"},
		{name: "unknown dequeue of empty", ops: []*history.Op{hop("dequeue", null, info)}, legal: true, state: "empty"},
		{name: "unknown enqueue takes effect", ops: []*history.Op{hop("enqueue", v2, info), hop("dequeue", v2)}, legal: true, state: "empty"},
	})
}

func TestUnorderedQueueStep(t *testing.T) {
	info, null := history.Info, history.NilValue
	runSteps(t, NewUnorderedQueue, []stepCase{
		{name: "any order", ops: []*history.Op{hop("enqueue", v1), hop("enqueue", v2), hop("dequeue", v2), hop("dequeue", v1)}, legal: true, state: "empty"},
		{name: "multiset", ops: []*history.Op{hop("enqueue", v2), hop("enqueue", v1), hop("enqueue", v2), hop("dequeue", v2)}, legal: true, state: "[1 2]"},
		{name: "not present", ops: []*history.Op{hop("enqueue", v1), hop("enqueue", v2), hop("dequeue", v0)},
			why: "dequeued 0 but the queue holds no 0: [1 2]"},
		{name: "dequeued twice", ops: []*history.Op{hop("enqueue", v1), hop("enqueue", v2), hop("dequeue", v1), hop("dequeue", v1)},
			why: "dequeued 1 but the queue holds no 1: [2]"},
		{name: "from empty", ops: []*history.Op{hop("dequeue", v1)}, why: "dequeued 1 but the queue is empty"},
		{name: "nil from a queue that holds", ops: []*history.Op{hop("enqueue", v1), hop("dequeue", null)},
			why: "dequeue returned nil but the queue holds [1]"},
		{name: "nil from empty", ops: []*history.Op{hop("dequeue", null)},
			why: "dequeue returned nil from the empty queue: a dequeue that finds the queue empty must be recorded as failed"},
		{name: "initial elements", opts: Options{Init: setOf(v0, v1)}, ops: []*history.Op{hop("dequeue", v1), hop("dequeue", v0)}, legal: true, state: "empty"},
		{name: "unknown dequeue removes one", ops: []*history.Op{hop("enqueue", v1), hop("enqueue", v2), hop("dequeue", null, info)}, legal: true, state: "[2]"},
		{name: "unknown dequeue then nil", ops: []*history.Op{hop("enqueue", v2), hop("dequeue", null, info), hop("dequeue", null)},
			why: "dequeue returned nil from the empty queue: a dequeue that finds the queue empty must be recorded as failed"},
	})
}

func TestQueueCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		m    Model[string]
		op   *history.Op
		want string
	}{
		{"unknown op", NewFIFOQueue(Options{}), hop("push", v1), `model fifo-queue has no operation "push" (it knows [enqueue dequeue])`},
		{"enqueue nil", NewFIFOQueue(Options{}), hop("enqueue", history.NilValue),
			"enqueue of nil: a queue's elements are values other than nil"},
		{"enqueue nothing", NewUnorderedQueue(Options{}), hop("enqueue", history.Value{}), "enqueue needs the element enqueued"},
		{"dequeue nothing", NewUnorderedQueue(Options{}), hop("dequeue", history.Value{}), "dequeue needs the element it returned"},
		{"scalar init", NewUnorderedQueue(Options{Init: v0}), hop("dequeue", v0),
			"the unordered-queue model's initial value must be a list of elements or nil (empty), got int 0; give --init nil (or init: nil in the file) to start empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.m.Compile(tt.op, NewTable())
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	// A dequeue of unknown outcome needs no value.
	if _, err := NewFIFOQueue(Options{}).Compile(hop("dequeue", history.Value{}, history.Info), NewTable()); err != nil {
		t.Errorf("unknown dequeue without value: %v", err)
	}
}

func TestQueueKeep(t *testing.T) {
	info, null := history.Info, history.NilValue
	tests := []struct {
		name            string
		ops             []*history.Op
		fifo, unordered []bool
	}{
		{name: "unknown enqueue returned",
			ops:  []*history.Op{hop("enqueue", v1, info), hop("dequeue", v1)},
			fifo: []bool{true, true}, unordered: []bool{true, true}},
		{name: "unknown enqueue not returned",
			ops:  []*history.Op{hop("enqueue", v1, info), hop("enqueue", v2), hop("dequeue", v2)},
			fifo: []bool{false, true, true}, unordered: []bool{false, true, true}},
		{name: "unknown dequeue, completed dequeue",
			ops:  []*history.Op{hop("enqueue", v1), hop("dequeue", null, info), hop("dequeue", v1)},
			fifo: []bool{true, true, true}, unordered: []bool{true, false, true}},
		{name: "unknown dequeue and a nil dequeue",
			ops:  []*history.Op{hop("enqueue", v1), hop("dequeue", null, info), hop("dequeue", null)},
			fifo: []bool{true, true, true}, unordered: []bool{true, false, true}},
		{name: "no completed dequeue",
			ops:  []*history.Op{hop("enqueue", v1), hop("dequeue", null, info), hop("dequeue", v1, info)},
			fifo: []bool{true, false, false}, unordered: []bool{true, false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runKeep(t, NewFIFOQueue(Options{}), tt.ops, tt.fifo)
			runKeep(t, NewUnorderedQueue(Options{}), tt.ops, tt.unordered)
		})
	}
}
