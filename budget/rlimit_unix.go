//go:build unix

package budget

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// addressLimit returns the address space limit (ulimit -v), or 0. "No
// limit" is all ones, which the bound below also catches.
func addressLimit() int64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur >= 1<<62 {
		return 0
	}
	return int64(r.Cur)
}

// mappedSpace returns the address space the process has mapped (VmSize),
// or 0 where it cannot be read.
func mappedSpace() int64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	pages, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
