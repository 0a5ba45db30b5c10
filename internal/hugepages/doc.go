// Package hugepages asks the operating system to back the Go heap with
// transparent huge pages (2 MB) where it leaves them to the program's
// advice, as Linux does by default ("madvise" mode).
//
// A large check touches gigabytes of fresh heap, and on virtual machines
// each first touch of a 4 KB page is an expensive fault: a 1,000,000
// transaction list-append check took 426,000 faults and up to half its
// processor time in the kernel. Advised heap takes one fault per 2 MB.
// The Go runtime gives no such advice for the heap itself, so the
// advisor gives it from outside: for the address range above the heap's
// first arena, once at start and again whenever the runtime has mapped
// more memory.
//
// The same goroutine also faults in the heap memory the runtime has
// mapped and not yet used, ahead of the allocator, so that a second
// processor takes the faults while the first works: a small check
// (Porcupine's c50-bad, 2,000 operations) took about 900 faults on its
// one busy thread, and its wall time fell by about 2 ms of 34.
package hugepages
