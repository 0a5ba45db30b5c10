//go:build linux && (amd64 || arm64)

package hugepages

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// TestAdvisesGrownHeap checks that memory the runtime maps after Start is
// advised: each mapping holding one of many large fresh allocations,
// which grow the heap by new arenas, carries the kernel's huge-page flag
// ("hg" in /proc/self/smaps) while the test waits.
func TestAdvisesGrownHeap(t *testing.T) {
	if _, err := os.Stat("/proc/self/smaps"); err != nil {
		t.Skip("no /proc/self/smaps")
	}
	t.Setenv("GODEBUG", "")
	stop := Start()
	defer stop()
	var bufs [][]byte
	for range 16 {
		buf := make([]byte, 64<<20)
		bufs = append(bufs, buf)
		time.Sleep(2 * time.Millisecond)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, buf := range bufs {
		addr := uintptr(unsafe.Pointer(&buf[len(buf)/2]))
		for {
			flags, err := vmFlags(addr)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(" "+flags+" ", " hg ") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the heap mapping at %#x is not advised: VmFlags %q", addr, flags)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// vmFlags returns the VmFlags line of the mapping that holds addr.
func vmFlags(addr uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		first, _, _ := strings.Cut(line, " ")
		if n, _ := fmt.Sscanf(first, "%x-%x", &lo, &hi); n == 2 && !strings.HasSuffix(first, ":") {
			in = lo <= addr && addr < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x", addr)
}

func TestDisabled(t *testing.T) {
	for _, tc := range []struct {
		godebug string
		want    bool
	}{
		{"", false},
		{"disablethp=1", true},
		{"gctrace=1, disablethp=1", true},
		{"disablethp=0", false},
		{"madvdontneed=1", false},
	} {
		t.Setenv("GODEBUG", tc.godebug)
		if got := disabled(); got != tc.want {
			t.Errorf("GODEBUG=%q: disabled %v, want %v", tc.godebug, got, tc.want)
		}
	}
}
