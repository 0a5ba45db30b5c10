package porcupine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/porcupine"
)

// registerInput is a register's input: a write of value, or a read.
type registerInput struct {
	write bool
	value int
}

// register is a Porcupine model of a register of ints starting at 0, as
// Porcupine's users write one; moving such a test to histcheck changes
// its import line only.
var register = porcupine.Model{
	Init: func() interface{} { return 0 },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		in := input.(registerInput)
		if in.write {
			return true, in.value
		}
		return output == state, state
	},
	DescribeOperation: func(input, output interface{}) string {
		in := input.(registerInput)
		if in.write {
			return fmt.Sprintf("write(%d)", in.value)
		}
		return fmt.Sprintf("read() -> %v", output)
	},
}

// A write of 100 overlaps two reads, one of the new value and one of the
// old: linearizable, since the read of 0 may come first.
func Example() {
	ops := []porcupine.Operation{
		{ClientId: 0, Input: registerInput{true, 100}, Call: 0, Output: 0, Return: 100},
		{ClientId: 1, Input: registerInput{false, 0}, Call: 25, Output: 100, Return: 75},
		{ClientId: 2, Input: registerInput{false, 0}, Call: 30, Output: 0, Return: 60},
	}
	fmt.Println(porcupine.CheckOperations(register, ops))
	// The read of 0 now starts after the read of 100 returned.
	ops[2].Call, ops[2].Return = 80, 90
	fmt.Println(porcupine.CheckOperations(register, ops))
	// Output:
	// true
	// false
}

type kvInput struct {
	op         string // "get" or "put"
	key, value string
}

// A key-value store partitioned by key: each key is checked on its own
// (in parallel), and Init and Step describe one key's value.
func Example_partition() {
	kv := porcupine.Model{
		Partition: func(ops []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[string][]porcupine.Operation{}
			for _, o := range ops {
				k := o.Input.(kvInput).key
				byKey[k] = append(byKey[k], o)
			}
			keys := make([]string, 0, len(byKey))
			for k := range byKey {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var parts [][]porcupine.Operation
			for _, k := range keys {
				parts = append(parts, byKey[k])
			}
			return parts
		},
		Init: func() interface{} { return "" },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			in := input.(kvInput)
			if in.op == "put" {
				return true, in.value
			}
			return output == state, state
		},
	}
	ops := []porcupine.Operation{
		{ClientId: 0, Input: kvInput{"put", "x", "a"}, Call: 0, Return: 10},
		{ClientId: 1, Input: kvInput{"put", "y", "b"}, Call: 2, Return: 12},
		{ClientId: 2, Input: kvInput{"get", "x", ""}, Call: 15, Output: "a", Return: 20},
		{ClientId: 3, Input: kvInput{"get", "y", ""}, Call: 15, Output: "", Return: 20},
	}
	res, info := porcupine.CheckOperationsVerbose(kv, ops, 0)
	fmt.Println(res)
	e, _ := info.Explanation()
	fmt.Println("illegal key: partition", e.Partition)
	// Output:
	// Illegal
	// illegal key: partition 1
}

// A failing check, written as a web page for a person to look at, with
// histcheck's explanation and core beside Porcupine's partial
// linearizations and an annotation of the test's own.
func ExampleVisualize() {
	ops := []porcupine.Operation{
		{ClientId: 0, Input: registerInput{true, 1}, Call: 0, Return: 10},
		{ClientId: 1, Input: registerInput{false, 0}, Call: 2, Output: 1, Return: 4},
		{ClientId: 2, Input: registerInput{false, 0}, Call: 5, Output: 0, Return: 7},
		{ClientId: 3, Input: registerInput{true, 2}, Call: 20, Return: 30},
	}
	res, info := porcupine.CheckOperationsVerbose(register, ops, 0)
	fmt.Println(res)
	info.AddAnnotations([]porcupine.Annotation{{Tag: "test", Start: 8, Description: "leader changed"}})
	dir, err := os.MkdirTemp("", "porcupine-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := porcupine.VisualizePath(register, info, filepath.Join(dir, "check.html")); err != nil {
		fmt.Println(err)
		return
	}
	e, _ := info.Explanation()
	fmt.Println(e.Text)
	fmt.Println("core:", e.Core, "weakened:", e.Weakened, "minimal:", e.Minimal)
	// Output:
	// Illegal
	// [2] read() -> 0 cannot take effect in state 1, after the longest legal order found: [0] write(1), [1] read() -> 1
	// core: [1 2] weakened: [0] minimal: true
}

// A history recorded with history.Recorder, checked through this package,
// and the same operations back as a history.History for package check's
// other criteria.
func ExampleFromHistory() {
	rec := history.NewRecorder()
	w := rec.Invoke("a", "write", history.IntValue(1))
	r := rec.Invoke("b", "read", history.Value{})
	_ = rec.Complete(w, history.OK, history.IntValue(1))
	_ = rec.Complete(r, history.OK, history.IntValue(1))
	h, _ := rec.History()

	ops := porcupine.FromHistory(h)
	m := porcupine.Model{
		Init: func() interface{} { return history.IntValue(0) },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			in := input.(porcupine.HistoryInput)
			if in.F == "write" {
				return true, in.Value
			}
			return in.Unknown || output == state, state
		},
	}
	fmt.Println(porcupine.CheckOperations(m, ops))

	back, err := porcupine.ToHistory(ops, func(input, output interface{}) (porcupine.Call, error) {
		in := input.(porcupine.HistoryInput)
		return porcupine.Call{F: in.F, Key: in.Key, Value: output.(history.Value), Unknown: in.Unknown}, nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range back.Ops {
		fmt.Println(o.F, o.Value)
	}
	// Output:
	// true
	// write 1
	// read 1
}
