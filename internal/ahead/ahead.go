// Package ahead works through a list a few items ahead of the caller: the
// work on each item runs on its own goroutine, and the caller uses the
// results in the list's order, so that what it prints reads as if the
// items had been done one after the other.
package ahead

import (
	"os"
	"runtime"
	"sync"
)

// Do calls work(i) for each i from 0 to n-1 and use(i, result) in order of
// i on the calling goroutine. The work runs on up to workers goroutines at
// once, at most workers items ahead of the item in use; with workers below
// 2 each item is worked on and used in turn on the calling goroutine. When
// use returns an error no more work is started; Do waits for the work
// started and returns the error.
func Do[T any](n, workers int, work func(i int) T, use func(i int, t T) error) error {
	if workers < 2 {
		for i := 0; i < n; i++ {
			if err := use(i, work(i)); err != nil {
				return err
			}
		}
		return nil
	}
	results := make([]chan T, n)
	for i := range results {
		results[i] = make(chan T, 1)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	start := func(i int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] <- work(i)
		}()
	}
	next := 0
	for ; next < min(workers, n); next++ {
		start(next)
	}
	for i := 0; i < n; i++ {
		t := <-results[i]
		if next < n {
			start(next)
			next++
		}
		if err := use(i, t); err != nil {
			return err
		}
	}
	return nil
}

// Files is how many of files to read and check at once: with several
// files, each a regular file of at most maxSize bytes, as many as asked
// (workers, 0 for one per CPU) up to one per CPU; otherwise one. A large
// file may take much of the memory budget and the time limit, which its
// check should not share.
func Files(files []string, maxSize int64, workers int) int {
	cpus := runtime.NumCPU()
	if workers <= 0 || workers > cpus {
		workers = cpus
	}
	if len(files) < 2 || workers < 2 {
		return 1
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil || !st.Mode().IsRegular() || st.Size() > maxSize {
			return 1
		}
	}
	return workers
}
