package sim

import (
	"errors"
	"strconv"
	"time"

	"github.com/histcheck/histcheck/history"
)

// LiveOptions configure Live.
type LiveOptions struct {
	Ops     int64   // operations in all
	Clients int     // clients running at once
	Keys    int     // keys of the key-value store
	Writes  float64 // share of writes among the operations
	// CrashRate is the chance a write's outcome is unknown (info); half
	// of those take effect anyway, and the client goes on under a new
	// process name, as Jepsen's do.
	CrashRate float64
	// StaleAt, when positive, injects one stale read: the first read
	// invoked at or after operation StaleAt whose key's value was last
	// set by an acknowledged write, and that write completed before the
	// read was invoked, returns the value before that write.
	StaleAt int64
	// Rate bounds the operations invoked per second (0: no bound).
	Rate float64
	Seed uint32
}

// LiveEvent is an event Live emits, and what it shows.
type LiveEvent struct {
	Event *history.Event
	// Stale marks the completion of the injected stale read.
	Stale bool
}

// liveClient is one client of the live workload.
type liveClient struct {
	name    int
	open    bool
	write   bool
	key     int
	value   int64
	invoked int64 // event position of the invocation
}

// Live runs a key-value workload against a single copy of the store and
// emits its events as they happen, one at a time, so that a history of
// any length is written in constant memory: each operation takes effect
// when it completes, so the history is linearizable unless a stale read
// is injected. It stops after o.Ops operations, or when emit fails.
func Live(o LiveOptions, emit func(LiveEvent) error) error {
	switch {
	case o.Clients < 1:
		return errors.New("live: need at least one client")
	case o.Keys < 1:
		return errors.New("live: need at least one key")
	case !(o.Writes >= 0 && o.Writes <= 1), !(o.CrashRate >= 0 && o.CrashRate < 1):
		return errors.New("live: writes must be in [0, 1] and crash-rate in [0, 1)")
	}
	g := NewMulberry32(o.Seed)
	store := make([]int64, o.Keys)
	prev := make([]int64, o.Keys)
	setAt := make([]int64, o.Keys) // position of the acknowledged write that set it; -1 if not one
	for k := range setAt {
		setAt[k] = -1
	}
	clients := make([]liveClient, o.Clients)
	for i := range clients {
		clients[i].name = i
	}
	names := map[int]string{}
	name := func(n int) string {
		if s, ok := names[n]; ok {
			return s
		}
		s := strconv.Itoa(n)
		if len(names) < 1<<16 {
			names[n] = s
		}
		return s
	}
	keys := make([]history.Value, o.Keys)
	for k := range keys {
		keys[k] = history.IntValue(int64(k))
	}
	start := time.Now()
	var pos, ops, next int64
	injected := false
	ev := history.Event{HasTime: true, HasIdx: true}
	send := func(c *liveClient, t history.Type, v history.Value, stale bool) error {
		ev.Process, ev.Type, ev.Key, ev.Value, ev.Time, ev.Index = name(c.name), t, keys[c.key], v, pos, pos
		ev.F = "read"
		if c.write {
			ev.F = "write"
		}
		pos++
		return emit(LiveEvent{Event: &ev, Stale: stale})
	}
	complete := func(c *liveClient) error {
		c.open = false
		if !c.write {
			v := store[c.key]
			stale := false
			if !injected && o.StaleAt > 0 && ops >= o.StaleAt && setAt[c.key] >= 0 && setAt[c.key] < c.invoked && prev[c.key] != v {
				v, stale, injected = prev[c.key], true, true
			}
			return send(c, history.OK, history.IntValue(v), stale)
		}
		if g.Float64() < o.CrashRate {
			if g.Float64() < 0.5 {
				store[c.key], setAt[c.key] = c.value, -1
			}
			err := send(c, history.Info, history.IntValue(c.value), false)
			c.name += o.Clients
			return err
		}
		prev[c.key], store[c.key], setAt[c.key] = store[c.key], c.value, pos
		return send(c, history.OK, history.IntValue(c.value), false)
	}
	for ops < o.Ops {
		c := &clients[g.Intn(o.Clients)]
		if c.open {
			if err := complete(c); err != nil {
				return err
			}
			continue
		}
		if o.Rate > 0 {
			if d := time.Until(start.Add(time.Duration(float64(ops) / o.Rate * float64(time.Second)))); d > 0 {
				time.Sleep(d)
			}
		}
		c.open, c.key, c.invoked = true, g.Intn(o.Keys), pos
		c.write = g.Float64() < o.Writes
		v := history.NilValue
		if c.write {
			next++
			c.value = next
			v = history.IntValue(next)
		}
		ops++
		if err := send(c, history.Invoke, v, false); err != nil {
			return err
		}
	}
	for i := range clients {
		if clients[i].open {
			if err := complete(&clients[i]); err != nil {
				return err
			}
		}
	}
	return nil
}
