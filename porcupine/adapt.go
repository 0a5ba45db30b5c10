package porcupine

import (
	"context"
	"fmt"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/model"
)

// maxCached bounds the steps an adapter remembers (16 bytes each, with
// the table's slack): past it, steps not remembered call the model.
const maxCached = 1 << 22

// adapter presents a Porcupine model to histcheck's engines as a
// model.Model[int32] over one partition's operations: states are
// interned, so that states Equal (or, without Equal, ==) share an id and
// the search's memo compares integers; operations with the same input and
// output share an id, so that the search treats them as interchangeable
// (the model's step sees nothing else); and each step the model was asked
// is remembered, as the search asks the same one many times. It is used
// by one goroutine at a time.
type adapter struct {
	m   *filled
	ctx context.Context
	// ops are the partition's operations; a history operation's Value is
	// its index here.
	ops []Operation
	// ins and outs are the inputs and outputs of each operation id;
	// opOf gives each operation's id.
	ins, outs []interface{}
	opOf      []int32
	st        stateTable
	// steps remembers what each operation did in each state it was
	// stepped in.
	steps stepTable
	// cancelled is set when the context ended during a step: the model's
	// answers may then be wrong (a cancelled step says false), so a
	// refutation found since proves nothing.
	cancelled bool
	// current is the operation being stepped, named if the model panics.
	current int32
}

// newAdapter interns the inputs and outputs of ops.
func newAdapter(ctx context.Context, m *filled, ops []Operation) *adapter {
	a := &adapter{m: m, ctx: ctx, ops: ops, opOf: make([]int32, len(ops)), current: -1}
	a.st.init(m)
	ids := make(map[[2]interface{}]int32, len(ops))
	for i := range ops {
		key := [2]interface{}{ops[i].Input, ops[i].Output}
		id, ok := lookup(ids, key)
		if !ok {
			id = int32(len(a.ins))
			a.ins = append(a.ins, ops[i].Input)
			a.outs = append(a.outs, ops[i].Output)
			insert(ids, key, id)
		}
		a.opOf[i] = id
	}
	return a
}

// lookup and insert use a map whose keys may hold values Go cannot hash
// (slices, maps): such a key is never found, and never stored.
func lookup[K comparable](m map[K]int32, k K) (id int32, ok bool) {
	defer func() {
		if recover() != nil {
			id, ok = 0, false
		}
	}()
	id, ok = m[k]
	return id, ok
}

func insert[K comparable](m map[K]int32, k K, id int32) {
	defer func() { _ = recover() }()
	m[k] = id
}

func (a *adapter) Info() model.Info {
	return model.Info{Name: "porcupine", Doc: "a Porcupine model: its states and steps are the model's own"}
}

// Compile maps a history operation, whose value is its index in the
// partition, to its operation id.
func (a *adapter) Compile(op *history.Op, _ *model.Table) (model.Op, error) {
	i, ok := op.Value.Int()
	if !ok || i < 0 || i >= int64(len(a.ops)) {
		return model.Op{}, fmt.Errorf("operation %s is not one of the partition's", op.Value)
	}
	return model.Op{A: int64(a.opOf[i])}, nil
}

func (a *adapter) Init(*model.Table) int32 { return a.st.intern(a.m.Init()) }

func (a *adapter) Step(s int32, op *model.Op) (int32, bool) {
	o := int32(op.A)
	switch v := a.steps.get(s, o); {
	case v > 0:
		return v - 1, true
	case v < 0:
		return s, false
	}
	a.current = o
	ok, next := a.m.step(a.ctx, a.st.vals[s], a.ins[o], a.outs[o])
	a.current = -1
	if a.ctx.Err() != nil {
		a.cancelled = true
		return s, false
	}
	ns := s
	if ok {
		ns = a.st.intern(next)
	}
	v := int32(-1)
	if ok {
		v = ns + 1
	}
	a.steps.put(s, o, v)
	return ns, ok
}

// stepTable maps (state, operation) to what the operation did there: the
// next state + 1, or -1 when it was illegal; 0 means not asked. It is an
// open-addressing table of packed keys, as a Go map costs several times
// more per look-up on the search's hot path.
type stepTable struct {
	keys []uint64 // (state+1) << 32 | operation; 0 is an empty slot
	vals []int32
	n    int
	// hits and misses count look-ups; off is set when remembering did not
	// pay (a model whose every step leads to a new state, as appends do),
	// and then the table is dropped.
	hits, misses int
	off          bool
}

func stepKey(s, o int32) uint64 { return uint64(uint32(s)+1)<<32 | uint64(uint32(o)) }

func (t *stepTable) slot(k uint64) uint64 { return (k * 0x9e3779b97f4a7c15) >> 32 }

// judgeEvery is how many misses pass between looks at whether
// remembering pays: it must answer at least one look-up in three (at one
// in four, the key-value histories of appends ran 10-15% slower).
const judgeEvery = 1 << 12

func (t *stepTable) get(s, o int32) int32 {
	if t.n == 0 {
		return 0
	}
	k, mask := stepKey(s, o), uint64(len(t.keys)-1)
	for i := t.slot(k) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			t.hits++
			return t.vals[i]
		case 0:
			t.miss()
			return 0
		}
	}
}

func (t *stepTable) miss() {
	t.misses++
	if t.misses%judgeEvery == 0 && 2*t.hits < t.misses {
		t.off, t.keys, t.vals, t.n = true, nil, nil, 0
	}
}

func (t *stepTable) put(s, o, v int32) {
	if t.n >= maxCached || t.off {
		return
	}
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	k, mask := stepKey(s, o), uint64(len(t.keys)-1)
	i := t.slot(k) & mask
	for t.keys[i] != 0 && t.keys[i] != k {
		i = (i + 1) & mask
	}
	if t.keys[i] == 0 {
		t.n++
	}
	t.keys[i], t.vals[i] = k, v
}

func (t *stepTable) grow() {
	old, oldVals := t.keys, t.vals
	size := max(64, 2*len(old))
	t.keys, t.vals, t.n = make([]uint64, size), make([]int32, size), 0
	for i, k := range old {
		if k != 0 {
			t.put(int32(k>>32)-1, int32(uint32(k)), oldVals[i])
		}
	}
}

// observing is an adapter that tells the search which operations never
// change the state, from the table of every reachable state (see
// explore).
type observing struct {
	*adapter
	classes []regOp
}

func (o *observing) Observes(op *model.Op) bool { return o.classes[op.A].observes }

func (a *adapter) Describe(s int32, _ *model.Table) string {
	return a.m.DescribeState(a.st.vals[s])
}

// stateTable interns a model's states: states the model calls equal get
// one id. With Hash, equal states are looked for among those of the same
// hash; with the default ==, in a Go map (a state Go cannot hash gets an
// id of its own, as == could not compare it); with Equal alone, among
// every state.
type stateTable struct {
	m    *filled
	vals []interface{}
	// With Hash: an open-addressing table of the states' ids + 1 (0:
	// empty), placed by hash, and each state's hash.
	slots  []int32
	hashes []uint64
	byVal  map[interface{}]int32
}

func (t *stateTable) init(m *filled) {
	t.m = m
	switch {
	case m.Hash != nil:
		t.slots = make([]int32, 64)
	case m.defaultEqual:
		t.byVal = map[interface{}]int32{}
	}
}

func (t *stateTable) intern(s interface{}) int32 {
	switch {
	case t.slots != nil:
		h := t.m.Hash(s)
		mask := uint64(len(t.slots) - 1)
		i := (h * 0x9e3779b97f4a7c15 >> 32) & mask
		for ; t.slots[i] != 0; i = (i + 1) & mask {
			if id := t.slots[i] - 1; t.hashes[id] == h && t.m.Equal(t.vals[id], s) {
				return id
			}
		}
		id := t.add(s)
		t.hashes = append(t.hashes, h)
		t.slots[i] = id + 1
		if 2*len(t.vals) > len(t.slots) {
			t.rehash()
		}
		return id
	case t.byVal != nil:
		if id, ok := lookup(t.byVal, s); ok {
			return id
		}
		id := t.add(s)
		insert(t.byVal, s, id)
		return id
	}
	for id, v := range t.vals {
		if t.m.Equal(v, s) {
			return int32(id)
		}
	}
	return t.add(s)
}

// rehash doubles the hashed states' table.
func (t *stateTable) rehash() {
	t.slots = make([]int32, 2*len(t.slots))
	mask := uint64(len(t.slots) - 1)
	for id, h := range t.hashes {
		i := (h * 0x9e3779b97f4a7c15 >> 32) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = int32(id) + 1
	}
}

func (t *stateTable) add(s interface{}) int32 {
	t.vals = append(t.vals, s)
	return int32(len(t.vals) - 1)
}
