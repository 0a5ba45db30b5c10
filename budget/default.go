package budget

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
)

// fallback is the budget when the machine's memory cannot be read.
const fallback = 4 << 30

// unlimited is the smallest figure cgroups use for "no limit": version 1
// writes a page-aligned 2^63-1, version 2 the word "max".
const unlimited = 1 << 62

// Default returns the budget a run gets when none is asked for: the memory
// limit of the control group the process runs in (a container's limit)
// when there is one, else a quarter of the machine's memory, and never more
// than the address space a ulimit -v leaves beyond what the process has
// already mapped (Go reserves address space well beyond what it uses). It
// reads the machine each time it is called.
func Default() int64 {
	as := addressLimit()
	if as > 0 {
		if mapped := mappedSpace(); mapped > 0 {
			as = max(as-mapped-spaceMargin, 1<<20)
		} else {
			as /= 2
		}
	}
	return defaultFrom(os.DirFS("/"), as)
}

// defaultFrom is Default reading the files under root, with as the
// address space left for the heap (0: no limit).
func defaultFrom(root fs.FS, as int64) int64 {
	limit := cgroupLimit(root)
	if limit <= 0 {
		if total, err := memTotal(root); err == nil && total > 0 {
			limit = total / 4
		} else {
			limit = fallback
		}
	}
	if as > 0 && as < limit {
		limit = as
	}
	return limit
}

// cgroupLimit returns the memory limit of the process's control group,
// version 2 or 1, or 0 when it has none or it cannot be read.
func cgroupLimit(root fs.FS) int64 {
	data, err := fs.ReadFile(root, "proc/self/cgroup")
	if err != nil {
		return 0
	}
	best := int64(0)
	for _, line := range strings.Split(string(data), "\n") {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var file []string
		switch {
		case parts[0] == "0" && parts[1] == "":
			file = []string{path.Join("sys/fs/cgroup", parts[2], "memory.max"), "sys/fs/cgroup/memory.max"}
		case hasController(parts[1], "memory"):
			file = []string{path.Join("sys/fs/cgroup/memory", parts[2], "memory.limit_in_bytes"), "sys/fs/cgroup/memory/memory.limit_in_bytes"}
		default:
			continue
		}
		if n := firstLimit(root, file); n > 0 && (best == 0 || n < best) {
			best = n
		}
	}
	return best
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// firstLimit reads the first of files that exists: a byte count, or 0 for
// "max", an unlimited figure or an unreadable file. Inside a container the
// group's own path is often not mounted, and the mount's root is the group.
func firstLimit(root fs.FS, files []string) int64 {
	for _, f := range files {
		data, err := fs.ReadFile(root, strings.TrimPrefix(path.Clean(f), "/"))
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64)
		if err != nil || n >= unlimited || n <= 0 {
			return 0
		}
		return n
	}
	return 0
}

// memTotal reads MemTotal, in bytes, from proc/meminfo.
func memTotal(root fs.FS) (int64, error) {
	f, err := root.Open("proc/meminfo")
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
			return 0, fmt.Errorf("reading meminfo: %w", err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no MemTotal in meminfo")
}
