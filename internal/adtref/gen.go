package adtref

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/internal/randhist"
	"github.com/histcheck/histcheck/model"
)

// This file generates small random histories (3 to 7 operations, 2 or 3
// clients) for every model the brute force is tested on, for this
// package's tests and the engines' differential tests.
//
// Some come from package randhist: a real sequential execution
// (linearizable) with one operation altered now and then, or, for the
// registers and kv, reads drawn loosely from the values written. The others
// come from replicas: each client has a copy of the object, applies its
// own operations there and reads from it, and its updates reach the other
// copies later, each copy applying them (outputs hidden) in whatever order
// they arrive, so that the histories are weakly consistent in every way
// a store can be: stale reads, reads of concurrent updates in different
// orders, causality broken by an update arriving before its cause. An
// operation returns what its copy gives it, or now and then something it
// does not (a corrupt answer). Operations crash (outcome unknown: taken on
// the client's copy, and sent, or not; the client then stops or goes on as
// a new process) and fail (no effect); times tie within and across
// processes. Values come from small domains, so they repeat, and reads of
// nil occur (and are read as any value under model.NilIsAny now and then).

// Models lists the models Generate and DecideNamed know, by name.
var Models = []string{"register", "cas-register", "kv", "mutex", "lock", "fenced-register", "set",
	"fifo-queue", "unordered-queue", "counter", "multi-register"}

// WeakModels lists the models of Models that have the weak criteria: all
// but the unordered queue, whose dequeue with its output hidden may remove
// any element, so that it is not a function of the state, as the
// definitions need (the model removes one by rule, which is exact for
// linearizability and sequential consistency only).
var WeakModels = []string{"register", "cas-register", "kv", "mutex", "lock", "fenced-register", "set",
	"fifo-queue", "counter", "multi-register"}

// MemoryModels lists the models of WeakModels whose histories, when kv
// has no append, are read/write-register histories (reads, writes, cas).
var MemoryModels = []string{"register", "cas-register", "kv"}

// MemoryHistory reports whether h, of the named model, is a
// read/write-register history: of a memory model, without appends. The
// ladder's memory-only edges (ladder.Edge.MemoryOnly) hold on those.
func MemoryHistory(name string, h *history.History) bool {
	if !slices.Contains(MemoryModels, name) {
		return false
	}
	for _, o := range h.Ops {
		if o.Status != history.Fail && o.F == "append" {
			return false
		}
	}
	return true
}

// Generate draws a history for the named model, and the options the model
// is to be built with (model.Options: the initial value and how nil reads
// are read).
func Generate(r *rand.Rand, name string) (*history.History, model.Options, error) {
	sp, ok := specs[name]
	if !ok {
		return nil, model.Options{}, fmt.Errorf("adtref: no generator for model %q (have %v)", name, Models)
	}
	opts := sp.options(r)
	n, procs := 3+r.IntN(5), 2+r.IntN(2)
	if sp.casRate >= 0 && r.IntN(3) == 0 {
		cfg := randhist.WeakConfig{Ops: n, Processes: procs, Keys: 1 + r.IntN(2), CrashRate: 0.15, FailRate: 0.1,
			CASRate: sp.casRate, Values: r.IntN(2) * (2 + r.IntN(2))}
		if name != "kv" {
			cfg.Keys = 1
		}
		h, init := randhist.ReadWrite(r, cfg)
		opts.Init = init
		return h, opts, nil
	}
	if sp.linear != nil && r.IntN(2) == 0 {
		cfg := randhist.Config{Ops: n, Processes: procs, Values: 3, Init: opts.Init,
			CrashRate: 0.15, FailRate: 0.1, Corrupt: 0.4, Ties: 1 + r.IntN(3)}
		return sp.linear(r, cfg), opts, nil
	}
	b, err := bind(name, opts)
	if err != nil {
		return nil, opts, err
	}
	h, err := b.simulate(r, sp.draw, n, procs)
	return h, opts, err
}

// DecideNamed decides criterion on h with the named model built from opts.
// A model not in WeakModels has sequential consistency only.
func DecideNamed(name string, opts model.Options, h *history.History, criterion string) (bool, error) {
	if criterion != checker.Sequential && slices.Contains(Models, name) && !slices.Contains(WeakModels, name) {
		return false, fmt.Errorf("adtref: model %s has no weak criteria (its hidden steps are not functions of the state)", name)
	}
	b, err := bind(name, opts)
	if err != nil {
		return false, err
	}
	return b.decide(h, criterion)
}

// bound is a model built from options, with the functions that need its
// state type.
type bound struct {
	decide   func(h *history.History, criterion string) (bool, error)
	simulate func(r *rand.Rand, draw drawFunc, n, procs int) (*history.History, error)
	// prepare compiles h into an execution (an *exec of the model's
	// state type), for tests that look inside.
	prepare func(h *history.History) (any, error)
}

func bindModel[S comparable](m model.Model[S]) bound {
	return bound{
		decide: func(h *history.History, criterion string) (bool, error) { return Decide(m, h, criterion) },
		simulate: func(r *rand.Rand, draw drawFunc, n, procs int) (*history.History, error) {
			return simulate(r, m, draw, n, procs)
		},
		prepare: func(h *history.History) (any, error) { return prepare(m, h) },
	}
}

// bind builds the named model.
func bind(name string, opts model.Options) (bound, error) {
	switch name {
	case "register":
		return bindModel(model.NewRegister(opts)), nil
	case "cas-register":
		return bindModel(model.NewCASRegister(opts)), nil
	case "kv":
		return bindModel(model.NewKV(opts)), nil
	case "mutex":
		return bindModel(model.NewMutex(opts)), nil
	case "lock":
		return bindModel(model.NewLock(opts)), nil
	case "fenced-register":
		return bindModel(model.NewFencedRegister(opts)), nil
	case "set":
		return bindModel(model.NewSet(opts)), nil
	case "fifo-queue":
		return bindModel(model.NewFIFOQueue(opts)), nil
	case "unordered-queue":
		return bindModel(model.NewUnorderedQueue(opts)), nil
	case "counter":
		return bindModel(model.NewCounter(opts)), nil
	case "multi-register":
		return bindModel(model.NewMultiRegister(opts)), nil
	}
	return bound{}, fmt.Errorf("adtref: unknown model %q (have %v)", name, Models)
}

// drawn is one operation a client is about to issue: the same input with
// each output it might return (cands; one for an operation that returns
// nothing), and the form it is recorded in when it fails or crashes.
type drawn struct {
	cands  []history.Op
	invoke history.Op
}

// drawFunc draws client c's next operation.
type drawFunc func(r *rand.Rand, c *client) drawn

// client is what a drawFunc may know of the client: its name and, for
// fenced writes and lock tokens, a counter of its own.
type client struct {
	name  string
	token *int64 // shared by all clients: the next token handed out
	mine  int64  // the token this client writes with
}

// replica is one client's copy of the object: a model state per key.
type replica[S comparable] map[history.Value]S

// delivery is an update on its way to a copy.
type delivery struct {
	to  int
	key history.Value
	op  model.Op
}

// sim is a run of the replicas.
type sim[S comparable] struct {
	r       *rand.Rand
	m       model.Model[S]
	t       *model.Table
	init    S
	keyed   bool
	copies  []replica[S]
	pending []delivery
}

// simulate runs n operations of procs clients on replicas of m.
func simulate[S comparable](r *rand.Rand, m model.Model[S], draw drawFunc, n, procs int) (*history.History, error) {
	s := &sim[S]{r: r, m: m, t: model.NewTable(), keyed: m.Info().Keyed}
	s.init = m.Init(s.t)
	clients := make([]*client, procs)
	token := int64(10)
	for i := range clients {
		s.copies = append(s.copies, replica[S]{})
		clients[i] = &client{name: string(rune('A' + i)), token: &token}
	}
	dead := make([]bool, procs)
	busy := make([]int64, procs)
	var ops []history.Op
	var now int64
	for len(ops) < n {
		live := liveOnes(dead)
		if len(live) == 0 {
			break
		}
		p := live[len(ops)%len(live)]
		if r.IntN(3) == 0 {
			p = live[r.IntN(len(live))]
		}
		s.deliverSome()
		op, stop, err := s.issue(p, drawLeaning(r, draw, clients[p], len(ops) < n/2))
		if err != nil {
			return nil, err
		}
		now += int64(r.IntN(2)) // 0: a tie with the previous operation
		op.Client, op.Index = clients[p].name, int64(len(ops))
		op.Call = max(busy[p], now-int64(r.IntN(2)))
		op.Return = max(op.Call, now+int64(r.IntN(2)))
		busy[p] = op.Return // the next call may touch this return
		dead[p] = stop
		ops = append(ops, op)
	}
	if len(ops) == 0 {
		return &history.History{}, nil
	}
	return history.FromOps(ops)
}

// drawLeaning draws an operation, leaning towards updates in the first
// half of a history and towards reads (operations with several possible
// outputs) in the second, so that clients read after the others wrote:
// it draws again, up to twice, while the operation leans the wrong way.
func drawLeaning(r *rand.Rand, draw drawFunc, c *client, updates bool) drawn {
	d := draw(r, c)
	for range 2 {
		if (len(d.cands) == 1) == updates {
			break
		}
		d = draw(r, c)
	}
	return d
}

func liveOnes(dead []bool) []int {
	var out []int
	for p, d := range dead {
		if !d {
			out = append(out, p)
		}
	}
	return out
}

// state returns copy p's state of key k.
func (s *sim[S]) state(p int, k history.Value) S {
	if v, ok := s.copies[p][k]; ok {
		return v
	}
	return s.init
}

// deliverSome applies each update on its way, with chance 1/6, at its
// copy, output hidden; an update that copy refuses is lost.
func (s *sim[S]) deliverSome() {
	var left []delivery
	for _, d := range s.pending {
		if s.r.IntN(6) != 0 {
			left = append(left, d)
			continue
		}
		op := d.op
		op.Unknown = true
		if next, ok := s.m.Step(s.state(d.to, d.key), &op); ok {
			s.copies[d.to][d.key] = next
		}
	}
	s.pending = left
}

// issue runs client p's operation d on p's copy: it returns the operation
// as recorded and whether the client stops.
func (s *sim[S]) issue(p int, d drawn) (history.Op, bool, error) {
	k := history.Value{}
	if s.keyed {
		k = d.invoke.Key
	}
	switch x := s.r.Float64(); {
	case x < 0.12: // crashed: took effect or not
		op := d.invoke
		op.Status = history.Info
		if s.r.IntN(2) == 0 {
			if _, err := s.apply(p, k, op, true); err != nil {
				return op, false, err
			}
		}
		return op, s.r.IntN(2) == 0, nil
	case x < 0.2: // failed: no effect
		op := d.invoke
		op.Status = history.Fail
		return op, false, nil
	}
	return s.complete(p, k, d)
}

// complete runs a completed operation: it returns an output the copy
// gives (now and then one it does not), or fails when the copy refuses
// every one (now and then it succeeds anyway, a corrupt answer, with no
// effect).
func (s *sim[S]) complete(p int, k history.Value, d drawn) (history.Op, bool, error) {
	var legal, illegal []history.Op
	for _, c := range d.cands {
		c.Status = history.OK
		mo, err := s.m.Compile(&c, s.t)
		if err != nil {
			return c, false, fmt.Errorf("adtref: generated %s %s: %w", c.F, c.Value, err)
		}
		if _, ok := s.m.Step(s.state(p, k), &mo); ok {
			legal = append(legal, c)
		} else {
			illegal = append(illegal, c)
		}
	}
	if len(illegal) > 0 && (len(legal) == 0 || s.r.IntN(20) == 0) {
		op := illegal[s.r.IntN(len(illegal))]
		if len(legal) == 0 && s.r.IntN(3) != 0 {
			op.Status = history.Fail
		}
		return op, false, nil
	}
	op := legal[s.r.IntN(len(legal))]
	_, err := s.apply(p, k, op, false)
	return op, false, err
}

// apply steps op at copy p and sends it to the others when it may change
// the state.
func (s *sim[S]) apply(p int, k history.Value, op history.Op, hidden bool) (bool, error) {
	mo, err := s.m.Compile(&op, s.t)
	if err != nil {
		return false, fmt.Errorf("adtref: generated %s %s: %w", op.F, op.Value, err)
	}
	mo.Unknown = hidden
	next, ok := s.m.Step(s.state(p, k), &mo)
	if !ok {
		return false, nil
	}
	s.copies[p][k] = next
	if s.m.Info().ClassOf(op.F) != model.ReadOp {
		for q := range s.copies {
			if q != p {
				s.pending = append(s.pending, delivery{to: q, key: k, op: mo})
			}
		}
	}
	return true, nil
}

// spec is how one model's histories are drawn.
type spec struct {
	options func(r *rand.Rand) model.Options
	draw    drawFunc
	// linear is randhist's generator for the model, or nil.
	linear func(r *rand.Rand, cfg randhist.Config) *history.History
	// casRate, when not negative, has a third of the histories drawn by
	// randhist.ReadWrite (reads drawn loosely, as a weakly consistent
	// store answers), with that share of cas among the writes.
	casRate float64
}

var specs = map[string]spec{
	"register":        {registerOptions, drawRegister(false), randhist.Register, 0},
	"cas-register":    {registerOptions, drawRegister(true), randhist.CASRegister, 0.3},
	"kv":              {kvOptions, drawKV, randhist.KV, 0.2},
	"mutex":           {noOptions, drawMutex, randhist.Mutex, -1},
	"lock":            {noOptions, drawLock, randhist.Lock, -1},
	"fenced-register": {registerOptions, drawFenced, randhist.FencedRegister, -1},
	"set":             {noOptions, drawSet, randhist.Set, -1},
	"fifo-queue":      {noOptions, drawQueue, randhist.FIFOQueue, -1},
	"unordered-queue": {noOptions, drawQueue, randhist.UnorderedQueue, -1},
	"counter":         {noOptions, drawCounter, randhist.Counter, -1},
	"multi-register":  {registerOptions, drawMulti, nil, -1},
}

func noOptions(*rand.Rand) model.Options { return model.Options{} }

// registerOptions starts at nil or 0, and reads nil as any value one time
// in five.
func registerOptions(r *rand.Rand) model.Options {
	o := model.Options{Init: history.NilValue}
	if r.IntN(2) == 0 {
		o.Init = history.IntValue(0)
	}
	if r.IntN(5) == 0 {
		o.NilRead = model.NilIsAny
	}
	return o
}

func kvOptions(r *rand.Rand) model.Options {
	o := model.Options{}
	if r.IntN(5) == 0 {
		o.NilRead = model.NilIsAny
	}
	return o
}

// small is a value from 0 to 2.
func small(r *rand.Rand) history.Value { return history.IntValue(int64(r.IntN(3))) }

// reads returns a read of each value in vals, the first being how a read
// is recorded when it fails or crashes.
func reads(f string, key history.Value, vals []history.Value) drawn {
	var d drawn
	for _, v := range vals {
		d.cands = append(d.cands, history.Op{F: f, Key: key, Value: v})
	}
	d.invoke = history.Op{F: f, Key: key, Value: history.NilValue}
	return d
}

// update is an operation with one possible outcome.
func update(op history.Op) drawn { return drawn{cands: []history.Op{op}, invoke: op} }

var smallOrNil = []history.Value{history.NilValue, history.IntValue(0), history.IntValue(1), history.IntValue(2)}

func drawRegister(cas bool) drawFunc {
	return func(r *rand.Rand, _ *client) drawn {
		switch n := r.IntN(10); {
		case n < 4:
			return reads("read", history.Value{}, smallOrNil)
		case n < 7 || !cas:
			return update(history.Op{F: "write", Value: small(r)})
		}
		return update(history.Op{F: "cas", Value: history.ListValue(small(r), small(r))})
	}
}

// kvStrings are the values a kv read may return: appends of "a" and "b".
var kvStrings = func() []history.Value {
	out := []history.Value{history.NilValue}
	for _, s := range []string{"a", "b", "aa", "ab", "ba", "bb", "aab", "aba", "abb", "baa", "bab", "bba", "aaa", "bbb"} {
		out = append(out, history.StringValue(s))
	}
	return out
}()

func drawKV(r *rand.Rand, _ *client) drawn {
	key := history.StringValue(string(rune('x' + r.IntN(2))))
	str := func() history.Value { return history.StringValue(string(rune('a' + r.IntN(2)))) }
	switch n := r.IntN(10); {
	case n < 4:
		return reads("get", key, kvStrings)
	case n < 6:
		return update(history.Op{F: "put", Key: key, Value: str()})
	case n < 9:
		return update(history.Op{F: "append", Key: key, Value: str()})
	}
	return update(history.Op{F: "cas", Key: key, Value: history.ListValue(str(), str())})
}

func drawMutex(r *rand.Rand, _ *client) drawn {
	if r.IntN(2) == 0 {
		return update(history.Op{F: "acquire"})
	}
	return update(history.Op{F: "release"})
}

// drawLock acquires, most of the time with the next fencing token, or
// releases; the lock knows its holder by client name.
func drawLock(r *rand.Rand, c *client) drawn {
	if r.IntN(2) == 0 {
		return update(history.Op{F: "release", Client: c.name})
	}
	op := history.Op{F: "acquire", Client: c.name}
	if r.IntN(4) != 0 {
		*c.token += int64(r.IntN(2))
		op.Token = history.IntValue(*c.token)
	}
	return update(op)
}

// drawFenced reads, or writes with the client's token (a fresh one now
// and then, so that other clients' tokens go stale) or none.
func drawFenced(r *rand.Rand, c *client) drawn {
	if r.IntN(10) < 4 {
		return reads("read", history.Value{}, smallOrNil)
	}
	op := history.Op{F: "write", Value: small(r)}
	if c.mine == 0 || r.IntN(3) == 0 {
		*c.token++
		c.mine = *c.token
	}
	if r.IntN(5) != 0 {
		op.Token = history.IntValue(c.mine)
	}
	return update(op)
}

// setReads is every read of a subset of {0, 1, 2}.
var setReads = func() []history.Value {
	var out []history.Value
	for bits := range 8 {
		var es []history.Value
		for e := range 3 {
			if bits&(1<<e) != 0 {
				es = append(es, history.IntValue(int64(e)))
			}
		}
		out = append(out, history.SetValue(es...))
	}
	return out
}()

func drawSet(r *rand.Rand, _ *client) drawn {
	if r.IntN(10) < 4 {
		d := reads("read", history.Value{}, setReads)
		d.invoke.Value = history.SetValue()
		return d
	}
	return update(history.Op{F: "add", Value: small(r)})
}

func drawQueue(r *rand.Rand, _ *client) drawn {
	if r.IntN(2) == 0 {
		return update(history.Op{F: "enqueue", Value: small(r)})
	}
	return reads("dequeue", history.Value{}, smallOrNil)
}

func drawCounter(r *rand.Rand, _ *client) drawn {
	if r.IntN(10) < 6 {
		return update(history.Op{F: "add", Value: history.IntValue(int64(r.IntN(4) - 1))})
	}
	var vals []history.Value
	for v := -3; v <= 8; v++ {
		vals = append(vals, history.IntValue(int64(v)))
	}
	return reads("read", history.Value{}, vals)
}

// drawMulti draws a transaction of one or two reads and writes of keys x
// and y, with every combination of values its reads may return.
func drawMulti(r *rand.Rand, _ *client) drawn {
	type mop struct {
		write bool
		key   string
		val   history.Value
	}
	var prog []mop
	for range 1 + r.IntN(2) {
		prog = append(prog, mop{write: r.IntN(2) == 0, key: string(rune('x' + r.IntN(2))), val: history.IntValue(1 + int64(r.IntN(2)))})
	}
	render := func(vals []history.Value) history.Value {
		var out []history.Value
		for i, m := range prog {
			f, v := "read", vals[i]
			if m.write {
				f, v = "write", m.val
			}
			out = append(out, history.ListValue(history.StringValue(f), history.StringValue(m.key), v))
		}
		return history.ListValue(out...)
	}
	readVals := []history.Value{history.NilValue, history.IntValue(0), history.IntValue(1), history.IntValue(2)}
	var d drawn
	for _, a := range readVals {
		for _, b := range readVals {
			d.cands = append(d.cands, history.Op{F: "txn", Value: render([]history.Value{a, b})})
		}
	}
	d.invoke = history.Op{F: "txn", Value: render([]history.Value{history.NilValue, history.NilValue})}
	d.cands = dedupe(d.cands)
	return d
}

// dedupe drops repeated candidates (a transaction with fewer reads than
// the combinations drawn).
func dedupe(ops []history.Op) []history.Op {
	seen := map[string]bool{}
	var out []history.Op
	for _, o := range ops {
		if s := o.Value.String(); !seen[s] {
			seen[s] = true
			out = append(out, o)
		}
	}
	return out
}
