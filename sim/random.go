package sim

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// RandomOptions configure Random.
type RandomOptions struct {
	Ops     int    // operations in all
	Clients int    // clients running concurrently
	Keys    int    // keys, for the kv model (ignored otherwise)
	Model   string // "register", "cas-register" or "kv"
	// CrashRate is the probability that an operation's outcome is unknown
	// (info); half of those take effect anyway. A crashed client continues
	// under a new process name, as Jepsen does.
	CrashRate float64
	// UniqueValues makes every written value distinct; otherwise values are
	// drawn from 1..5 and repeat.
	UniqueValues bool
	// Anomaly injects one violation: "none", "stale-read" (a read returns a
	// value that had been overwritten before it was invoked) or
	// "lost-update" (an acknowledged update is lost: for the register, a
	// write the store drops, observed by a later read of the value before
	// it; for the CAS models, two compare-and-sets from the same value that
	// both succeed).
	Anomaly string
	Seed    uint32
}

// randomValueRange bounds the values of a workload without unique values.
const randomValueRange = 5

// Operation kinds of the random workload.
const (
	rRead uint8 = iota
	rWrite
	rCAS
)

// Roles in an injected anomaly.
const (
	roleNone      uint8 = iota
	roleFresh           // a write of a value nobody else writes
	roleDropped         // a write of a fresh value the store acknowledges and drops
	roleStaleRead       // a read returning the gadget's first fresh value
	roleCASFirst        // a cas from the gadget's fresh value that succeeds
	roleCASSecond       // another cas from the same value, also acknowledged
)

// randOp is one operation while the workload is being generated.
type randOp struct {
	call, ret, lin int64
	slot           int32 // the client running it
	name           int32 // its process name, which changes after a crash
	key            int32
	kind           uint8
	role           uint8
	crashed        bool
	effect         bool // a crashed operation that took effect anyway
	failed         bool // a cas that found another value
	value, from    int64
}

// Random generates a history of a single-copy store under a concurrent
// workload: each operation takes effect at a random point inside its
// interval, so the history is linearizable unless an anomaly is injected.
// It is deterministic for a seed and runs in O(n log n).
func Random(o RandomOptions) (*history.History, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	g := NewMulberry32(o.Seed)
	ops := schedule(g, o)
	if err := inject(g, o, ops); err != nil {
		return nil, err
	}
	simulate(g, o, ops)
	return randomHistory(o, ops)
}

func (o RandomOptions) validate() error {
	switch o.Model {
	case "register", "cas-register", "kv":
	default:
		return fmt.Errorf("random: model must be register, cas-register or kv, got %q", o.Model)
	}
	switch {
	case o.Ops < 0:
		return fmt.Errorf("random: ops must not be negative, got %d", o.Ops)
	case o.Clients < 1:
		return fmt.Errorf("random: need at least one client, got %d", o.Clients)
	case o.Model == "kv" && o.Keys < 1:
		return fmt.Errorf("random: the kv model needs at least one key, got %d", o.Keys)
	case !(o.CrashRate >= 0 && o.CrashRate < 1):
		return fmt.Errorf("random: crash rate must be in [0, 1), got %g", o.CrashRate)
	}
	switch o.Anomaly {
	case "", "none", "stale-read", "lost-update":
	default:
		return fmt.Errorf("random: anomaly must be none, stale-read or lost-update, got %q", o.Anomaly)
	}
	return nil
}

// schedule lays out the operations: the client that is free first invokes
// next, so operations come out sorted by call and clients overlap.
func schedule(g *Mulberry32, o RandomOptions) []randOp {
	ops := make([]randOp, o.Ops)
	clock := make([]int64, o.Clients)
	names := make([]int32, o.Clients)
	free := make(clientHeap, o.Clients)
	for i := range free {
		free[i] = int32(i)
		names[i] = int32(i)
	}
	less := func(a, b int32) bool { return clock[a] < clock[b] || clock[a] == clock[b] && a < b }
	for i := range ops {
		c := free[0]
		r := &ops[i]
		dur := int64(1 + g.Intn(10))
		r.call, r.ret = clock[c], clock[c]+dur
		r.lin = r.call + int64(g.Intn(int(dur)+1))
		r.slot, r.name = c, names[c]
		if o.Model == "kv" {
			r.key = int32(g.Intn(o.Keys))
		}
		x := g.Float64()
		switch {
		case o.Model == "register":
			if x >= 0.5 {
				r.kind = rWrite
			}
		case x < 0.5:
		case x < 0.8:
			r.kind = rWrite
		default:
			r.kind = rCAS
		}
		if o.CrashRate > 0 && g.Float64() < o.CrashRate {
			r.crashed = true
			r.effect = g.Float64() < 0.5
			names[c] += int32(o.Clients)
		}
		clock[c] = r.ret + int64(1+g.Intn(5))
		free.fix(0, less)
	}
	return ops
}

// clientHeap is a binary min-heap of clients by the time they are free.
type clientHeap []int32

// fix restores the heap order after the root's clock grew.
func (h clientHeap) fix(i int, less func(a, b int32) bool) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && less(h[l], h[m]) {
			m = l
		}
		if r < len(h) && less(h[r], h[m]) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// inject marks the operations of the anomaly: a first operation of some
// client, that client's next operation, and the first operation of another
// client invoked after that one returned, all on one key and none crashed.
// The real-time order between the three is what makes the anomaly
// impossible in every linearization.
func inject(g *Mulberry32, o RandomOptions, ops []randOp) error {
	if o.Anomaly == "" || o.Anomaly == "none" {
		return nil
	}
	n := len(ops)
	if n == 0 {
		return fmt.Errorf("random: cannot inject %s into an empty history", o.Anomaly)
	}
	next := make([]int, n) // next operation of the same client, or -1
	last := make([]int, o.Clients)
	for i := range last {
		last[i] = -1
	}
	for i := n - 1; i >= 0; i-- {
		next[i] = last[ops[i].slot]
		last[ops[i].slot] = i
	}
	start := g.Intn(n)
	for k := 0; k < n; k++ {
		a := (start + k) % n
		b := next[a]
		if b < 0 {
			continue
		}
		c := -1
		for j := b + 1; j < n; j++ {
			if ops[j].call > ops[b].ret && (ops[j].slot != ops[a].slot || o.Clients == 1) {
				c = j
				break
			}
		}
		if c < 0 {
			continue
		}
		for _, i := range []int{a, b, c} {
			ops[i].crashed, ops[i].effect = false, false
			ops[i].key = ops[a].key
		}
		// A crash renames the client for its next operation; with the
		// crashes of the gadget undone, keep each client's name unchanged
		// between its operations.
		renameAfterUncrash(ops, o.Clients)
		switch {
		case o.Anomaly == "lost-update" && o.Model != "register":
			ops[a].kind, ops[a].role = rWrite, roleFresh
			ops[b].kind, ops[b].role = rCAS, roleCASFirst
			ops[c].kind, ops[c].role = rCAS, roleCASSecond
		case o.Anomaly == "lost-update":
			ops[a].kind, ops[a].role = rWrite, roleFresh
			ops[b].kind, ops[b].role = rWrite, roleDropped
			ops[c].kind, ops[c].role = rRead, roleStaleRead
		default:
			ops[a].kind, ops[a].role = rWrite, roleFresh
			ops[b].kind, ops[b].role = rWrite, roleFresh
			ops[c].kind, ops[c].role = rRead, roleStaleRead
		}
		return nil
	}
	return fmt.Errorf("random: %d operations of %d clients leave no room for a %s; use more operations", n, o.Clients, o.Anomaly)
}

// renameAfterUncrash recomputes process names from the crash marks: each
// client starts under its own number and moves on by Clients after a crash.
func renameAfterUncrash(ops []randOp, clients int) {
	names := make([]int32, clients)
	for i := range names {
		names[i] = int32(i)
	}
	for i := range ops {
		r := &ops[i]
		r.name = names[r.slot]
		if r.crashed {
			names[r.slot] += int32(clients)
		}
	}
}

// simulate applies the operations in the order of their linearization
// points to one copy of the data, filling in what reads return and whether
// each cas succeeds.
func simulate(g *Mulberry32, o RandomOptions, ops []randOp) {
	order := make([]int32, len(ops))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if ops[a].lin != ops[b].lin {
			if ops[a].lin < ops[b].lin {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	keys := 1
	if o.Model == "kv" {
		keys = o.Keys
	}
	state := make([]int64, keys) // every key starts at 0
	var counter int64            // last unique value handed out
	var fresh int64              // last fresh gadget value (negative without unique values)
	newValue := func() int64 {
		if o.UniqueValues {
			counter++
			return counter
		}
		return int64(1 + g.Intn(randomValueRange))
	}
	freshValue := func() int64 {
		if o.UniqueValues {
			counter++
			return counter
		}
		fresh--
		return fresh
	}
	var gadget int64 // the value the gadget's first write wrote
	for _, i := range order {
		r := &ops[i]
		s := &state[r.key]
		applies := !r.crashed || r.effect
		switch r.kind {
		case rRead:
			r.value = *s
			if r.role == roleStaleRead {
				r.value = gadget
			}
		case rWrite:
			switch r.role {
			case roleFresh, roleDropped:
				r.value = freshValue()
				if gadget == 0 {
					gadget = r.value
				}
			default:
				r.value = newValue()
			}
			if applies && r.role != roleDropped {
				*s = r.value
			}
		case rCAS:
			if r.role == roleCASFirst || r.role == roleCASSecond {
				// Both succeed whatever the store holds: the second
				// overwrites the first's update without having seen it.
				r.from, r.value = gadget, freshValue()
				*s = r.value
				continue
			}
			r.value = newValue()
			r.from = *s
			if g.Float64() < 0.5 {
				r.from = newValue()
			}
			switch {
			case r.from != *s:
				r.failed = !r.crashed
			case applies:
				*s = r.value
			}
		}
	}
}

// randomHistory turns the simulated operations into a validated history.
func randomHistory(o RandomOptions, ops []randOp) (*history.History, error) {
	out := make([]history.Op, len(ops))
	names := map[int32]string{}
	name := func(n int32) string {
		s, ok := names[n]
		if !ok {
			s = strconv.Itoa(int(n))
			names[n] = s
		}
		return s
	}
	// Keys and small values repeat: share their encodings.
	keyVals := make([]history.Value, max(o.Keys, 1))
	for i := range keyVals {
		keyVals[i] = history.IntValue(int64(i))
	}
	for i := range ops {
		r := &ops[i]
		h := &out[i]
		h.Client, h.Call, h.Return, h.Status = name(r.name), r.call, r.ret, history.OK
		if o.Model == "kv" {
			h.Key = keyVals[r.key]
		}
		switch r.kind {
		case rRead:
			h.F, h.Value = "read", history.IntValue(r.value)
			if r.crashed {
				h.Value = history.NilValue
			}
		case rWrite:
			h.F, h.Value = "write", history.IntValue(r.value)
		case rCAS:
			h.F, h.Value = "cas", history.ListValue(history.IntValue(r.from), history.IntValue(r.value))
		}
		switch {
		case r.crashed:
			h.Status = history.Info
		case r.failed:
			h.Status = history.Fail
		}
	}
	h, err := history.FromOps(out)
	if err != nil {
		return nil, fmt.Errorf("random history: %w", err)
	}
	for i := range h.Ops {
		h.Ops[i].Index = int64(i)
	}
	h.Meta = metaFor(o.Model, history.IntValue(0))
	return h, nil
}

func randomScenario() Scenario {
	flags := []Flag{
		{Name: "ops", Default: "1000", Usage: "number of operations"},
		{Name: "clients", Default: "5", Usage: "concurrent clients"},
		{Name: "keys", Default: "10", Usage: "keys (kv model only)"},
		{Name: "model", Default: "register", Usage: "register, cas-register or kv"},
		{Name: "crash-rate", Default: "0", Usage: "probability that an operation's outcome is unknown"},
		{Name: "unique", Default: "true", Usage: "true: every written value is distinct"},
		{Name: "anomaly", Default: "none", Usage: "none, stale-read or lost-update"},
		{Name: "seed", Default: "1", Usage: "generator seed"},
	}
	return Scenario{
		Name:        "random",
		Description: "a random concurrent workload on a single-copy store, optionally with one injected anomaly",
		Flags:       flags,
		Run: func(p Params) (*Output, error) {
			v, err := flagValues(flags, p)
			if err != nil {
				return nil, err
			}
			var o RandomOptions
			if o.Ops, err = parseInt("ops", v["ops"], 0, 100_000_000); err != nil {
				return nil, err
			}
			if o.Clients, err = parseInt("clients", v["clients"], 1, 1_000_000); err != nil {
				return nil, err
			}
			if o.Keys, err = parseInt("keys", v["keys"], 1, 100_000_000); err != nil {
				return nil, err
			}
			if o.Model, err = parseChoice("model", v["model"], "register", "cas-register", "kv"); err != nil {
				return nil, err
			}
			if o.CrashRate, err = strconv.ParseFloat(v["crash-rate"], 64); err != nil {
				return nil, errors.New("crash-rate: want a number in [0, 1)")
			}
			unique, err := parseChoice("unique", v["unique"], "true", "false")
			if err != nil {
				return nil, err
			}
			o.UniqueValues = unique == "true"
			if o.Anomaly, err = parseChoice("anomaly", v["anomaly"], "none", "stale-read", "lost-update"); err != nil {
				return nil, err
			}
			if o.Seed, err = parseSeed(v["seed"]); err != nil {
				return nil, err
			}
			h, err := Random(o)
			if err != nil {
				return nil, err
			}
			c := h.Counts()
			table := mdTable([]string{"operations", "ok", "fail", "info", "processes", "model", "anomaly"},
				[][]string{{fmt.Sprint(len(h.Ops)), fmt.Sprint(c.OK), fmt.Sprint(c.Fail), fmt.Sprint(c.Info), fmt.Sprint(h.Processes), o.Model, o.Anomaly}})
			expect := verdictOf(o.Anomaly == "none")
			shows := fmt.Sprintf("A random concurrent workload on a single copy of the data, checked with the %s model starting at 0. ", o.Model)
			if o.Anomaly == "none" {
				shows += "A single copy serves every operation in one order, so the history is linearizable."
			} else {
				shows += fmt.Sprintf("One %s is injected, so the history is not linearizable, and check's core points at it.", strings.ReplaceAll(o.Anomaly, "-", " "))
			}
			return &Output{Table: closing(table, shows, "random", flags, v, expect), History: h, Model: o.Model,
				Options: model.Options{Init: history.IntValue(0)}, Expect: expect}, nil
		},
	}
}
