// Package randhist generates small random histories for differential tests:
// a checker under test and the reference checker must agree on each.
//
// Each history comes from a real sequential execution of the model: every
// operation takes effect at a point inside its interval, the points follow
// one another in time, and intervals are jittered around them so that they
// overlap. Such a history is linearizable; with probability Config.Corrupt
// one completed operation is then altered (a read returns an older or an
// arbitrary value, a write or cas names another value, a lock operation is
// flipped), which usually breaks linearizability and often keeps sequential
// consistency. Operations may also crash (outcome unknown: the operation took
// effect or not, at random, and its process issues nothing more) or fail
// (no effect). Generated histories follow the pairing rules: a process has
// at most one operation open at a time and none after one with unknown
// outcome.
package randhist

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/histcheck/histcheck/history"
)

// Config says what to generate. Zero counts take the defaults in brackets;
// rates are probabilities in [0, 1] taken as given.
type Config struct {
	// Model is "register", "cas-register", "kv" or "mutex" (for New).
	Model string
	// Ops is the number of operations [6]; fewer when every process crashed.
	Ops int
	// Processes is the number of clients [a random number from 1 to 4].
	Processes int
	// Values is the size of the domain values are drawn from [3]: small
	// domains give duplicate values, large ones mostly unique values.
	Values int
	// Keys is the number of keys for kv [2].
	Keys int
	// Init is the initial value of registers and keys the execution starts
	// from; None means nil. The mutex always starts free.
	Init history.Value
	// CrashRate is the chance an operation's outcome is unknown.
	CrashRate float64
	// FailRate is the chance an operation fails; a cas that finds another
	// value and an acquire of a held lock fail regardless.
	FailRate float64
	// Corrupt is the chance one completed operation is altered afterwards.
	Corrupt float64
	// Ties, above 1, coarsens the clock of the register, cas-register, kv
	// and mutex histories: every time is divided by it, so that calls and
	// returns tie within and across processes and a process's operations
	// touch (one returns at the instant its next is called). The points
	// of effect keep their order, so the execution is still a witness.
	Ties int
	// Versions is the chance a history's reads and writes carry versions
	// (see versions.go); with chance Corrupt one version is then altered.
	Versions float64
}

// Default returns a configuration for the model that gives roughly half
// linearizable histories, with some crashed and failed operations.
func Default(model string) Config {
	return Config{Model: model, CrashRate: 0.1, FailRate: 0.1, Corrupt: 0.7}
}

// New generates a history for cfg.Model.
func New(r *rand.Rand, cfg Config) (*history.History, error) {
	switch cfg.Model {
	case "register":
		return Register(r, cfg), nil
	case "cas-register":
		return CASRegister(r, cfg), nil
	case "kv":
		return KV(r, cfg), nil
	case "mutex":
		return Mutex(r, cfg), nil
	}
	return nil, fmt.Errorf("randhist: unknown model %q (want register, cas-register, kv or mutex)", cfg.Model)
}

// Register generates a history of reads and writes of integers.
func Register(r *rand.Rand, cfg Config) *history.History {
	g := newGen(r, cfg)
	return g.run(func(st *state, op *history.Op) {
		if r.IntN(2) == 0 {
			g.read(st, op, "read")
		} else {
			g.write(st, op, "write", g.intValue())
		}
	})
}

// CASRegister generates a history of reads, writes and cas of integers.
func CASRegister(r *rand.Rand, cfg Config) *history.History {
	g := newGen(r, cfg)
	return g.run(func(st *state, op *history.Op) {
		switch n := r.IntN(10); {
		case n < 4:
			g.read(st, op, "read")
		case n < 7:
			g.write(st, op, "write", g.intValue())
		default:
			g.cas(st, op, g.intValue)
		}
	})
}

// KV generates a history of get, put, append and cas of strings on a few
// keys ("x", "y", …).
func KV(r *rand.Rand, cfg Config) *history.History {
	g := newGen(r, cfg)
	g.strings = true
	str := g.strValue
	return g.run(func(st *state, op *history.Op) {
		op.Key = history.StringValue(string(rune('x' + r.IntN(g.cfg.Keys))))
		switch n := r.IntN(10); {
		case n < 4:
			g.read(st, op, "get")
		case n < 6:
			g.write(st, op, "put", str())
		case n < 9:
			op.F = "append"
			op.Value = str()
			cur := g.current(st, op.Key)
			if k := cur.Kind(); k != history.String && k != history.Nil {
				// Only strings (and nil, as "") can be appended to.
				if op.Status == history.OK {
					op.Status = history.Fail
				}
				return
			}
			if g.applies(op) {
				next := history.StringValue(cur.Text() + op.Value.Text())
				st.regs[op.Key] = next
				st.seen = append(st.seen, next)
			}
		default:
			g.cas(st, op, str)
		}
	})
}

// Mutex generates a history of acquire and release of one lock.
func Mutex(r *rand.Rand, cfg Config) *history.History {
	g := newGen(r, cfg)
	return g.run(func(st *state, op *history.Op) {
		op.F = "acquire"
		if r.IntN(2) == 0 {
			op.F = "release"
		}
		if (op.F == "acquire") == st.held && op.Status != history.Info {
			op.Status = history.Fail
		}
		if g.applies(op) && (op.F == "acquire") != st.held {
			st.held = !st.held
		}
	})
}

// state is the true state of the execution.
type state struct {
	regs map[history.Value]history.Value // by key (None for registers)
	// seen lists every value a register or key held, for stale reads.
	seen []history.Value
	held bool
}

type gen struct {
	r   *rand.Rand
	cfg Config
	// strings makes values strings ("a", "b", …) rather than integers.
	strings bool
}

func newGen(r *rand.Rand, cfg Config) *gen {
	if cfg.Ops <= 0 {
		cfg.Ops = 6
	}
	if cfg.Processes <= 0 {
		cfg.Processes = 1 + r.IntN(4)
	}
	if cfg.Values <= 0 {
		cfg.Values = 3
	}
	if cfg.Keys <= 0 {
		cfg.Keys = 2
	}
	if cfg.Init.IsNone() {
		cfg.Init = history.NilValue
	}
	return &gen{r: r, cfg: cfg}
}

func (g *gen) intValue() history.Value { return history.IntValue(int64(g.r.IntN(g.cfg.Values))) }

func (g *gen) strValue() history.Value {
	return history.StringValue(string(rune('a' + g.r.IntN(g.cfg.Values))))
}

// applies reports whether op takes effect: a completed one does, a failed
// one does not, one of unknown outcome does half the time.
func (g *gen) applies(op *history.Op) bool {
	switch op.Status {
	case history.OK:
		return true
	case history.Info:
		return g.r.IntN(2) == 0
	}
	return false
}

func (g *gen) current(st *state, key history.Value) history.Value {
	if v, ok := st.regs[key]; ok {
		return v
	}
	return g.cfg.Init
}

func (g *gen) read(st *state, op *history.Op, f string) {
	op.F = f
	op.Value = history.NilValue
	if op.Status == history.OK {
		op.Value = g.current(st, op.Key)
	}
}

func (g *gen) write(st *state, op *history.Op, f string, v history.Value) {
	op.F, op.Value = f, v
	if g.applies(op) {
		st.regs[op.Key] = v
		st.seen = append(st.seen, v)
	}
}

func (g *gen) cas(st *state, op *history.Op, value func() history.Value) {
	cur := g.current(st, op.Key)
	from := value()
	if g.r.IntN(2) == 0 {
		from = cur
	}
	to := value()
	op.F, op.Value = "cas", history.ListValue(from, to)
	if from != cur && op.Status == history.OK {
		op.Status = history.Fail
	}
	if from == cur && g.applies(op) {
		st.regs[op.Key] = to
		st.seen = append(st.seen, to)
	}
}

// run generates the operations, each completed by step, which sets its name
// and value, may turn it into a failure, and applies it to the state.
func (g *gen) run(step func(*state, *history.Op)) *history.History {
	r, cfg := g.r, g.cfg
	st := &state{regs: make(map[history.Value]history.Value), seen: []history.Value{cfg.Init}}
	vs := g.versioner()
	ops := g.timeline(func(op *history.Op, _ int64) {
		before := len(st.seen)
		step(st, op)
		vs.assign(op, len(st.seen) > before)
	})
	if cfg.Ties > 1 {
		coarsen(ops, int64(cfg.Ties))
	}
	if r.Float64() < cfg.Corrupt {
		g.corrupt(st, ops)
	}
	vs.corrupt(ops)
	return g.assemble(ops)
}

// coarsen divides every time by grain: floor keeps each process's
// operations in order and every interval around its point of effect.
func coarsen(ops []history.Op, grain int64) {
	for i := range ops {
		ops[i].Call /= grain
		if ops[i].Return != history.Infinity {
			ops[i].Return /= grain
		}
	}
}

// corrupt alters one completed operation, preferring those whose outcome
// was observed (reads, cas, lock operations) since altering a write often
// changes nothing visible.
func (g *gen) corrupt(st *state, ops []history.Op) {
	var observers, writes []int
	for i := range ops {
		if ops[i].Status != history.OK {
			continue
		}
		switch ops[i].F {
		case "write", "put", "append":
			writes = append(writes, i)
		default:
			observers = append(observers, i)
		}
	}
	pick := observers
	if len(pick) == 0 || (len(writes) > 0 && g.r.IntN(4) == 0) {
		pick = writes
	}
	if len(pick) == 0 {
		return
	}
	op := &ops[pick[g.r.IntN(len(pick))]]
	// other returns a value other than v: half the time one the register
	// held at some point (a stale value), else one from the domain.
	other := func(v history.Value) history.Value {
		for range 8 {
			var w history.Value
			switch {
			case g.r.IntN(2) == 0 && op.F != "append":
				w = st.seen[g.r.IntN(len(st.seen))]
			case g.strings:
				w = g.strValue()
			default:
				w = g.intValue()
			}
			if w != v {
				return w
			}
		}
		if g.strings {
			return history.StringValue(v.Text() + "z")
		}
		return history.IntValue(int64(g.cfg.Values))
	}
	switch op.F {
	case "acquire":
		op.F = "release"
	case "release":
		op.F = "acquire"
	case "cas":
		e := op.Value.Elems()
		op.Value = history.ListValue(other(e[0]), e[1])
	default:
		op.Value = other(op.Value)
	}
}

// assemble sorts the operations by invocation (ties keep generation order)
// and numbers processes densely in order of appearance.
func (g *gen) assemble(ops []history.Op) *history.History {
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	logical := make(map[int]int)
	for i := range ops {
		ops[i].Index = int64(i)
		ops[i].Times = history.Span{Call: ops[i].Call, Return: ops[i].Return}
		p, ok := logical[ops[i].Process]
		if !ok {
			p = len(logical)
			logical[ops[i].Process] = p
		}
		ops[i].Process = p
	}
	return &history.History{Ops: ops, Processes: len(logical), Clients: len(logical), Timed: true}
}
