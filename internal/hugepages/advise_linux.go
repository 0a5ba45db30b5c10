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
	madvHugepage = 14        // MADV_HUGEPAGE in linux/mman.h
	madvPopulate = 23        // MADV_POPULATE_WRITE in linux/mman.h (Linux 5.14)
	populateStep = 256 << 10 // the pages faulted in by one call: small, to stay just ahead of the allocator
	arenaBytes   = 64 << 20  // the Go heap's arena size and alignment on 64-bit Linux
	span         = 64 << 30  // the address space advised above the first arena
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
//
// The same goroutine faults in, ahead of the allocator, the heap memory
// the runtime has mapped but not yet used (see populate), once each: on a
// machine with a second processor the faults are then taken there, while
// the program works.
func Start() (stop func()) {
	if disabled() {
		return func() {}
	}
	base, from := heapBase()
	advise(base)
	done := make(chan struct{})
	go watch(base, from, done)
	return func() { close(done) }
}

// heapBase is the start of the arena holding a fresh heap object, above
// which the runtime maps later arenas, and the step holding the object,
// where the heap's unused memory begins.
func heapBase() (base, from uintptr) {
	probe := make([]byte, 1<<17) // too large for the stack
	at := uintptr(unsafe.Pointer(&probe[0]))
	return at &^ (arenaBytes - 1), at &^ (populateStep - 1)
}

// populate faults in the pages mapped from next on, step by step, up to
// limit or the first step that is not wholly mapped read-write (the
// runtime reserves the heap's address space inaccessible and maps it as
// it grows), and returns where it stopped; it stops early once done is
// closed. Pages already present are left as they are, and a fresh page
// reads as zero either way, as the runtime expects of memory it mapped,
// so faulting in concurrently with the allocator changes no content.
// Each range is faulted in once: memory the runtime later returns to the
// system stays returned. A kernel without MADV_POPULATE_WRITE refuses
// the first step.
func populate(next, limit uintptr, done <-chan struct{}) uintptr {
	for next < limit {
		select {
		case <-done:
			return next
		default:
		}
		_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, next, populateStep, madvPopulate)
		if errno != 0 {
			return next
		}
		next += populateStep
	}
	return next
}

// advise marks the range above base for huge pages. The kernel applies
// the advice to every mapping in the range and reports ENOMEM for the
// gaps, which is expected here.
func advise(base uintptr) {
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, base, span, madvHugepage)
}

// watch faults in the heap's unused memory from next on, then re-advises
// the range and faults in what is new whenever the runtime's mapped
// memory has grown since, until done is closed.
func watch(base, next uintptr, done <-chan struct{}) {
	sample := []metrics.Sample{{Name: mapped}}
	last := read(sample)
	next = populate(next, base+span, done)
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
			next = populate(next, base+span, done)
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
