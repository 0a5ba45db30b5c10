//go:build !unix

package check_test

import "time"

// cpuTime is not measured here: a benchmark's processor time reads 0.
func cpuTime() time.Duration { return 0 }
