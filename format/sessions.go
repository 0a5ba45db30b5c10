package format

import (
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// The research checkers' formats (Plume's text, AWDIT's tests, dbcop's)
// record sessions of read/write transactions and nothing of time. They
// are read into rw-register transactions: each transaction one operation
// whose value is its micro-operations, [[w k v] [r k v] …], its session
// the operation's process.

// rawMop is one read or write as read from a session format, in 24
// bytes, as histories hold tens of millions: its key (an integer, or an
// index into sessionBuilder.strs when mopStrKey is set) and value (an
// integer; mopNil marks a read of the initial state).
type rawMop struct {
	key, val int64
	flags    uint8
}

// The flags of a rawMop.
const (
	mopWrite uint8 = 1 << iota
	mopNil
	mopStrKey
)

func (m rawMop) write() bool { return m.flags&mopWrite != 0 }

// rawTxn is one transaction as read: its session (an index into
// sessionBuilder.names), status and micro-operations (mops[from:to]).
type rawTxn struct {
	session  int32
	status   history.Type
	from, to int32
	line     int
	id       int64 // the id the file gives it, where it gives one
}

// sessionBuilder collects the transactions of a session format and makes
// the history.
type sessionBuilder struct {
	names []string // session names as written, by index
	txns  []rawTxn
	mops  []rawMop
	// zeroIsInit says that a read of 0 is a read of the initial state
	// (nil), as in Plume's text format and dbcop, unless some transaction
	// writes 0 to that key.
	zeroIsInit bool
	strs       []string // string keys, by index
	strIndex   map[string]int64
	parts      int // parts the values are built in; 0: one per core for long histories
}

// strKey returns the index of a string key.
func (b *sessionBuilder) strKey(k string) int64 {
	if i, ok := b.strIndex[k]; ok {
		return i
	}
	if b.strIndex == nil {
		b.strIndex = map[string]int64{}
	}
	i := int64(len(b.strs))
	b.strIndex[k] = i
	b.strs = append(b.strs, k)
	return i
}

// session returns the index of the session named name, adding it.
func (b *sessionBuilder) session(name string, index map[string]int32) int32 {
	if s, ok := index[name]; ok {
		return s
	}
	s := int32(len(b.names))
	index[name] = s
	b.names = append(b.names, name)
	return s
}

var (
	mopR = history.StringValue("r")
	mopW = history.StringValue("w")
	zero = history.IntValue(0)
)

// build makes the history: the k-th transaction of each session is
// called at time k and returns at k+1, so that a session runs its
// transactions one after another. The formats record no real time; this
// layout is the one with fewest real-time edges between sessions that
// keeps each session sequential (see docs/format.md).
func (b *sessionBuilder) build() (*history.History, error) {
	if b.zeroIsInit {
		b.mapZeroReads()
	}
	ops := make([]history.Op, len(b.txns))
	next := make([]int64, len(b.names))
	// The operations are laid out by call time (k) as FromOps wants
	// them, so that its sort finds them sorted: first the place of each
	// transaction in its session, then a counting sort by it.
	place := make([]int32, len(b.txns))
	most := int64(0)
	for i := range b.txns {
		s := b.txns[i].session
		place[i] = int32(next[s])
		next[s]++
		most = max(most, next[s])
	}
	start := make([]int32, most+1)
	for _, k := range place {
		start[k+1]++
	}
	for k := 1; k < len(start); k++ {
		start[k] += start[k-1]
	}
	// Each transaction's place among the operations, then their values,
	// built in parts, one per core, for long histories.
	// Every session's first transaction is called at 0; FromOps numbers
	// processes in call order, ties by position, so in the order of those
	// transactions.
	procOf := make(map[int32]int, len(b.names))
	for i, k := range place {
		if k == 0 {
			procOf[b.txns[i].session] = len(procOf)
		}
	}
	at := make([]int32, len(place))
	for i, k := range place {
		at[i] = start[k]
		start[k]++
	}
	parts := 1
	if len(b.txns) >= 1<<14 {
		parts = min(runtime.GOMAXPROCS(0), 4)
	}
	if b.parts > 0 {
		parts = b.parts
	}
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*len(b.txns)/parts, (p+1)*len(b.txns)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.fill(ops, at, place, procOf, lo, hi)
		}()
	}
	wg.Wait()
	// The operations are made as FromOps would make them (sorted by call,
	// processes numbered by first call, their times recorded), without
	// its two copies of every operation: the layout is valid by
	// construction, which Validate confirms.
	h := &history.History{Ops: ops, Processes: len(procOf), Clients: len(procOf), Timed: true, SessionsOnly: true}
	if err := h.Validate(); err != nil {
		return nil, fmt.Errorf("laying out the sessions: %w", err)
	}
	h.Meta = map[string]history.Value{"model": history.StringValue("rw-register")}
	h.Warnings = append(h.Warnings, NoRealTime)
	return h, nil
}

// NoRealTime is the warning every history read from a session format
// carries: the verdicts of the real-time levels rest on a layout, not on
// the file.
const NoRealTime = "the format records sessions but no real time: each session's k-th transaction is laid out at time k, " +
	"so the real-time levels (strict-serializable and the other strict-* ones) would judge an order " +
	"the file does not record; the default level is serializable, and weaker levels may be asked for"

// fill builds the operations of transactions lo to hi into ops[at[i]],
// the k-th of its session (k = place[i]) called at k and returning at k+1.
func (b *sessionBuilder) fill(ops []history.Op, at, place []int32, procOf map[int32]int, lo, hi int) {
	var lb history.ListBuilder
	for i := lo; i < hi; i++ {
		t := &b.txns[i]
		for _, m := range b.mops[t.from:t.to] {
			lb.Open()
			if m.write() {
				lb.Add(mopW)
			} else {
				lb.Add(mopR)
			}
			if m.flags&mopStrKey != 0 {
				lb.Add(history.StringValue(b.strs[m.key]))
			} else {
				lb.AddInt(m.key)
			}
			if m.flags&mopNil != 0 {
				lb.Add(history.NilValue)
			} else {
				lb.AddInt(m.val)
			}
			lb.Close()
		}
		k := int64(place[i])
		v := lb.List()
		lb.Reset()
		ops[at[i]] = history.Op{Index: int64(i), Process: procOf[t.session], Client: b.names[t.session], F: txn.F, Value: v,
			Call: k, Return: k + 1, Times: history.Span{Call: k, Return: k + 1}, Status: t.status, Line: t.line}
	}
}

// mapZeroReads makes reads of 0 reads of the initial state, on the keys
// no transaction writes 0 to.
func (b *sessionBuilder) mapZeroReads() {
	type key struct {
		k   int64
		str bool
	}
	var written map[key]bool
	for _, m := range b.mops {
		if m.write() && m.val == 0 {
			if written == nil {
				written = map[key]bool{}
			}
			written[key{m.key, m.flags&mopStrKey != 0}] = true
		}
	}
	for i := range b.mops {
		m := &b.mops[i]
		if !m.write() && m.flags&mopNil == 0 && m.val == 0 && !written[key{m.key, m.flags&mopStrKey != 0}] {
			m.flags |= mopNil
		}
	}
}

// parseUint reads the decimal digits of b as a non-negative int64.
func parseUint(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		if len(b) > 18 {
			n, err := strconv.ParseInt(string(b), 10, 64)
			return n, err == nil && n >= 0 && b[0] != '+'
		}
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// wsession is one session of a history as the session formats write it.
type wsession struct {
	name string
	txns []wtxn
}

// wtxn is one transaction to write.
type wtxn struct {
	op     int // its operation in the history
	status history.Type
	mops   []txn.Mop
}

// sessionsOf groups h's transactions by client, in the order each client
// ran them, for the formats that record sessions. It refuses what those
// formats cannot say: an operation that is not a read/write transaction,
// a transaction of unknown outcome, an append.
func sessionsOf(h *history.History) ([]wsession, error) {
	var out []wsession
	index := map[string]int{}
	for i := range h.Ops {
		o := &h.Ops[i]
		mops, err := txn.Parse(o.Value)
		if err != nil {
			return nil, fmt.Errorf("operation %s: %v; these formats hold read/write transactions only", o.Label(), err)
		}
		for _, m := range mops {
			if m.Kind == txn.Append {
				return nil, fmt.Errorf("operation %s appends (%s); these formats hold read/write transactions only", o.Label(), m)
			}
		}
		if o.Status == history.Info {
			return nil, fmt.Errorf("operation %s has an unknown outcome (info); these formats record only committed and aborted transactions", o.Label())
		}
		s, ok := index[o.Client]
		if !ok {
			s = len(out)
			index[o.Client] = s
			out = append(out, wsession{name: o.Client})
		}
		out[s].txns = append(out[s].txns, wtxn{op: i, status: o.Status, mops: mops})
	}
	return out, nil
}

// uintText writes a key or value that must be a non-negative integer, as
// these formats' keys and values are; what names the op and role for
// messages.
func uintText(v history.Value, o *history.Op, role string) (string, error) {
	if n, ok := v.Int(); ok && n >= 0 {
		return v.Text(), nil
	}
	return "", fmt.Errorf("operation %s: %s %s is not a non-negative integer, which this format needs", o.Label(), role, history.Quote(v.String()))
}

// zeroWritten lists the keys some transaction writes 0 to: on them a read
// of 0 is not a read of the initial state, so a read of nil cannot be
// written as 0.
func zeroWritten(ss []wsession) map[history.Value]bool {
	out := map[history.Value]bool{}
	for _, s := range ss {
		for _, t := range s.txns {
			for _, m := range t.mops {
				if m.Kind == txn.Write && m.Value == zero {
					out[m.Key] = true
				}
			}
		}
	}
	return out
}

// sizeHint is the input's size when known (a regular file), else 0.
func sizeHint(r io.Reader) int64 {
	if b, ok := r.(*budgeted); ok && b.size > 0 {
		return min(b.size, 1<<40)
	}
	return 0
}

// sessionCounts are the keys, transactions and micro-operations of ss, as
// dbcop's headers give them.
func sessionCounts(ss []wsession) (keys, txns, events int) {
	seen := map[history.Value]bool{}
	for _, s := range ss {
		for _, t := range s.txns {
			txns++
			events += len(t.mops)
			for _, m := range t.mops {
				seen[m.Key] = true
			}
		}
	}
	return len(seen), txns, events
}
