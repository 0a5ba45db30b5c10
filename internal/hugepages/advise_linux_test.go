//go:build linux && (amd64 || arm64)

package hugepages

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"
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

// TestPopulate checks that populate faults in a mapping step by step and
// stops at the first step not wholly mapped (here an inaccessible one, as
// the runtime's reserved heap is), at its limit, and when done is closed;
// and that faulting in keeps what the pages hold.
func TestPopulate(t *testing.T) {
	const steps = 4
	mem, err := syscall.Mmap(-1, 0, (steps+1)*populateStep, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Skip("mmap:", err)
	}
	defer func() { _ = syscall.Munmap(mem) }()
	if err := syscall.Mprotect(mem[steps*populateStep:], syscall.PROT_NONE); err != nil {
		t.Fatal(err)
	}
	mem[1] = 7
	start := uintptr(unsafe.Pointer(&mem[0]))
	if got := populate(start, start+2*populateStep, nil); got != start+2*populateStep {
		t.Errorf("with a limit of two steps: stopped at step %d", (got-start)/populateStep)
	}
	closed := make(chan struct{})
	close(closed)
	if got := populate(start, start+steps*populateStep, closed); got != start {
		t.Errorf("done closed: stopped at step %d, want 0", (got-start)/populateStep)
	}
	got := populate(start, start+64*populateStep, nil)
	if got == start {
		t.Skip("this kernel does not fault in on advice (MADV_POPULATE_WRITE)")
	}
	if got != start+steps*populateStep {
		t.Fatalf("stopped at step %d, want %d (the inaccessible one)", (got-start)/populateStep, steps)
	}
	resident, err := residentPages(mem[:steps*populateStep])
	if err != nil {
		t.Fatal(err)
	}
	if want := steps * populateStep / os.Getpagesize(); resident != want {
		t.Errorf("%d pages resident after faulting in, want %d", resident, want)
	}
	if mem[1] != 7 || mem[2] != 0 {
		t.Errorf("faulting in changed the memory: %d %d", mem[1], mem[2])
	}
}

// residentPages counts the pages of b that are in memory (mincore).
func residentPages(b []byte) (int, error) {
	vec := make([]byte, (len(b)+os.Getpagesize()-1)/os.Getpagesize())
	_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		return 0, errno
	}
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n, nil
}
