// Command histcheck checks histories of concurrent operations for
// linearizability, sequential and causal consistency and the session
// guarantees. See "histcheck check --help".
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"github.com/histcheck/histcheck/cli"
	"github.com/histcheck/histcheck/internal/hugepages"
)

func main() {
	stopAdvice := hugepages.Start()
	collectLateAtFirst()
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		// The first signal stops the checks and lets histcheck print what it
		// knows; a second one ends the process at once.
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		cancel(cli.ErrInterrupted)
	}()
	code := cli.MainContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stopAdvice()
	os.Exit(code)
}

// collectLateAtFirst lets the heap reach four times the collector's usual
// first goal before its first cycle, and restores the usual pace (GOGC)
// once that cycle has run. Checking a small file allocates a few
// megabytes and exits: the cycles at 4 MB cost such a run more than a
// tenth of its time and return nothing it needs. A large run pays one
// cycle later than usual, at 16 MB, and nothing after. GOGC set in the
// environment is left as it is.
func collectLateAtFirst() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	prev := debug.SetGCPercent(400)
	// The cleanup runs after the first cycle that finds the sentinel
	// unreachable, which is the first cycle.
	sentinel := &struct {
		next *int
		pad  [4]int
	}{}
	runtime.AddCleanup(sentinel, func(p int) { debug.SetGCPercent(p) }, prev)
}
