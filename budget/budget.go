// Package budget holds a run's memory budget: one limit shared by reading,
// checking, shrinking and rendering. It measures the process, as the Go
// runtime accounts for it, rather than what each phase claims, so that
// every allocation counts whoever makes it; large allocations ask first
// (Allow), and a watch cancels the run's context when the budget is
// exceeded (Watch), so a run ends with an unknown verdict and its reason
// instead of a fatal out-of-memory error.
//
// A part of the run that may blow up on its own (one criterion's check)
// runs under a Share of the budget, with a watch of its own: past its
// share only that part is cancelled, and what it held is released before
// the next part measures what is left for it. The watch of the whole
// budget stays the backstop, and cancels the whole run.
package budget

import (
	"context"
	"fmt"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Memory is a memory budget. The nil *Memory and a limit of 0 or less
// mean no limit.
type Memory struct {
	// limit is what the process may hold in all while the budget holds:
	// for a share, what it held when the share began and the share.
	limit int64
	// space is the address space the process may map (ulimit -v), or 0.
	// Go reserves address space far beyond what it uses, so under such a
	// limit the reservations run out long before the memory does.
	space int64
	// meter measures the process; a budget and its shares use one.
	meter *meter
	// share, for a share of a budget, says whose it is and of what.
	share *share
}

// share describes a Share: what it is for, the budget it is a share of,
// and what the process held when it began.
type share struct {
	name        string
	whole, base int64
	// refused is the first refusal of Allow.
	refused atomic.Pointer[ExceededError]
}

// meter measures what the process holds.
type meter struct {
	mu sync.Mutex
	// samples is reused by every reading, so that measuring allocates
	// nothing.
	samples []metrics.Sample
	// inUse, when set, measures instead of the runtime (NewMetered).
	inUse func() int64
}

// New returns a budget of limit bytes; 0 or less means none.
func New(limit int64) *Memory {
	return &Memory{limit: limit, space: addressLimit(), meter: &meter{samples: []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}}}
}

// NewMetered returns a budget of limit bytes (0 or less: none) that
// measures what is in use with inUse rather than from the Go runtime, and
// knows no address space limit: for a caller that accounts for its memory
// itself, and for tests that need a budget to run out at a chosen moment.
// Collecting garbage does not change what inUse says, so it never
// collects.
func NewMetered(limit int64, inUse func() int64) *Memory {
	return &Memory{limit: limit, meter: &meter{inUse: inUse}}
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

// Limit returns the budget in bytes, or 0 when there is none: what the
// process may hold in all, which for a Share is what it held when the
// share began and the share.
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
		e := &ExceededError{Limit: m.limit, InUse: used, Want: n, What: what}
		if sh := m.share; sh != nil {
			e.Share, e.Limit, e.Whole, e.Base = sh.name, m.limit-sh.base, sh.whole, sh.base
		}
		return e
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
	return m.meter.read()
}

func (mt *meter) read() int64 {
	if mt.inUse != nil {
		return mt.inUse()
	}
	v := mt.sample()
	return v[0] - v[1]
}

// garbage estimates the heap's dead objects not yet collected: the
// objects the heap holds less those the last collection found live. A
// metered budget has none.
func (mt *meter) garbage() int64 {
	if mt.inUse != nil {
		return 0
	}
	v := mt.sample()
	return max(v[2]-v[3], 0)
}

// sample reads the runtime's figures, in the order of samples.
func (mt *meter) sample() [4]int64 {
	mt.mu.Lock()
	defer mt.mu.Unlock()
	metrics.Read(mt.samples)
	var v [4]int64
	for i, s := range mt.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = int64(s.Value.Uint64())
		}
	}
	return v
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
	// Share, when set, names the part of the run whose share of the
	// budget was exceeded (a criterion): Limit is then the share, what
	// that part may hold beyond Base, the memory the process held when
	// it began, and Whole the budget it is a share of.
	Share       string
	Whole, Base int64
}

func (e *ExceededError) Error() string {
	s := "the memory limit of " + Size(e.Limit)
	switch {
	case e.Space:
		s = "the address space limit (ulimit -v) of " + Size(e.Limit)
	case e.Share != "":
		s = fmt.Sprintf("the memory limit of %s for %s (its share of %s, beyond the %s held when it began)",
			Size(e.Limit), e.Share, Size(e.Whole), Size(e.Base))
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
		if m.share != nil {
			m.share.refused.CompareAndSwap(nil, e)
		}
		return e
	}
	return nil
}

// Refused returns the first refusal of a share's Allow, or nil: a search
// that stops when its memo may not grow reports only that it stopped, and
// this says why.
func (m *Memory) Refused() *ExceededError {
	if m == nil || m.share == nil {
		return nil
	}
	return m.share.refused.Load()
}

// Allowance returns what a Share may take beyond what the process held
// when it began; for a whole budget, its limit (0: none).
func (m *Memory) Allowance() int64 {
	if m == nil || m.share == nil {
		return m.Limit()
	}
	return m.limit - m.share.base
}

// collect frees what the process no longer uses and returns it to the
// operating system, then measures again: garbage must not count against
// the budget. It costs a full collection, so it is done only when the
// budget looks exceeded.
func (m *Memory) collect() {
	if m.meter.inUse == nil {
		debug.FreeOSMemory()
	}
}

// Release collects the garbage a part of the run left (a search that was
// cancelled past its share drops a memo of up to the whole share) and
// returns it to the operating system, so that the memory is free again for
// what comes next and the next Share measures only what is still held.
func (m *Memory) Release() {
	if m.Limit() > 0 {
		m.collect()
	}
}

// ShareReserve is the part of what is left of a budget that a Share keeps
// back: a share may take (1 - 1/ShareReserve) of what the process does not
// hold when it begins, so that a part of the run cancelled past its share
// has room to stop before the process reaches the whole budget, whose
// watch cancels the whole run.
const ShareReserve = 8

// Share returns the share of the budget of one part of a run that comes
// after another (one criterion, then the next), named name in the
// *ExceededError that says it ran out: (1 - 1/ShareReserve) of what the
// process does not hold now. Parts run one at a time, so that each in turn
// may use what is left; Release the memory of one before the next's Share
// measures. It collects garbage first when there is more of it than the
// reserve, so that garbage does not shrink the share by much; a collection
// costs a pass over the heap, so it is not made for less. With no budget
// it returns nil, which is no limit.
func (m *Memory) Share(name string) *Memory {
	if m.Limit() == 0 {
		return nil
	}
	base := m.InUse()
	if m.meter.garbage() > (m.limit-base)/ShareReserve {
		m.collect()
		base = m.InUse()
	}
	left := max(m.limit-base, 0)
	return &Memory{limit: base + left - left/ShareReserve, space: m.space, meter: m.meter,
		share: &share{name: name, whole: m.limit, base: base}}
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
