package elle

import (
	"runtime"
	"sync"
)

// workers is how many goroutines share work that splits into independent
// parts; parts are joined in their order, so results do not depend on it.
// It follows the processors, not GOMAXPROCS, which a run may widen only
// after it has started (histcheck keeps to one processor at first).
var workers = min(runtime.NumCPU(), 4)

// parallel runs f(0), …, f(n-1) on up to workers goroutines.
func parallel(n int, f func(i int)) {
	if n <= 1 || workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	wg.Wait()
}
