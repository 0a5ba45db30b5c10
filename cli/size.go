package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes --max-memory accepts, longest first so that
// "MiB" is not read as "B".
var sizeUnits = []struct {
	suffix string
	bytes  int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1},
}

// parseSize reads a memory size: a whole number of bytes, or a number with
// a unit (KB, MB, GB, TB in powers of ten; KiB, MiB, GiB, TiB or K, M, G, T
// in powers of two). "none" and 0 mean no limit (0 is returned).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "none") {
		return 0, nil
	}
	mult := int64(1)
	for _, u := range sizeUnits {
		if len(t) > len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			mult, t = u.bytes, strings.TrimSpace(t[:len(t)-len(u.suffix)])
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || f*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("want a size such as 2GB, 512MiB or a number of bytes, got %q", s)
	}
	return int64(f * float64(mult)), nil
}
