package sim

import (
	"slices"
	"strconv"

	"github.com/histcheck/histcheck/history"
)

// Stores that break one level on purpose: each runs the serializable
// store and adds, on keys of their own, a few transactions that show one
// anomaly (TxnOptions.Anomalies times), so that the history keeps every
// level the anomaly does not break.
const (
	// IsoLostUpdate adds two concurrent transactions that read the
	// initial state of a key and both write it: a lost update, which
	// snapshot isolation rules out and causal consistency allows.
	IsoLostUpdate = "lost-update"
	// IsoWriteSkew adds two concurrent transactions that read the
	// initial state of two keys and each write one: write skew, which
	// serializability rules out and snapshot isolation allows.
	IsoWriteSkew = "write-skew"
	// IsoFracturedRead adds a transaction that writes two keys and one
	// after it that sees the first write and misses the second: a
	// fractured read, which read atomic rules out and read committed
	// allows.
	IsoFracturedRead = "fractured-read"
	// IsoCausalViolation adds a write, a transaction that reads it and
	// writes a second key, and a third that sees the second write and
	// misses the first: causal consistency is broken, read atomic holds.
	IsoCausalViolation = "causal-violation"
	// IsoLongFork adds two writes to two keys and two readers that see
	// them in opposite orders: a long fork, which prefix consistency and
	// snapshot isolation rule out and parallel snapshot isolation and causal
	// consistency allow.
	IsoLongFork = "long-fork"
)

// BrokenStores are the stores that break one level on purpose.
var BrokenStores = []string{IsoLostUpdate, IsoWriteSkew, IsoFracturedRead, IsoCausalViolation, IsoLongFork}

// ptxn is one transaction of an anomaly, laid out by hand.
type ptxn struct {
	at, ret int64
	mops    []pmop
}

// pmop is a write of val to key, or a read that saw the values vals.
type pmop struct {
	write bool
	key   int32
	val   int64
	vals  []int64
}

func pw(k int32, v int64) pmop       { return pmop{write: true, key: k, val: v} }
func pr(k int32, vals ...int64) pmop { return pmop{key: k, vals: vals} }

// anomaly lays out one anomaly of the store's kind on fresh keys x and y
// at time t.
func anomaly(kind string, x, y int32, t int64) []ptxn {
	switch kind {
	case IsoLostUpdate:
		return []ptxn{{t, t + 4, []pmop{pr(x), pw(x, 1)}}, {t + 1, t + 5, []pmop{pr(x), pw(x, 2)}}}
	case IsoWriteSkew:
		return []ptxn{{t, t + 4, []pmop{pr(x), pr(y), pw(x, 1)}}, {t + 1, t + 5, []pmop{pr(x), pr(y), pw(y, 1)}}}
	case IsoFracturedRead:
		return []ptxn{{t, t + 1, []pmop{pw(x, 1), pw(y, 1)}}, {t + 2, t + 3, []pmop{pr(x, 1), pr(y)}}}
	case IsoCausalViolation:
		return []ptxn{{t, t + 1, []pmop{pw(x, 1)}}, {t + 2, t + 3, []pmop{pr(x, 1), pw(y, 1)}}, {t + 4, t + 5, []pmop{pr(y, 1), pr(x)}}}
	case IsoLongFork:
		return []ptxn{{t, t + 1, []pmop{pw(x, 1)}}, {t, t + 1, []pmop{pw(y, 1)}},
			{t + 2, t + 3, []pmop{pr(x, 1), pr(y)}}, {t + 2, t + 3, []pmop{pr(y, 1), pr(x)}}}
	}
	return nil
}

// anomalyOps are the operations of the anomalies the store adds, each
// transaction in a process of its own, spread over the run.
func (s *store) anomalyOps(intValue func(int64) history.Value) []history.Op {
	if !slices.Contains(BrokenStores, s.o.Isolation) || s.o.Anomalies == 0 {
		return nil
	}
	span := int64(1)
	proc := int32(0)
	for i := range s.txns {
		span = max(span, s.txns[i].ret)
		proc = max(proc, s.txns[i].process+1)
	}
	var ops []history.Op
	for i := range s.o.Anomalies {
		x, y := s.next, s.next+1
		s.next += 2
		t := span * int64(i+1) / int64(s.o.Anomalies+1)
		for _, pt := range anomaly(s.o.Isolation, x, y, t) {
			ops = append(ops, history.Op{Client: strconv.Itoa(int(proc)), F: "txn", Value: s.patternValue(pt, intValue),
				Call: pt.at, Return: pt.ret, Status: history.OK})
			proc++
		}
	}
	return ops
}

// patternValue writes an anomaly's transaction in the workload's terms.
func (s *store) patternValue(pt ptxn, intValue func(int64) history.Value) history.Value {
	out := make([]history.Value, len(pt.mops))
	for j, m := range pt.mops {
		k := intValue(int64(m.key))
		switch {
		case m.write && s.o.Registers:
			out[j] = history.ListValue(mopWrite, k, intValue(m.val))
		case m.write:
			out[j] = history.ListValue(mopAppend, k, intValue(m.val))
		case s.o.Registers && len(m.vals) == 0:
			out[j] = history.ListValue(mopRead, k, history.NilValue)
		case s.o.Registers:
			out[j] = history.ListValue(mopRead, k, intValue(m.vals[len(m.vals)-1]))
		default:
			vs := make([]history.Value, len(m.vals))
			for i, v := range m.vals {
				vs[i] = intValue(v)
			}
			out[j] = history.ListValue(mopRead, k, history.ListValue(vs...))
		}
	}
	return history.ListValue(out...)
}
