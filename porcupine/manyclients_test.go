package porcupine_test

import (
	"flag"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/porcupine"
	"github.com/histcheck/histcheck/sim"
)

var many = flag.Bool("porcupine.many", false, "check the 32- and 64-client compare-and-set histories of docs/many-clients.md through this package (seconds each)")

// casInput is a compare-and-set register's input as a Porcupine user
// writes one: the operation, its arguments, and whether its outcome is
// unknown (the client never heard back), when any output goes.
type casInput struct {
	op      string // "read", "write" or "cas"
	a, b    int
	unknown bool
}

// casModel is a Porcupine model of a compare-and-set register over int
// states, written as its users write one: nothing in it tells histcheck
// it is a register.
var casModel = porcupine.Model{
	Init: func() interface{} { return 0 },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		s, in := state.(int), input.(casInput)
		switch in.op {
		case "read":
			return in.unknown || output.(int) == s, s
		case "write":
			return true, in.a
		case "cas":
			if s == in.a {
				return true, in.b
			}
			return in.unknown, s
		}
		return false, s
	},
	DescribeOperation: func(input, output interface{}) string {
		in := input.(casInput)
		switch in.op {
		case "read":
			return fmt.Sprintf("read() -> %v", output)
		case "write":
			return fmt.Sprintf("write(%d)", in.a)
		}
		return fmt.Sprintf("cas(%d, %d)", in.a, in.b)
	},
}

// casOperations converts a history the way Porcupine's users do: failed
// operations left out, and one of unknown outcome returning at the end of
// time with an input that accepts any output. The register's values are
// ints; sim's initial value (nil) is 0.
func casOperations(t *testing.T, h *history.History) []porcupine.Operation {
	t.Helper()
	num := func(v history.Value) int {
		if v.IsNil() || v.IsNone() {
			return 0
		}
		n, ok := v.Int()
		if !ok {
			t.Fatalf("value %v is not an integer", v)
		}
		return int(n)
	}
	var ops []porcupine.Operation
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Status == history.Fail {
			continue
		}
		in := casInput{op: o.F, unknown: o.Status == history.Info}
		var out interface{}
		switch o.F {
		case "cas":
			e := o.Value.Elems()
			in.a, in.b = num(e[0]), num(e[1])
		case "write":
			in.a = num(o.Value)
		case "read":
			out = num(o.Value)
		}
		ret := o.Return
		if in.unknown {
			ret = math.MaxInt64
		}
		ops = append(ops, porcupine.Operation{ClientId: o.Process, Input: in, Call: o.Call, Output: out, Return: ret})
	}
	return ops
}

// TestManyClientsCAS checks compare-and-set histories of many clients,
// values from 5 and 2% of operations crashed (sim.Random, as histbench's
// many-clients rows), through CheckOperationsTimeout with a model written
// as a user would. Porcupine itself finds no answer for the larger ones
// in minutes. Without -porcupine.many only the 16-client one runs.
func TestManyClientsCAS(t *testing.T) {
	rows := []struct {
		clients, ops int
		anomaly      string
		limit        time.Duration
		want         porcupine.CheckResult
		large        bool
	}{
		{16, 2000, "none", 10 * time.Second, porcupine.Ok, false},
		{16, 2000, "stale-read", 10 * time.Second, porcupine.Illegal, false},
		{32, 5000, "none", 10 * time.Second, porcupine.Ok, true},
		{32, 5000, "stale-read", 10 * time.Second, porcupine.Illegal, true},
		{64, 10000, "none", 30 * time.Second, porcupine.Ok, true},
	}
	for _, r := range rows {
		name := fmt.Sprintf("%d-clients-%d-ops-%s", r.clients, r.ops, r.anomaly)
		t.Run(name, func(t *testing.T) {
			if r.large && !*many {
				t.Skip("set -porcupine.many to check the 32- and 64-client histories")
			}
			h, err := sim.Random(sim.RandomOptions{Model: "cas-register", Ops: r.ops, Clients: r.clients,
				CrashRate: 0.02, Seed: 5, Anomaly: r.anomaly})
			if err != nil {
				t.Fatal(err)
			}
			ops := casOperations(t, h)
			start := time.Now()
			// The limit is the acceptance's: a verdict other than the one
			// wanted, Unknown included, fails, whatever the time taken.
			got := porcupine.CheckOperationsTimeout(casModel, ops, 3*r.limit)
			t.Logf("%d operations: %v in %v", len(ops), got, time.Since(start).Round(time.Millisecond))
			if got != r.want {
				t.Fatalf("verdict %v, want %v", got, r.want)
			}
		})
	}
}
