// Package budget holds a run's memory budget: one limit shared by reading,
// checking, shrinking and rendering. It measures the process, as the Go
// runtime accounts for it, rather than what each phase claims, so that
// every allocation counts whoever makes it; large allocations ask first
// (Allow), and a watch cancels the run's context when the budget is
// exceeded (Watch), so a run ends with an unknown verdict and its reason
// instead of a fatal out-of-memory error.
package budget

import (
	"context"
	"fmt"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// Memory is a memory budget. The nil *Memory and a limit of 0 or less
// mean no limit.
type Memory struct {
	limit int64
	// space is the address space the process may map (ulimit -v), or 0.
	// Go reserves address space far beyond what it uses, so under such a
	// limit the reservations run out long before the memory does.
	space int64
	mu    sync.Mutex
	// samples is reused by every reading, so that measuring allocates
	// nothing.
	samples []metrics.Sample
}

// New returns a budget of limit bytes; 0 or less means none.
func New(limit int64) *Memory {
	return &Memory{limit: limit, space: addressLimit(), samples: []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}}
}

// For returns the budget a limit asks for, as the command line and
// check.Limits state it: 0 means Default(), a negative limit means none
// (nil).
func For(limit int64) *Memory {
	switch {
	case limit == 0:
		return New(Default())
	case limit < 0:
		return nil
	}
	return New(limit)
}

// Limit returns the budget in bytes, or 0 when there is none.
func (m *Memory) Limit() int64 {
	if m == nil || m.limit <= 0 {
		return 0
	}
	return m.limit
}

// spaceMargin is the address space kept free under a ulimit -v: the Go
// runtime reserves its heap in arenas of 64 MiB, and its threads' stacks.
const spaceMargin = 128 << 20

// exceeded measures the process and returns why n more bytes do not fit,
// or nil: past the budget, or (under a ulimit -v) too near the end of the
// address space.
func (m *Memory) exceeded(n int64, what string) *ExceededError {
	if used := m.InUse(); used+n > m.limit {
		return &ExceededError{Limit: m.limit, InUse: used, Want: n, What: what}
	}
	if m.space > 0 {
		if mapped := mappedSpace(); mapped > 0 && mapped+n+spaceMargin > m.space {
			return &ExceededError{Limit: m.space, InUse: mapped, Want: n, What: what, Space: true}
		}
	}
	return nil
}

// InUse returns the memory the process holds from the operating system:
// everything the Go runtime has mapped, less what it has given back.
func (m *Memory) InUse() int64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	metrics.Read(m.samples)
	var v [2]int64
	for i, s := range m.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = int64(s.Value.Uint64())
		}
	}
	return v[0] - v[1]
}

// ExceededError says that the budget would be or has been exceeded.
type ExceededError struct {
	// Limit is the budget, InUse what the process held when it was
	// measured, and Want what was asked for on top (0 when the watch found
	// the budget exceeded).
	Limit, InUse, Want int64
	// What names what needed the memory ("reading", "the memo"), when
	// known.
	What string
	// Space says that the limit is the address space (ulimit -v), and
	// InUse the address space mapped.
	Space bool
}

func (e *ExceededError) Error() string {
	s := "the memory limit of " + Size(e.Limit)
	if e.Space {
		s = "the address space limit (ulimit -v) of " + Size(e.Limit)
	}
	if e.Want > 0 {
		s += fmt.Sprintf(" does not leave room for %s more", Size(e.Want))
		if e.What != "" {
			s += " for " + e.What
		}
		return s + fmt.Sprintf(" (%s %s)", Size(e.InUse), e.usage())
	}
	return s + fmt.Sprintf(" was reached (%s %s)", Size(e.InUse), e.usage())
}

func (e *ExceededError) usage() string {
	if e.Space {
		return "mapped"
	}
	return "in use"
}

// Allow reports, as an *ExceededError, whether n more bytes for what would
// take the process past the budget; nil when they fit or there is no
// budget. Ask before an allocation large enough to matter (a table's next
// size, a whole input); the watch sees the rest.
func (m *Memory) Allow(n int64, what string) error {
	if m.Limit() == 0 || m.exceeded(n, what) == nil {
		return nil
	}
	m.collect()
	if e := m.exceeded(n, what); e != nil {
		return e
	}
	return nil
}

// collect frees what the process no longer uses and returns it to the
// operating system, then measures again: garbage must not count against
// the budget. It costs a full collection, so it is done only when the
// budget looks exceeded.
func (m *Memory) collect() {
	debug.FreeOSMemory()
}

// WatchInterval is how often Watch measures: often enough that a search
// allocating a gigabyte a second overshoots by a few megabytes at most.
const WatchInterval = 10 * time.Millisecond

// collectEvery is the least time between two collections of the watch.
const collectEvery = 100 * time.Millisecond

// Watch returns a context that is cancelled, with an *ExceededError as its
// cause (context.Cause), when the process holds more than the budget, and
// a function that stops watching and releases the context. With no budget
// it only derives a cancellable context.
func (m *Memory) Watch(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	limit := m.Limit()
	if limit == 0 {
		return ctx, func() { cancel(context.Canceled) }
	}
	done := make(chan struct{})
	var once sync.Once
	stop := func() {
		once.Do(func() { close(done) })
		cancel(context.Canceled)
	}
	go func() {
		t := time.NewTicker(WatchInterval)
		defer t.Stop()
		// A collection costs far more than a look: after one that found the
		// budget kept, the next waits, and garbage meanwhile is tolerated.
		var collected time.Time
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if m.exceeded(0, "") == nil || time.Since(collected) < collectEvery {
					continue
				}
				collected = time.Now()
				m.collect()
				if e := m.exceeded(0, ""); e != nil {
					cancel(e)
					return
				}
			}
		}
	}()
	return ctx, stop
}

// Size writes a size in the unit that states it exactly, so that a limit
// of 16MB reads back as 16 MB and 512MiB as 512 MiB: GiB and MiB are powers
// of 1024, GB and MB powers of 1000. Other sizes are given in MiB to a
// tenth.
func Size(n int64) string {
	units := []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"GB", 1e9}, {"MiB", 1 << 20}, {"MB", 1e6}}
	for _, u := range units {
		if n > 0 && n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
