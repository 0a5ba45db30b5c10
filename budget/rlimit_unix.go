//go:build unix

package budget

import "syscall"

// addressLimit returns the address space limit (ulimit -v), or 0. "No
// limit" is all ones, which the bound below also catches.
func addressLimit() int64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur >= 1<<62 {
		return 0
	}
	return int64(r.Cur)
}
