//go:build linux && (amd64 || arm64)

package hugepages

import (
	"os"
	"runtime/metrics"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

const (
	madvHugepage = 14       // MADV_HUGEPAGE in linux/mman.h
	arenaBytes   = 64 << 20 // the Go heap's arena size and alignment on 64-bit Linux
	span         = 64 << 30 // the address space advised above the first arena
	mapped       = "/memory/classes/total:bytes"
	fastest      = time.Millisecond
	slowest      = 64 * time.Millisecond
)

// Start advises the heap now and, until stop is called, again each time
// the runtime has mapped more memory: polled every millisecond while the
// heap grows, less often (down to every 64 ms) while it does not, so that
// a long quiet run costs next to nothing. Advice given to an address range
// that is not mapped, or to a system without transparent huge pages, is
// ignored.
func Start() (stop func()) {
	if disabled() {
		return func() {}
	}
	base := heapBase()
	advise(base)
	done := make(chan struct{})
	go watch(base, done)
	return func() { close(done) }
}

// heapBase is the start of the arena holding a fresh heap object: the
// runtime maps later arenas above it.
func heapBase() uintptr {
	probe := make([]byte, 1<<17) // too large for the stack
	return uintptr(unsafe.Pointer(&probe[0])) &^ (arenaBytes - 1)
}

// advise marks the range above base for huge pages. The kernel applies
// the advice to every mapping in the range and reports ENOMEM for the
// gaps, which is expected here.
func advise(base uintptr) {
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, base, span, madvHugepage)
}

// watch re-advises the range whenever the runtime's mapped memory has
// grown since the last advice, until done is closed.
func watch(base uintptr, done <-chan struct{}) {
	sample := []metrics.Sample{{Name: mapped}}
	last := read(sample)
	wait := fastest
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-done:
			return
		case <-timer.C:
		}
		if now := read(sample); now > last {
			advise(base)
			last, wait = now, fastest
		} else {
			wait = min(2*wait, slowest)
		}
		timer.Reset(wait)
	}
}

func read(sample []metrics.Sample) uint64 {
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

// disabled reports whether the user turned huge pages off for this
// process with the Go runtime's own setting, GODEBUG=disablethp=1.
func disabled() bool {
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		if strings.TrimSpace(kv) == "disablethp=1" {
			return true
		}
	}
	return false
}
