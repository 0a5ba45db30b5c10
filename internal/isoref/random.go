package isoref

import (
	"maps"
	"math/rand"
	"strings"

	"github.com/histcheck/histcheck/history"
)

// rmop is one micro-operation of a random history: a read or a write of
// val (0: nil) to key.
type rmop struct {
	read bool
	key  string
	val  int64
}

// rplan is one transaction of a random history.
type rplan struct {
	sess   int
	status history.Type
	mops   []rmop
}

// Random builds a small random rw-register history with unique writes:
// up to seven transactions in up to four sessions over up to three keys.
// Half the histories are clean: every transaction commits and reads what
// some view of a serial run holds (a prefix of the run, or its session's
// transactions and some of the others'), which tells the stronger levels
// apart. The others also have aborted transactions, ones of unknown
// outcome, and reads of any write of their key (aborted, intermediate and
// later ones included), of the initial nil, or rarely of a value nobody
// wrote. Reads repeat at random.
func Random(rng *rand.Rand) *history.History {
	sessions := 1 + rng.Intn(4)
	clean := rng.Intn(2) == 0
	plans, written := randomPlans(rng, sessions, clean)
	randomReads(rng, plans, written, clean)
	h, err := history.Pair(randomEvents(plans))
	if err != nil {
		panic(err) // the events are paired by construction
	}
	return h
}

// randomPlans draws the transactions, their writes' values unique.
func randomPlans(rng *rand.Rand, sessions int, clean bool) ([]rplan, map[string][]int64) {
	nkeys := 1 + rng.Intn(3)
	keys := []string{"x", "y", "z"}[:nkeys]
	plans := make([]rplan, 2+rng.Intn(6))
	next := int64(1)
	written := map[string][]int64{}
	for i := range plans {
		p := rplan{sess: rng.Intn(sessions), status: history.OK}
		switch x := rng.Intn(20); {
		case clean:
		case x == 0:
			p.status = history.Fail
		case x == 1:
			p.status = history.Info
		}
		for j := 1 + rng.Intn(4); j > 0; j-- {
			m := rmop{read: rng.Intn(2) == 0, key: keys[rng.Intn(nkeys)]}
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
	return plans, written
}

// view is what a transaction reads from: a snapshot of an earlier point
// of the serial run in plan order, or its session's earlier transactions
// and some of the others', each key's value the latest among them.
func view(rng *rand.Rand, plans []rplan, i int, snapshots []map[string]int64, clean bool) map[string]int64 {
	if rng.Intn(2) != 0 && !clean {
		return snapshots[rng.Intn(len(snapshots))]
	}
	snap := map[string]int64{}
	for j := 0; j < i; j++ {
		q := &plans[j]
		if q.status != history.OK || (q.sess != plans[i].sess && rng.Intn(2) == 0) {
			continue
		}
		for _, m := range q.mops {
			if !m.read {
				snap[m.key] = m.val
			}
		}
	}
	return snap
}

// randomReads fills in what the reads return.
func randomReads(rng *rand.Rand, plans []rplan, written map[string][]int64, clean bool) {
	latest := map[string]int64{}
	var snapshots []map[string]int64
	for i := range plans {
		p := &plans[i]
		snapshots = append(snapshots, maps.Clone(latest))
		snap := view(rng, plans, i, snapshots, clean)
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
			m.val = pickRead(rng, m.key, latest, snap, written, clean)
		}
		if p.status == history.OK {
			maps.Copy(latest, own)
		}
	}
}

func pickRead(rng *rand.Rand, key string, latest, snap map[string]int64, written map[string][]int64, clean bool) int64 {
	x := rng.Intn(60)
	if clean {
		x = 14 + rng.Intn(32)
	}
	switch {
	case x < 14:
		return latest[key]
	case x < 46:
		return snap[key]
	case x < 54 && len(written[key]) > 0:
		ws := written[key]
		return ws[rng.Intn(len(ws))]
	case x < 59:
		return 0
	}
	return 99
}

// randomEvents writes the transactions as events, one after another; a
// session goes on as a new client after a transaction of unknown outcome.
func randomEvents(plans []rplan) []history.Event {
	var evs []history.Event
	crashed := map[int]int{}
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
	return evs
}
