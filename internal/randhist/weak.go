package randhist

import (
	"math/rand/v2"
	"sort"

	"github.com/histcheck/histcheck/history"
)

// WeakConfig says what ReadWrite generates. Zero counts take the defaults
// in brackets.
type WeakConfig struct {
	// Ops is the number of operations [a random number from 3 to 9].
	Ops int
	// Processes is the number of clients [a random number from 2 to 4].
	Processes int
	// Keys is the number of keys [a random number from 1 to 3]; with one
	// key the operations carry no key (a register) half the time.
	Keys int
	// CrashRate and FailRate are the chances an operation's outcome is
	// unknown or that it fails.
	CrashRate, FailRate float64
	// CASRate is the chance a write is a cas instead: it expects the
	// value of the simulated store most of the time, else another value
	// written or the initial value, and fails when it finds another.
	CASRate float64
	// Values, when above 0, draws each written value from 1 to Values,
	// or the initial value 0 (when it is 0), so that values repeat and
	// reads-from is ambiguous; 0 writes unique values.
	Values int
}

// ReadWrite generates a read/write history for the weak criteria, and the
// initial value it assumes (0 or nil, at random). Unless cfg.Values asks
// for repeated values, the history is differentiated: every written value
// is unique and differs from the initial value. The reads are
// drawn loosely, as a weakly consistent store might answer: the latest value
// of a simulated store, a value written anywhere in the history (earlier,
// later, by a failed or crashed write, by the reader itself), the initial
// value, nil, or rarely a value nobody wrote. Writes and reads crash (the
// client then goes on, half the time, as a new logical process) or fail.
// Times tie often, inside a process (an operation starting when the
// previous one returned, or taking no time) and across processes.
func ReadWrite(r *rand.Rand, cfg WeakConfig) (*history.History, history.Value) {
	if cfg.Ops <= 0 {
		cfg.Ops = 3 + r.IntN(7)
	}
	if cfg.Processes <= 0 {
		cfg.Processes = 2 + r.IntN(3)
	}
	if cfg.Keys <= 0 {
		cfg.Keys = 1 + r.IntN(3)
	}
	init := history.IntValue(0)
	if r.IntN(4) == 0 {
		init = history.NilValue
	}
	register := cfg.Keys == 1 && r.IntN(2) == 0
	plans, written := drawPlans(r, cfg, init)
	store := make([]history.Value, cfg.Keys)
	for k := range store {
		store[k] = init
	}
	proc := make([]int, cfg.Processes) // client → current logical process
	for c := range proc {
		proc[c] = c
	}
	nextProc := cfg.Processes
	dead := make([]bool, cfg.Processes)
	free := make([]int64, cfg.Processes) // client → earliest next call
	var now int64
	var ops []history.Op
	for _, pl := range plans {
		if dead[pl.client] {
			continue
		}
		now += int64(r.IntN(3)) // 0: a tie with the previous call
		call := max(now, free[pl.client])
		op := history.Op{Process: proc[pl.client], Client: string(rune('A' + pl.client)),
			Call: call, Return: call + int64(r.IntN(3)), Status: history.OK}
		if !register {
			op.Key = history.StringValue(string(rune('x' + pl.key)))
		}
		switch x := r.Float64(); {
		case x < cfg.CrashRate:
			op.Status, op.Return = history.Info, history.Infinity
			if r.IntN(2) == 0 {
				dead[pl.client] = true
			} else {
				proc[pl.client] = nextProc
				nextProc++
			}
		case x < cfg.CrashRate+cfg.FailRate:
			op.Status = history.Fail
		}
		if op.Return != history.Infinity {
			free[pl.client] = op.Return // the next call may touch this return
		}
		fill(r, &op, pl, &store[pl.key], init, written[pl.key])
		ops = append(ops, op)
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	dense := map[int]int{}
	for i := range ops {
		ops[i].Index = int64(i)
		p, ok := dense[ops[i].Process]
		if !ok {
			p = len(dense)
			dense[ops[i].Process] = p
		}
		ops[i].Process = p
	}
	clients := map[string]bool{}
	for _, o := range ops {
		clients[o.Client] = true
	}
	return &history.History{Ops: ops, Processes: len(dense), Clients: len(clients)}, init
}

func readValue(r *rand.Rand, current, init history.Value, written []int64) history.Value {
	switch x := r.IntN(100); {
	case x < 40:
		return current
	case x < 90:
		if n := r.IntN(len(written) + 1); n < len(written) {
			return history.IntValue(written[n])
		}
		return init
	case x < 97:
		return history.NilValue
	}
	return history.IntValue(1000 + int64(r.IntN(2)))
}

// repeated draws a written value from 1 to n, or the initial value when
// it is 0 (one time in n+1).
func repeated(r *rand.Rand, n int, init history.Value) int64 {
	if init == history.IntValue(0) {
		return int64(r.IntN(n + 1))
	}
	return 1 + int64(r.IntN(n))
}

// plan is one operation ReadWrite will issue.
type plan struct {
	client, key int
	write, cas  bool
	val         int64
}

// fill sets op's name, value and outcome as plan pl says, store being the
// simulated store's value of pl's key, and updates the store.
func fill(r *rand.Rand, op *history.Op, pl plan, store *history.Value, init history.Value, written []int64) {
	took := func() bool { return op.Status == history.OK || (op.Status == history.Info && r.IntN(2) == 0) }
	switch {
	case pl.cas:
		from := *store
		if r.IntN(3) == 0 {
			from = readValue(r, *store, init, written)
		}
		op.F, op.Value = "cas", history.ListValue(from, history.IntValue(pl.val))
		if from != *store && op.Status == history.OK {
			op.Status = history.Fail // a cas that finds another value fails
		}
		if from == *store && took() {
			*store = history.IntValue(pl.val)
		}
	case pl.write:
		op.F, op.Value = "write", history.IntValue(pl.val)
		if took() {
			*store = op.Value
		}
	default:
		op.F, op.Value = "read", history.NilValue
		if op.Status == history.OK {
			op.Value = readValue(r, *store, init, written)
		}
	}
}

// drawPlans draws the operations ReadWrite issues, and the values written
// to each key.
func drawPlans(r *rand.Rand, cfg WeakConfig, init history.Value) ([]plan, [][]int64) {
	plans := make([]plan, cfg.Ops)
	written := make([][]int64, cfg.Keys)
	next := int64(1)
	for i := range plans {
		pl := plan{client: r.IntN(cfg.Processes), key: r.IntN(cfg.Keys), write: r.IntN(2) == 0}
		if pl.write {
			pl.val = next
			next++
			if cfg.Values > 0 {
				pl.val = repeated(r, cfg.Values, init)
			}
			pl.cas = cfg.CASRate > 0 && r.Float64() < cfg.CASRate
			written[pl.key] = append(written[pl.key], pl.val)
		}
		plans[i] = pl
	}
	return plans, written
}
