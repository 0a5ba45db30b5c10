package linear

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// errMemory stops a search whose memos outgrew Options.MaxMemory.
var errMemory = errors.New("memo exceeded the memory limit")

// sizeText writes a memory limit in the unit that states it exactly, so
// that --max-memory 16MB reads back as 16 MB and 512MiB as 512 MiB: GiB
// and MiB are powers of 1024, GB and MB powers of 1000. Other sizes are
// given in MiB to a tenth.
func sizeText(n int64) string {
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

// fallbackMemory is the memory limit when the machine's memory cannot be
// read.
const fallbackMemory = 4 << 30

// DefaultMaxMemory returns the memory limit used when Options.MaxMemory is
// 0: a quarter of the machine's physical memory (4 GiB where that cannot be
// read), leaving room for the history itself and for other processes.
func DefaultMaxMemory() int64 { return defaultMaxMemory() }

// defaultMaxMemory reads the machine's memory once per process: a check
// that shrinks a violation runs thousands of small searches, and opening
// /proc/meminfo for each cost more than the searches themselves.
var defaultMaxMemory = sync.OnceValue(func() int64 {
	total, err := memTotal("/proc/meminfo")
	if err != nil || total <= 0 {
		return fallbackMemory
	}
	return total / 4
})

// memTotal reads MemTotal, in bytes, from a meminfo file.
func memTotal(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			break
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("reading %s: %w", path, err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no MemTotal in %s", path)
}

// memBudget is the memory the memos of one Check may hold together; the
// searches of its partitions charge it as their memos grow.
type memBudget struct {
	limit int64
	used  atomic.Int64
}

// charge moves a search's charge from *charged to now and reports whether
// the total is still within the limit.
func (b *memBudget) charge(charged *int64, now int64) bool {
	total := b.used.Add(now - *charged)
	*charged = now
	return total <= b.limit
}
