package isoref

import (
	"maps"
	"math/rand"
	"strings"

	"github.com/histcheck/histcheck/history"
)

// Random builds a small random rw-register history with unique writes:
// up to seven transactions in up to three sessions over up to three
// keys, some aborted and some of unknown outcome, reads that repeat and
// reads that return the latest write of a serial run, any write of their
// key (aborted, intermediate and later ones included), the initial nil,
// or rarely a value nobody wrote.
func Random(rng *rand.Rand) *history.History {
	type mop struct {
		read bool
		key  string
		val  int64 // 0: nil
	}
	type plan struct {
		sess   int
		status history.Type
		mops   []mop
	}
	sessions := 1 + rng.Intn(4)
	// A clean history's transactions all commit and read only what some
	// view of the serial run holds: the histories that tell the stronger
	// levels apart.
	clean := rng.Intn(2) == 0
	nkeys := 1 + rng.Intn(3)
	keys := []string{"x", "y", "z"}[:nkeys]
	n := 2 + rng.Intn(6)
	plans := make([]plan, n)
	next := int64(1)
	written := map[string][]int64{}
	for i := range plans {
		p := plan{sess: rng.Intn(sessions), status: history.OK}
		switch x := rng.Intn(20); {
		case clean:
		case x == 0:
			p.status = history.Fail
		case x == 1:
			p.status = history.Info
		}
		for j := 1 + rng.Intn(4); j > 0; j-- {
			m := mop{read: rng.Intn(2) == 0, key: keys[rng.Intn(nkeys)]}
			if !m.read {
				m.val = next
				next++
				written[m.key] = append(written[m.key], m.val)
			}
			p.mops = append(p.mops, m)
			if m.read && rng.Intn(5) == 0 {
				p.mops = append(p.mops, m) // a repeated read
			}
		}
		plans[i] = p
	}
	// Reads: a serial run in plan order gives each key's latest value;
	// a transaction may read from an older snapshot of that run, the same
	// for all its reads (as snapshot isolation and weaker stores do).
	latest := map[string]int64{}
	var snapshots []map[string]int64
	for i := range plans {
		p := &plans[i]
		snapshots = append(snapshots, maps.Clone(latest))
		snap := snapshots[rng.Intn(len(snapshots))]
		if rng.Intn(2) == 0 || clean {
			// A view of its own: its session's earlier transactions and
			// some of the others', each key's value the latest among them.
			snap = map[string]int64{}
			for j := 0; j < i; j++ {
				q := &plans[j]
				if q.status != history.OK || (q.sess != p.sess && rng.Intn(2) == 0) {
					continue
				}
				for _, m := range q.mops {
					if !m.read {
						snap[m.key] = m.val
					}
				}
			}
		}
		own := map[string]int64{}
		for j := range p.mops {
			m := &p.mops[j]
			if !m.read {
				own[m.key] = m.val
				continue
			}
			if v, ok := own[m.key]; ok && rng.Intn(8) != 0 {
				m.val = v
				continue
			}
			x := rng.Intn(60)
			if clean {
				x = 14 + rng.Intn(32)
			}
			switch {
			case x < 14:
				m.val = latest[m.key]
			case x < 46:
				m.val = snap[m.key]
			case x < 54 && len(written[m.key]) > 0:
				ws := written[m.key]
				m.val = ws[rng.Intn(len(ws))]
			case x < 59:
				m.val = 0
			default:
				m.val = 99
			}
		}
		if p.status == history.OK {
			for k, v := range own {
				latest[k] = v
			}
		}
	}
	var evs []history.Event
	crashed := map[int]int{} // a session goes on as a new client after a transaction of unknown outcome
	for _, p := range plans {
		var inv, done []history.Value
		for _, m := range p.mops {
			f := "w"
			if m.read {
				f = "r"
			}
			v := history.IntValue(m.val)
			if m.val == 0 {
				v = history.NilValue
			}
			iv := v
			if m.read {
				iv = history.NilValue
			}
			inv = append(inv, history.ListValue(history.StringValue(f), history.StringValue(m.key), iv))
			done = append(done, history.ListValue(history.StringValue(f), history.StringValue(m.key), v))
		}
		proc := string(rune('A'+p.sess)) + strings.Repeat("'", crashed[p.sess])
		if p.status == history.Info {
			crashed[p.sess]++
		}
		evs = append(evs, history.Event{Process: proc, Type: history.Invoke, F: "txn", Value: history.ListValue(inv...)})
		switch p.status {
		case history.OK:
			evs = append(evs, history.Event{Process: proc, Type: history.OK, F: "txn", Value: history.ListValue(done...)})
		case history.Fail:
			evs = append(evs, history.Event{Process: proc, Type: history.Fail, F: "txn", Value: history.ListValue(inv...)})
		}
	}
	h, err := history.Pair(evs)
	if err != nil {
		panic(err) // the events are paired by construction
	}
	return h
}
