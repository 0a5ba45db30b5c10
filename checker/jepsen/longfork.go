package jepsen

import (
	"fmt"
	"sort"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/history"
)

// mop is one micro-operation of a long-fork transaction.
type mop struct {
	read       bool
	key, value history.Value
}

// parseTxn reads [[r k v] ...] or [[w k v]] (v nil when left out; nil
// for no micro-operations, as Jepsen reads it); ok is false for a
// transaction of other micro-operations, which Jepsen's checker ignores.
// checkLongForkInput has refused any other shape.
func parseTxn(v history.Value) ([]mop, bool) {
	var out []mop
	for _, m := range v.Elems() {
		es := m.Elems()
		f, _ := firstName(es)
		if (f != "r" && f != "w") || len(es) < 2 {
			return nil, false
		}
		x := mop{read: f == "r", key: es[1], value: history.NilValue}
		if len(es) > 2 {
			x.value = es[2]
		}
		out = append(out, x)
	}
	return out, true
}

func readTxn(t []mop) bool {
	for _, m := range t {
		if !m.read {
			return false
		}
	}
	return true
}

// checkLongFork is Jepsen's long-fork checker. Writes are transactions
// of one write, reads transactions of reads only, each of a group of
// GroupSize keys. No key may be written twice (else the verdict is
// unknown); two reads of one group fork when each saw a write the other
// did not.
func checkLongFork(h *history.History, opts Options) (checker.Result, error) {
	t := &checker.LongForkTally{GroupSize: opts.GroupSize}
	tally := &checker.JepsenTally{Checker: LongFork, LongFork: t}
	reads, maps := longForkReads(h, t)
	if t.GroupSize == 0 && len(reads) > 0 {
		t.GroupSize = len(maps[reads[0]])
	}
	if k, ok := writtenTwice(h); ok {
		t.MultipleWrites = k
		return unknown(fmt.Sprintf("key %s is written more than once; long forks need one write per key", k), tally), nil
	}
	groups, err := readGroups(h, reads, maps, t.GroupSize)
	if err != nil {
		return checker.Result{}, err
	}
	for _, g := range groups {
		forks, err := findForks(h, g, maps)
		if err != nil {
			return checker.Result{}, err
		}
		t.Forks = append(t.Forks, forks...)
	}
	res := checker.Result{Valid: verdict(len(t.Forks) == 0), Jepsen: tally}
	for i := range t.Forks {
		f := t.Forks[i]
		res.Violations = append(res.Violations, checker.Violation{Ops: []int{f.A, f.B}, Op: f.B,
			Pattern: "long-fork", Jepsen: &checker.JepsenFact{Fork: &f}})
	}
	return res, nil
}

// longForkReads are the read transactions that completed ok, in
// completion order, with what each read of each key; it counts them,
// the early ones (nothing written seen) and the late ones (every key
// seen written).
func longForkReads(h *history.History, t *checker.LongForkTally) ([]int, map[int]map[history.Value]history.Value) {
	var reads []int
	maps := map[int]map[history.Value]history.Value{}
	for i := range h.Ops {
		if h.Ops[i].Status != history.OK {
			continue
		}
		txn, ok := parseTxn(h.Ops[i].Value)
		if !ok || !readTxn(txn) {
			continue
		}
		reads = append(reads, i)
		m := map[history.Value]history.Value{}
		some, every := false, true
		for _, x := range txn {
			m[x.key] = x.value
			seen := !x.value.IsNil() && x.value != history.BoolValue(false)
			some, every = some || seen, every && seen
		}
		maps[i] = m
		if !some {
			t.EarlyReads++
		}
		if every {
			t.LateReads++
		}
	}
	t.Reads = len(reads)
	sortByReturn(h, reads)
	return reads, maps
}

// writtenTwice finds a key that two write transactions invoked write.
func writtenTwice(h *history.History) (history.Value, bool) {
	written := map[history.Value]bool{}
	for i := range h.Ops {
		txn, ok := parseTxn(h.Ops[i].Value)
		if !ok || len(txn) != 1 || txn[0].read {
			continue
		}
		if written[txn[0].key] {
			return txn[0].key, true
		}
		written[txn[0].key] = true
	}
	return history.Value{}, false
}

// readGroups splits the reads by the set of keys they read; every group
// must have n keys, else the history is refused (Jepsen's checker throws:
// reads of different keys cannot be compared).
func readGroups(h *history.History, reads []int, maps map[int]map[history.Value]history.Value, n int) ([][]int, error) {
	index := map[history.Value]int{}
	var groups [][]int
	for _, r := range reads {
		keys := make([]history.Value, 0, len(maps[r]))
		for k := range maps[r] {
			keys = append(keys, k)
		}
		if len(keys) != n {
			return nil, inputError(h, r, "every long-fork read should read %d keys (the group size), but this one read %d", n, len(keys))
		}
		id := history.SetValue(keys...)
		g, ok := index[id]
		if !ok {
			g = len(groups)
			index[id] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], r)
	}
	return groups, nil
}

// findForks compares every two reads of a group.
func findForks(h *history.History, g []int, maps map[int]map[history.Value]history.Value) ([]checker.Fork, error) {
	var out []checker.Fork
	for i := 0; i < len(g); i++ {
		for j := i + 1; j < len(g); j++ {
			f, fork, err := compareReads(h, g[i], g[j], maps)
			if err != nil {
				return nil, err
			}
			if fork {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// compareReads finds what each of two reads saw written that the other
// did not; they fork when both did. Two different values of one key break
// the one-write-per-key rule: the history is refused, as Jepsen's checker
// throws.
func compareReads(h *history.History, a, b int, maps map[int]map[history.Value]history.Value) (checker.Fork, bool, error) {
	f := checker.Fork{A: a, B: b}
	for k, va := range maps[a] {
		vb := maps[b][k]
		switch {
		case va == vb:
		case vb.IsNil():
			f.OnlyA = append(f.OnlyA, k)
		case va.IsNil():
			f.OnlyB = append(f.OnlyB, k)
		default:
			return f, false, inputError(h, b, "it and %s read different values of key %s (%s and %s); long-fork needs one write per key",
				h.Ops[a].Label(), k, vb, va)
		}
	}
	sortValues(f.OnlyA)
	sortValues(f.OnlyB)
	return f, len(f.OnlyA) > 0 && len(f.OnlyB) > 0, nil
}

func sortValues(vs []history.Value) {
	sort.Slice(vs, func(i, j int) bool { return history.Compare(vs[i], vs[j]) < 0 })
}
