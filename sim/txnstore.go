package sim

import (
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/histcheck/histcheck/history"
)

// The isolation levels the simulated transactional store runs at.
const (
	// IsoSerializable runs each transaction at one instant inside its
	// interval, in real-time order: strict serializability.
	IsoSerializable = "serializable"
	// IsoSnapshot reads from a snapshot taken when the transaction
	// begins and commits unless a transaction that committed meanwhile
	// wrote one of its keys (first committer wins): write skew remains.
	IsoSnapshot = "snapshot-isolation"
	// IsoReadCommitted reads the latest committed state at each read and
	// applies writes at commit; a write locks its key until the end, and
	// a transaction that finds the key locked aborts (no waiting). Reads
	// do not repeat, and an update made from a stale read is lost.
	IsoReadCommitted = "read-committed"
	// IsoBroken applies writes as they happen, for every transaction to
	// see, and removes them again when the transaction aborts: dirty and
	// aborted reads, and writes interleaved across keys.
	IsoBroken = "broken"
)

// Isolations are the levels TxnOptions.Isolation accepts, strongest first,
// then the stores that break one level on purpose (BrokenStores).
var Isolations = append([]string{IsoSerializable, IsoSnapshot, IsoReadCommitted, IsoBroken}, BrokenStores...)

// TxnOptions configure Txns: a workload like Jepsen's list-append and
// rw-register ones on a simulated store.
type TxnOptions struct {
	Txns    int // transactions in all
	Clients int // clients running concurrently, one transaction at a time
	// Keys is how many keys are in use at a time; a key retires after
	// WritesPerKey appends (or writes) and a fresh one takes its place
	// (WritesPerKey 0: keys never retire).
	Keys         int
	WritesPerKey int
	// MaxLength bounds a transaction's micro-operations (at least one).
	MaxLength int
	// Ops, when not 0, is every transaction's number of micro-operations
	// instead of 1 to MaxLength at random.
	Ops int
	// ReadRatio is the probability that a micro-operation reads; 0 takes
	// one half.
	ReadRatio float64
	// Zipf, when not 0, draws the keys in use from a Zipf distribution
	// with this exponent (the first keys hot) instead of uniformly.
	Zipf float64
	// Registers runs rw-register transactions (writes and reads of single
	// values) instead of list-append ones.
	Registers bool
	// TPCC runs a TPC-C-like mix of rw-register transactions on
	// Warehouses warehouses (new order, payment, order status, delivery,
	// stock level, as reads and writes of their rows) instead of random
	// ones; Keys, WritesPerKey, MaxLength, Ops, ReadRatio and Zipf do not
	// apply.
	TPCC       bool
	Warehouses int
	// Anomalies is how many anomalies a store of BrokenStores adds.
	Anomalies int
	Isolation string
	// FailRate is the probability that a transaction aborts (:fail);
	// CrashRate that its outcome is unknown (:info), in which case it
	// takes effect or not, at random, and its client goes on as a new
	// process, as Jepsen's do.
	FailRate, CrashRate float64
	Seed                uint32
}

func (o TxnOptions) validate() error {
	switch {
	case o.Txns < 0 || o.Clients < 1 || o.Keys < 1 || o.WritesPerKey < 0 || o.MaxLength < 1 || o.Ops < 0 || o.Anomalies < 0:
		return fmt.Errorf("transactions: want txns, writes per key, ops and anomalies ≥ 0 and clients, keys and length ≥ 1")
	case o.ReadRatio < 0 || o.ReadRatio > 1 || o.Zipf < 0:
		return fmt.Errorf("transactions: want a read ratio in [0, 1] and a Zipf exponent ≥ 0")
	case o.TPCC && (o.Warehouses < 1 || !o.Registers):
		return fmt.Errorf("transactions: the TPC-C-like mix needs at least one warehouse and rw-register transactions")
	case o.FailRate < 0 || o.FailRate >= 1 || o.CrashRate < 0 || o.CrashRate >= 1:
		return fmt.Errorf("transactions: rates are probabilities in [0, 1)")
	case !slices.Contains(Isolations, o.Isolation):
		return fmt.Errorf("transactions: unknown isolation %q", o.Isolation)
	}
	return nil
}

// stxn is one transaction while the store runs it.
type stxn struct {
	client  int32
	process int32 // the client's process name, which changes after a crash
	length  int32
	step    int64 // time between its micro-operations
	start   int64
	ret     int64
	snap    int64    // the commit count it reads at (snapshot isolation)
	kind    tpccKind // the TPC-C-like transaction, in that mix
	status  history.Type
	effect  bool // whether it took effect (a crashed one may have)
	doomed  bool // it found a key locked, so it aborts (read committed)
	mops    []smop
}

// smop is one micro-operation: a read (with its result once run) or a
// write of value to key.
type smop struct {
	key   int32
	write bool
	value int64
	read  []int64
}

func (t *stxn) commitAt() int64 { return t.start + int64(t.length+1)*t.step }

// skey is one key's versions: the values written to it, in order, with the
// commit count each became visible at (the dirty ones of the broken store
// carry the writer's index, negated, until it commits).
type skey struct {
	vals []int64
	seqs []int64
	last int64 // commit count of its last committed write
}

// store is the simulated database.
type store struct {
	o      TxnOptions
	rng    *Mulberry32
	txns   []stxn
	keys   map[int32]*skey
	seq    int64 // commits so far
	active []int32
	writes map[int32]int // writes handed out per active key
	next   int32         // the next fresh key
	values map[int32]int64
	locks  map[int32]int32 // key -> the transaction holding its write lock
	iso    string          // how the store runs (a broken store runs serializable)
	zipf   *zipfKeys       // the key distribution, nil for uniform
}

// Txns simulates o.Txns transactions of o.Clients clients on a store
// running at o.Isolation and returns their history, deterministic for
// o.Seed. Appended and written values are unique per key.
func Txns(o TxnOptions) (*history.History, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	s := &store{o: o, rng: NewMulberry32(o.Seed), keys: map[int32]*skey{}, writes: map[int32]int{}, values: map[int32]int64{},
		locks: map[int32]int32{}}
	s.iso = o.Isolation
	if slices.Contains(BrokenStores, o.Isolation) {
		s.iso = IsoSerializable
	}
	switch {
	case o.TPCC:
		s.next = tpccKeys{warehouses: int32(o.Warehouses)}.count()
	default:
		for i := 0; i < o.Keys; i++ {
			s.active = append(s.active, s.next)
			s.next++
		}
		if o.Zipf > 0 {
			s.zipf = newZipfKeys(o.Keys, o.Zipf)
		}
	}
	s.schedule()
	s.run()
	return s.history()
}

// schedule lays out each client's transactions in time: lengths, starts,
// steps, returns and outcomes, which do not depend on the data.
func (s *store) schedule() {
	s.txns = make([]stxn, s.o.Txns)
	clock := make([]int64, s.o.Clients)
	procs := make([]int32, s.o.Clients)
	for c := range procs {
		procs[c] = int32(c)
	}
	for i := range s.txns {
		c := i % s.o.Clients
		t := &s.txns[i]
		t.client, t.process = int32(c), procs[c]
		switch {
		case s.o.TPCC:
			t.kind = tpccPick(s.rng)
			t.length = tpccLengths[t.kind]
		case s.o.Ops > 0:
			t.length = int32(s.o.Ops)
		default:
			t.length = int32(1 + s.rng.Intn(s.o.MaxLength))
		}
		t.step = int64(1 + s.rng.Intn(3))
		t.start = clock[c] + int64(s.rng.Intn(4))
		t.ret = t.commitAt() + int64(s.rng.Intn(3))
		clock[c] = t.ret + 1
		t.status, t.effect = history.OK, true
		switch r := s.rng.Float64(); {
		case r < s.o.CrashRate:
			t.status, t.effect = history.Info, s.rng.Intn(2) == 0
			procs[c] += int32(s.o.Clients)
		case r < s.o.CrashRate+s.o.FailRate:
			t.status, t.effect = history.Fail, false
		}
	}
}

// sevent is one step of the simulation: a transaction begins (step -1),
// runs micro-operation step, or ends (step = its length).
type sevent struct {
	at   int64
	txn  int32
	step int32
}

func (s *store) run() {
	evs := make([]sevent, 0, 3*len(s.txns))
	for i := range s.txns {
		t := &s.txns[i]
		evs = append(evs, sevent{t.start, int32(i), -1})
		for j := int32(0); j < t.length; j++ {
			evs = append(evs, sevent{t.start + int64(j+1)*t.step, int32(i), j})
		}
		evs = append(evs, sevent{t.commitAt(), int32(i), t.length})
	}
	sort.Slice(evs, func(a, b int) bool {
		if evs[a].at != evs[b].at {
			return evs[a].at < evs[b].at
		}
		return evs[a].txn < evs[b].txn
	})
	for _, e := range evs {
		t := &s.txns[e.txn]
		switch {
		case e.step < 0:
			s.begin(t)
		case e.step < t.length:
			if s.iso == IsoReadCommitted || s.iso == IsoBroken {
				s.exec(e.txn, int(e.step), s.seq)
			}
		default:
			s.end(e.txn)
		}
	}
}

// begin chooses the transaction's micro-operations among the keys in use
// and takes its snapshot.
func (s *store) begin(t *stxn) {
	t.snap = s.seq
	if s.o.TPCC {
		s.tpccMops(t)
		return
	}
	t.mops = make([]smop, t.length)
	for j := range t.mops {
		slot := s.pickSlot()
		k := s.active[slot]
		m := &t.mops[j]
		m.key = k
		if s.reads() {
			continue
		}
		m.write = true
		s.values[k]++
		m.value = s.values[k]
		if s.writes[k]++; s.o.WritesPerKey > 0 && s.writes[k] >= s.o.WritesPerKey {
			delete(s.writes, k)
			delete(s.values, k)
			s.active[slot] = s.next
			s.next++
		}
	}
}

func (s *store) key(k int32) *skey {
	ks, ok := s.keys[k]
	if !ok {
		ks = &skey{}
		s.keys[k] = ks
	}
	return ks
}

// exec runs micro-operation j of transaction ti, reading the versions
// committed by commit count snap and the transaction's own earlier
// writes; the broken store reads every version, committed or not, and
// writes in place.
func (s *store) exec(ti int32, j int, snap int64) {
	t := &s.txns[ti]
	m := &t.mops[j]
	ks := s.key(m.key)
	if m.write {
		if s.iso == IsoReadCommitted {
			s.lock(ti, m.key)
		}
		if s.iso == IsoBroken {
			ks.vals = append(ks.vals, m.value)
			ks.seqs = append(ks.seqs, -int64(ti)-1)
		}
		return
	}
	n := len(ks.vals)
	if s.iso != IsoBroken {
		n = sort.Search(len(ks.seqs), func(i int) bool { return ks.seqs[i] > snap })
	}
	visible := ks.vals[:n]
	if s.o.Registers && n > 0 {
		// A register read returns the last version alone: copying them
		// all grew with the square of a key's writes (22 GB for 1,000,000
		// transactions on 1,000 keys that never retire).
		visible = visible[n-1:]
	}
	read := append([]int64(nil), visible...)
	if s.iso != IsoBroken {
		for _, w := range t.mops[:j] {
			if w.write && w.key == m.key {
				read = append(read, w.value)
			}
		}
	}
	m.read = read
}

// end commits or aborts the transaction.
func (s *store) end(ti int32) {
	t := &s.txns[ti]
	switch s.iso {
	case IsoSerializable:
		s.execAll(ti, s.seq)
	case IsoSnapshot:
		s.execAll(ti, t.snap)
		if s.conflicts(t) {
			t.abort()
		}
	case IsoReadCommitted:
		s.unlock(ti)
		if t.doomed {
			t.abort()
		}
	}
	if s.iso == IsoBroken {
		s.settleDirty(ti)
		return
	}
	if !t.effect {
		return
	}
	s.seq++
	for _, m := range t.mops {
		if m.write {
			ks := s.key(m.key)
			ks.vals, ks.seqs, ks.last = append(ks.vals, m.value), append(ks.seqs, s.seq), s.seq
		}
	}
}

// abort undoes a transaction the store refused to commit: one reported
// committed fails instead; a crashed one stays unknown to its client.
func (t *stxn) abort() {
	t.effect = false
	if t.status == history.OK {
		t.status = history.Fail
	}
}

// lock takes key k's write lock for transaction ti, or dooms ti when
// another transaction holds it.
func (s *store) lock(ti, k int32) {
	if h, ok := s.locks[k]; ok && h != ti {
		s.txns[ti].doomed = true
		return
	}
	s.locks[k] = ti
}

func (s *store) unlock(ti int32) {
	for _, m := range s.txns[ti].mops {
		if m.write && s.locks[m.key] == ti {
			delete(s.locks, m.key)
		}
	}
}

func (s *store) execAll(ti int32, snap int64) {
	for j := range s.txns[ti].mops {
		s.exec(ti, j, snap)
	}
}

// conflicts reports whether a transaction that committed after t's
// snapshot wrote a key t writes: first committer wins.
func (s *store) conflicts(t *stxn) bool {
	for _, m := range t.mops {
		if m.write && s.key(m.key).last > t.snap {
			return true
		}
	}
	return false
}

// settleDirty removes an aborted transaction's writes from the broken
// store, or marks a committed one's as committed.
func (s *store) settleDirty(ti int32) {
	t := &s.txns[ti]
	mark := -int64(ti) - 1
	if t.effect {
		s.seq++
	}
	for _, m := range t.mops {
		if !m.write {
			continue
		}
		ks := s.key(m.key)
		for i := 0; i < len(ks.seqs); i++ {
			if ks.seqs[i] != mark {
				continue
			}
			if t.effect {
				ks.seqs[i], ks.last = s.seq, s.seq
				continue
			}
			ks.vals = append(ks.vals[:i], ks.vals[i+1:]...)
			ks.seqs = append(ks.seqs[:i], ks.seqs[i+1:]...)
			i--
		}
	}
}

// history writes the transactions as operations: reads carry their
// results in committed transactions only.
func (s *store) history() (*history.History, error) {
	ops := make([]history.Op, len(s.txns))
	procs := map[int32]string{}
	ints := map[int64]history.Value{}
	intValue := func(n int64) history.Value {
		v, ok := ints[n]
		if !ok {
			v = history.IntValue(n)
			ints[n] = v
		}
		return v
	}
	for i := range s.txns {
		t := &s.txns[i]
		name, ok := procs[t.process]
		if !ok {
			name = strconv.Itoa(int(t.process))
			procs[t.process] = name
		}
		ops[i] = history.Op{Client: name, F: "txn", Value: s.value(t, intValue), Call: t.start, Return: t.ret, Status: t.status}
		if t.status == history.Info {
			ops[i].Return = history.Infinity
		}
	}
	ops = append(ops, s.anomalyOps(intValue)...)
	meta := metaFor("list-append", history.Value{})
	if s.o.Registers {
		meta = metaFor("rw-register", history.Value{})
	}
	return build("transactions", ops, meta)
}

var (
	mopAppend = history.StringValue("append")
	mopRead   = history.StringValue("r")
	mopWrite  = history.StringValue("w")
)

// value writes a transaction's micro-operations; reads are nil unless it
// committed.
func (s *store) value(t *stxn, intValue func(int64) history.Value) history.Value {
	out := make([]history.Value, len(t.mops))
	for j, m := range t.mops {
		k := intValue(int64(m.key))
		switch {
		case m.write && s.o.Registers:
			out[j] = history.ListValue(mopWrite, k, intValue(m.value))
		case m.write:
			out[j] = history.ListValue(mopAppend, k, intValue(m.value))
		default:
			out[j] = history.ListValue(mopRead, k, s.readValue(t, m, intValue))
		}
	}
	return history.ListValue(out...)
}

func (s *store) readValue(t *stxn, m smop, intValue func(int64) history.Value) history.Value {
	switch {
	case t.status != history.OK:
		return history.NilValue
	case s.o.Registers && len(m.read) == 0:
		return history.NilValue
	case s.o.Registers:
		return intValue(m.read[len(m.read)-1])
	}
	vs := make([]history.Value, len(m.read))
	for i, x := range m.read {
		vs[i] = intValue(x)
	}
	return history.ListValue(vs...)
}
