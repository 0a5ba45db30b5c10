package elle_test

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/elle"
	"github.com/histcheck/histcheck/history"
)

// This file holds an independent brute-force checker of list-append and
// rw-register histories, written from the definitions (serial executions
// for serializability, a commit order with snapshots and
// first-committer-wins for snapshot isolation) and knowing nothing of
// dependency graphs, and a generator of small random histories from a
// simulated store that reads stale snapshots, leaks failed writes, forgets
// a transaction's own writes, and crashes transactions before or after
// they commit. A register is kept as the list of its versions, so that
// both workloads share the state and the searches: a write appends a
// version, and a register read sees the last one.

// bop is a micro-operation as the brute force sees it.
type bop struct {
	read bool
	// reg marks a register micro-operation: a write ([w k val]) or a
	// read of val (0: nil).
	reg  bool
	key  int
	val  int   // appended element, written value, or register read
	list []int // what a list read returned
}

// btxn is a transaction as the brute force sees it.
type btxn struct {
	status       history.Type
	call, ret    int64
	ops          []bop
	writes       map[int]bool
	process      string
	invokeAt, at int
}

type state [][]int

func (s state) with(k, v int) state {
	out := make(state, len(s))
	copy(out, s)
	out[k] = append(append([]int(nil), s[k]...), v)
	return out
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// run executes t on s: the state after it, and whether its reads (when
// known) are what it would have read.
func (t *btxn) run(s state, check bool) (state, bool) {
	for _, o := range t.ops {
		if o.read {
			if check && !o.readsFrom(s) {
				return nil, false
			}
			continue
		}
		s = s.with(o.key, o.val)
	}
	return s, true
}

// readsFrom reports whether read o returns what s holds.
func (o *bop) readsFrom(s state) bool {
	if !o.reg {
		return equalInts(s[o.key], o.list)
	}
	last := 0
	if vs := s[o.key]; len(vs) > 0 {
		last = vs[len(vs)-1]
	}
	return last == o.val
}

// bruteSerializable reports whether some serial order of the committed
// transactions (the ok ones and any of the crashed ones) explains every
// committed read; strict also asks that the order keep real time.
func bruteSerializable(ts []btxn, keys int, strict bool) bool {
	return eachCommitted(ts, func(in []int) bool {
		placed := make([]bool, len(ts))
		var dfs func(s state, n int) bool
		dfs = func(s state, n int) bool {
			if n == len(in) {
				return true
			}
			for _, i := range in {
				if placed[i] || (strict && !predecessorsPlaced(ts, in, placed, i)) {
					continue
				}
				next, ok := ts[i].run(s, ts[i].status == history.OK)
				if !ok {
					continue
				}
				placed[i] = true
				if dfs(next, n+1) {
					return true
				}
				placed[i] = false
			}
			return false
		}
		return dfs(make(state, keys), 0)
	})
}

func predecessorsPlaced(ts []btxn, in []int, placed []bool, i int) bool {
	for _, j := range in {
		if !placed[j] && ts[j].status == history.OK && ts[j].ret < ts[i].call {
			return false
		}
	}
	return true
}

// eachCommitted calls try with each possible set of committed
// transactions: every ok one, and any subset of the crashed ones.
func eachCommitted(ts []btxn, try func(in []int) bool) bool {
	var ok, info []int
	for i := range ts {
		switch ts[i].status {
		case history.OK:
			ok = append(ok, i)
		case history.Info:
			info = append(info, i)
		}
	}
	for mask := 0; mask < 1<<len(info); mask++ {
		in := append([]int(nil), ok...)
		for b, i := range info {
			if mask&(1<<b) != 0 {
				in = append(in, i)
			}
		}
		if try(in) {
			return true
		}
	}
	return false
}

// bruteSI reports whether the committed transactions have a commit order
// and, for each, a snapshot (a prefix of the commit order before it) such
// that its reads see the snapshot and its own appends, and no two
// transactions that write a common key are concurrent (neither in the
// other's snapshot).
func bruteSI(ts []btxn, keys int) bool {
	return eachCommitted(ts, func(in []int) bool {
		placed := make([]bool, len(ts))
		order := make([]int, 0, len(in))
		snaps := make([]int, 0, len(in))
		states := []state{make(state, keys)}
		var dfs func() bool
		dfs = func() bool {
			p := len(order)
			if p == len(in) {
				return true
			}
			for _, i := range in {
				if placed[i] {
					continue
				}
				for s := p; s >= 0; s-- {
					if conflicts(ts, order, i, s) {
						break // an earlier snapshot only adds concurrent transactions
					}
					if _, ok := ts[i].run(states[s], ts[i].status == history.OK); !ok {
						continue
					}
					next, _ := ts[i].run(states[p], false)
					placed[i], order, snaps, states = true, append(order, i), append(snaps, s), append(states, next)
					if dfs() {
						return true
					}
					placed[i], order, snaps, states = false, order[:p], snaps[:p], states[:p+1]
				}
			}
			return false
		}
		return dfs()
	})
}

// conflicts reports whether transaction i, committing after order with
// snapshot s, writes a key that one of order[s:] (committed after its
// snapshot) also writes.
func conflicts(ts []btxn, order []int, i, s int) bool {
	for _, j := range order[s:] {
		for k := range ts[i].writes {
			if ts[j].writes[k] {
				return true
			}
		}
	}
	return false
}

// generated is a random history and the brute force's view of it.
type generated struct {
	h    *history.History
	ts   []btxn
	keys int
}

// generate simulates a store of list-append transactions.
func generate(rng *rand.Rand) generated { return generateWith(rng, false) }

// generateWith simulates a store of list-append or (registers) rw-register
// transactions. List-append histories end with a read of every key; half
// the register histories do.
func generateWith(rng *rand.Rand, registers bool) generated {
	keys := 2 + rng.Intn(2)
	if registers {
		keys = 1 + rng.Intn(3)
	}
	procs := 2 + rng.Intn(2)
	n := 3 + rng.Intn(3)
	cur := make(state, keys)
	states := []state{cur}
	next := 0
	var ts []btxn
	for i := 0; i < n; i++ {
		snap := states[len(states)-1-rng.Intn(min(3, len(states)))]
		t := btxn{writes: map[int]bool{}, process: fmt.Sprint(rng.Intn(procs))}
		forget := rng.Intn(20) == 0 // reads miss the transaction's own writes
		view := snap
		for m := 1 + rng.Intn(3); m > 0; m-- {
			k := rng.Intn(keys)
			if rng.Intn(2) == 0 {
				if registers && rng.Intn(2) == 0 {
					t.ops = append(t.ops, readOf(view, k, registers)) // read-modify-write
				}
				next++
				t.ops = append(t.ops, bop{reg: registers, key: k, val: next})
				t.writes[k] = true
				if !forget {
					view = view.with(k, next)
				}
				continue
			}
			t.ops = append(t.ops, readOf(view, k, registers))
		}
		apply := true
		switch rng.Intn(10) {
		case 0:
			t.status, apply = history.Fail, rng.Intn(3) == 0 // a failed write sometimes leaks
		case 1:
			t.status, apply = history.Info, rng.Intn(2) == 0
		default:
			t.status = history.OK
		}
		if apply {
			cur, _ = t.run(cur, false)
			states = append(states, cur)
		}
		ts = append(ts, t)
	}
	if !registers || rng.Intn(2) == 0 {
		final := btxn{status: history.OK, process: "final", writes: map[int]bool{}}
		for k := 0; k < keys; k++ {
			final.ops = append(final.ops, readOf(cur, k, registers))
		}
		ts = append(ts, final)
	}
	return generated{h: events(rng, ts), ts: ts, keys: keys}
}

// readOf is a read of key k in state s: the whole list, or the register's
// last version (0: nil).
func readOf(s state, k int, registers bool) bop {
	if !registers {
		return bop{read: true, key: k, list: append([]int(nil), s[k]...)}
	}
	o := bop{read: true, reg: true, key: k}
	if vs := s[k]; len(vs) > 0 {
		o.val = vs[len(vs)-1]
	}
	return o
}

// events writes the transactions as events: each invoked in turn, its
// completion right away or later, a process's next transaction only after
// its last completed; the final read after everything.
func events(rng *rand.Rand, ts []btxn) *history.History {
	var evs []history.Event
	pending := map[string]int{}
	renamed := map[string]string{} // a process that crashed goes on under a new name
	complete := func(i int) {
		t := &ts[i]
		delete(pending, t.process)
		if t.status == history.Info {
			renamed[t.process] = t.process + "'"
			return
		}
		v := value(t, t.status == history.OK)
		t.at = len(evs)
		evs = append(evs, history.Event{Process: t.process, Type: t.status, F: "txn", Value: v})
	}
	for i := range ts {
		if i == len(ts)-1 {
			for _, p := range sortedPending(pending) {
				complete(pending[p])
			}
		}
		for {
			if j, ok := pending[ts[i].process]; ok {
				complete(j)
				continue
			}
			r, ok := renamed[ts[i].process]
			if !ok {
				break
			}
			ts[i].process = r
		}
		for _, p := range sortedPending(pending) { // in order, so that a seed gives one history
			if rng.Intn(3) == 0 && p != ts[i].process {
				complete(pending[p])
				break
			}
		}
		ts[i].invokeAt = len(evs)
		evs = append(evs, history.Event{Process: ts[i].process, Type: history.Invoke, F: "txn", Value: value(&ts[i], false)})
		pending[ts[i].process] = i
		if rng.Intn(2) == 0 {
			complete(i)
		}
	}
	for _, p := range sortedPending(pending) {
		complete(pending[p])
	}
	h, err := history.Pair(evs)
	if err != nil {
		panic(err)
	}
	for i := range ts {
		ts[i].call, ts[i].ret = int64(ts[i].invokeAt), history.Infinity
		if ts[i].status == history.OK {
			ts[i].ret = int64(ts[i].at)
		}
	}
	return h
}

func sortedPending(p map[string]int) []string {
	var out []string
	for k := range p {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// value writes a transaction as a history value; reads carry their
// results only when done.
func value(t *btxn, done bool) history.Value {
	var out []history.Value
	for _, o := range t.ops {
		k := history.StringValue(string(rune('x' + o.key)))
		switch {
		case !o.read && o.reg:
			out = append(out, history.ListValue(history.StringValue("w"), k, history.IntValue(int64(o.val))))
			continue
		case !o.read:
			out = append(out, history.ListValue(history.StringValue("append"), k, history.IntValue(int64(o.val))))
			continue
		}
		v := history.NilValue
		switch {
		case done && o.reg && o.val != 0:
			v = history.IntValue(int64(o.val))
		case done && !o.reg:
			var vs []history.Value
			for _, e := range o.list {
				vs = append(vs, history.IntValue(int64(e)))
			}
			v = history.ListValue(vs...)
		}
		out = append(out, history.ListValue(history.StringValue("r"), k, v))
	}
	return history.ListValue(out...)
}

// TestAgreesWithBruteForce compares the graph checker's verdicts for
// serializability, snapshot isolation and strict serializability with the
// brute force's on seeded random list-append histories with failed and
// crashed transactions.
func TestAgreesWithBruteForce(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 1000
	}
	rng := rand.New(rand.NewSource(20))
	counts := map[string][2]int{}
	for i := 0; i < n; i++ {
		g := generate(rng)
		a, err := elle.Analyze(context.Background(), g.h, elle.ListAppend, 0)
		if err != nil {
			t.Fatalf("history %d: %v", i, err)
		}
		for _, c := range []struct {
			level string
			brute func() bool
		}{
			{elle.Serializable, func() bool { return bruteSerializable(g.ts, g.keys, false) }},
			{elle.StrictSerializable, func() bool { return bruteSerializable(g.ts, g.keys, true) }},
			{elle.SnapshotIsolation, func() bool { return bruteSI(g.ts, g.keys) }},
		} {
			res := verdict(t, a, g.h, c.level)
			want := c.brute()
			if (res.Valid != checker.False) != want || res.Valid == checker.Unknown && !emptyGraph(res) {
				t.Fatalf("history %d, %s: graph says %v, brute force %v; anomalies %v\n%s", i, c.level, res.Valid, want, names(a), dump(g.h))
			}
			k := counts[c.level]
			if want {
				k[0]++
			} else {
				k[1]++
			}
			counts[c.level] = k
		}
	}
	for level, k := range counts {
		t.Logf("%s: %d valid, %d invalid", level, k[0], k[1])
		if k[0] < n/20 || k[1] < n/20 {
			t.Errorf("%s: %d valid and %d invalid histories: the generator hardly exercises it", level, k[0], k[1])
		}
	}
}

func dump(h *history.History) string {
	var s string
	for i := range h.Ops {
		op := &h.Ops[i]
		s += fmt.Sprintf("  %s %s [%d, %d]\n", op.Label(), op.Status, op.Call, op.Return)
	}
	return s
}

// emptyGraph reports that a verdict is unknown because no dependency
// between transactions was inferred (Elle's empty-transaction-graph),
// which no cycle, and so no brute-force serialisation, contradicts.
func emptyGraph(res checker.Result) bool {
	return res.Valid == checker.Unknown && strings.HasPrefix(res.Reason, elle.EmptyTransactionGraph)
}
