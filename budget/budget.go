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
	mu    sync.Mutex
	// samples is reused by every reading, so that measuring allocates
	// nothing.
	samples []metrics.Sample
}

// New returns a budget of limit bytes; 0 or less means none.
func New(limit int64) *Memory {
	return &Memory{limit: limit, samples: []metrics.Sample{
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
}

func (e *ExceededError) Error() string {
	s := "the memory limit of " + Size(e.Limit)
	if e.Want > 0 {
		s += fmt.Sprintf(" does not leave room for %s more", Size(e.Want))
		if e.What != "" {
			s += " for " + e.What
		}
		return s + fmt.Sprintf(" (%s in use)", Size(e.InUse))
	}
	return s + fmt.Sprintf(" was reached (%s in use)", Size(e.InUse))
}

// Allow reports, as an *ExceededError, whether n more bytes for what would
// take the process past the budget; nil when they fit or there is no
// budget. Ask before an allocation large enough to matter (a table's next
// size, a whole input); the watch sees the rest.
func (m *Memory) Allow(n int64, what string) error {
	limit := m.Limit()
	if limit == 0 {
		return nil
	}
	if used := m.InUse(); used+n <= limit {
		return nil
	}
	if used := m.collect(); used+n > limit {
		return &ExceededError{Limit: limit, InUse: used, Want: n, What: what}
	}
	return nil
}

// collect frees what the process no longer uses and returns it to the
// operating system, then measures again: garbage must not count against
// the budget. It costs a full collection, so it is done only when the
// budget looks exceeded.
func (m *Memory) collect() int64 {
	debug.FreeOSMemory()
	return m.InUse()
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
				if m.InUse() <= limit || time.Since(collected) < collectEvery {
					continue
				}
				collected = time.Now()
				if used := m.collect(); used > limit {
					cancel(&ExceededError{Limit: limit, InUse: used})
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
