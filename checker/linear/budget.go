package linear

import (
	"errors"
	"sync/atomic"

	"github.com/histcheck/histcheck/budget"
)

// errMemory stops a search whose memos outgrew Options.MaxMemory.
var errMemory = errors.New("memo exceeded the memory limit")

// DefaultMaxMemory returns the memory limit used when Options.MaxMemory is
// 0: budget.Default(), which reads the machine each time; callers that run
// many searches (shrinking does) pass a limit.
func DefaultMaxMemory() int64 { return budget.Default() }

// memBudget is the memory the memos of one Check may hold together; the
// searches of its partitions charge it as their memos grow.
type memBudget struct {
	limit int64
	used  atomic.Int64
	// mem is the run's budget for the whole process, when there is one.
	mem *budget.Memory
}

// fits reports whether a memo may take bytes more: within the memos'
// limit, and within what the process may hold.
func (b *memBudget) fits(bytes int64) bool {
	return b.used.Load()+bytes <= b.limit && b.mem.Allow(bytes, "the memo") == nil
}

// charge moves a search's charge from *charged to now and reports whether
// the total is still within the limit.
func (b *memBudget) charge(charged *int64, now int64) bool {
	total := b.used.Add(now - *charged)
	*charged = now
	return total <= b.limit
}
