// Package isogen generates rw-register histories with unique writes like
// those the isolation checkers of the research literature are measured
// on: sessions running transactions of a fixed number of
// micro-operations, a share of them reads, over uniformly chosen keys,
// on a store that runs them one at a time (so every level holds), with
// one anomaly added on request.
package isogen

import (
	"fmt"
	"math/rand"
	"strconv"

	"github.com/histcheck/histcheck/history"
)

// Anomalies Options.Anomaly can add.
const (
	None       = ""
	WriteSkew  = "write-skew"  // two transactions read x and y from one state; one writes x, the other y
	LostUpdate = "lost-update" // two transactions read x from one state and both write it
)

// Options describe a workload.
type Options struct {
	Txns      int
	Sessions  int
	Ops       int     // micro-operations per transaction
	ReadRatio float64 // share of reads
	Keys      int
	Seed      int64
	// Anomaly, when set, replaces the two transactions in the middle of
	// the history by a pair that shows it.
	Anomaly string
}

// Default is the workload of the targets for n transactions: 20
// sessions, 8 micro-operations per transaction, half reads, 1,000 keys.
func Default(n int) Options {
	return Options{Txns: n, Sessions: 20, Ops: 8, ReadRatio: 0.5, Keys: 1000, Seed: 1}
}

// Events generates the workload's events: each transaction's invocation
// and completion, one transaction after another.
func Events(o Options) ([]history.Event, error) {
	if o.Txns < 0 || o.Sessions < 1 || o.Ops < 1 || o.Keys < 2 || o.ReadRatio < 0 || o.ReadRatio > 1 {
		return nil, fmt.Errorf("isogen: want txns ≥ 0, sessions and ops ≥ 1, keys ≥ 2 and a read ratio in [0, 1]")
	}
	if o.Anomaly != None && o.Anomaly != WriteSkew && o.Anomaly != LostUpdate {
		return nil, fmt.Errorf("isogen: unknown anomaly %q", o.Anomaly)
	}
	rng := rand.New(rand.NewSource(o.Seed))
	keys := make([]history.Value, o.Keys)
	for i := range keys {
		keys[i] = history.IntValue(int64(i))
	}
	procs := make([]string, o.Sessions)
	for i := range procs {
		procs[i] = strconv.Itoa(i)
	}
	state := make([]int64, o.Keys) // 0: nil
	next := int64(1)
	value := func(v int64) history.Value {
		if v == 0 {
			return history.NilValue
		}
		return history.IntValue(v)
	}
	r, w := history.StringValue("r"), history.StringValue("w")
	evs := make([]history.Event, 0, 2*o.Txns)
	emit := func(sess int, inv, done []history.Value) {
		evs = append(evs, history.Event{Process: procs[sess], Type: history.Invoke, F: "txn", Value: history.ListValue(inv...)},
			history.Event{Process: procs[sess], Type: history.OK, F: "txn", Value: history.ListValue(done...)})
	}
	own := map[int]int64{}
	for t := 0; t < o.Txns; t++ {
		sess := rng.Intn(o.Sessions)
		if o.Anomaly != None && t == o.Txns/2 && t+1 < o.Txns {
			x, y := rng.Intn(o.Keys), rng.Intn(o.Keys-1)
			if y >= x {
				y++
			}
			s2 := (sess + 1 + rng.Intn(o.Sessions-1+boolInt(o.Sessions == 1))) % o.Sessions
			wy := y
			if o.Anomaly == LostUpdate {
				wy = x
			}
			a, b := next, next+1
			next += 2
			for i, pair := range [][2]int{{sess, x}, {s2, wy}} {
				val := []int64{a, b}[i]
				inv := []history.Value{history.ListValue(r, keys[x], history.NilValue), history.ListValue(r, keys[y], history.NilValue),
					history.ListValue(w, keys[pair[1]], history.IntValue(val))}
				done := []history.Value{history.ListValue(r, keys[x], value(state[x])), history.ListValue(r, keys[y], value(state[y])),
					history.ListValue(w, keys[pair[1]], history.IntValue(val))}
				emit(pair[0], inv, done)
			}
			state[x], state[wy] = a, b
			t++
			continue
		}
		clear(own)
		inv := make([]history.Value, o.Ops)
		done := make([]history.Value, o.Ops)
		for i := 0; i < o.Ops; i++ {
			k := rng.Intn(o.Keys)
			if rng.Float64() < o.ReadRatio {
				v, ok := own[k]
				if !ok {
					v = state[k]
				}
				inv[i] = history.ListValue(r, keys[k], history.NilValue)
				done[i] = history.ListValue(r, keys[k], value(v))
				continue
			}
			own[k] = next
			inv[i] = history.ListValue(w, keys[k], history.IntValue(next))
			done[i] = inv[i]
			next++
		}
		for k, v := range own {
			state[k] = v
		}
		emit(sess, inv, done)
	}
	return evs, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// History generates the workload as a paired history.
func History(o Options) (*history.History, error) {
	evs, err := Events(o)
	if err != nil {
		return nil, err
	}
	return history.Pair(evs)
}
