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

// live is the state of a Live run.
type live struct {
	o        LiveOptions
	g        *Mulberry32
	emit     func(LiveEvent) error
	store    []int64 // each key's value
	prev     []int64 // its value before the last acknowledged write
	setAt    []int64 // position of the acknowledged write that set it; -1 if not one
	clients  []liveClient
	names    map[int]string
	keys     []history.Value
	ev       history.Event
	pos, ops int64
	next     int64 // the last value written
	injected bool
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
	l := &live{o: o, g: NewMulberry32(o.Seed), emit: emit, store: make([]int64, o.Keys), prev: make([]int64, o.Keys),
		setAt: make([]int64, o.Keys), clients: make([]liveClient, o.Clients), names: map[int]string{},
		keys: make([]history.Value, o.Keys), ev: history.Event{HasTime: true, HasIdx: true}}
	for k := range l.setAt {
		l.setAt[k] = -1
		l.keys[k] = history.IntValue(int64(k))
	}
	for i := range l.clients {
		l.clients[i].name = i
	}
	start := time.Now()
	for l.ops < o.Ops {
		c := &l.clients[l.g.Intn(o.Clients)]
		if c.open {
			if err := l.complete(c); err != nil {
				return err
			}
			continue
		}
		if o.Rate > 0 {
			if d := time.Until(start.Add(time.Duration(float64(l.ops) / o.Rate * float64(time.Second)))); d > 0 {
				time.Sleep(d)
			}
		}
		if err := l.invoke(c); err != nil {
			return err
		}
	}
	for i := range l.clients {
		if l.clients[i].open {
			if err := l.complete(&l.clients[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// name is a client's process name.
func (l *live) name(n int) string {
	if s, ok := l.names[n]; ok {
		return s
	}
	s := strconv.Itoa(n)
	if len(l.names) < 1<<16 {
		l.names[n] = s
	}
	return s
}

// send emits an event of client c.
func (l *live) send(c *liveClient, t history.Type, v history.Value, stale bool) error {
	e := &l.ev
	e.Process, e.Type, e.Key, e.Value, e.Time, e.Index = l.name(c.name), t, l.keys[c.key], v, l.pos, l.pos
	e.F = "read"
	if c.write {
		e.F = "write"
	}
	l.pos++
	return l.emit(LiveEvent{Event: e, Stale: stale})
}

// invoke starts an operation of the idle client c.
func (l *live) invoke(c *liveClient) error {
	c.open, c.key, c.invoked = true, l.g.Intn(l.o.Keys), l.pos
	c.write = l.g.Float64() < l.o.Writes
	v := history.NilValue
	if c.write {
		l.next++
		c.value = l.next
		v = history.IntValue(l.next)
	}
	l.ops++
	return l.send(c, history.Invoke, v, false)
}

// complete ends client c's operation, which takes effect now: a read
// returns the key's value (or, once, a stale one), a write sets it
// unless it crashes.
func (l *live) complete(c *liveClient) error {
	c.open = false
	k := c.key
	if !c.write {
		v := l.store[k]
		stale := false
		if !l.injected && l.o.StaleAt > 0 && l.ops >= l.o.StaleAt && l.setAt[k] >= 0 && l.setAt[k] < c.invoked && l.prev[k] != v {
			v, stale, l.injected = l.prev[k], true, true
		}
		return l.send(c, history.OK, history.IntValue(v), stale)
	}
	if l.g.Float64() < l.o.CrashRate {
		if l.g.Float64() < 0.5 {
			l.store[k], l.setAt[k] = c.value, -1
		}
		err := l.send(c, history.Info, history.IntValue(c.value), false)
		c.name += l.o.Clients // it goes on under a new name
		return err
	}
	l.prev[k], l.store[k], l.setAt[k] = l.store[k], c.value, l.pos
	return l.send(c, history.OK, history.IntValue(c.value), false)
}
