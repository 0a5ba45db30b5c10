// Command histcheck checks histories of concurrent operations for
// linearizability, sequential and causal consistency and the session
// guarantees. See "histcheck check --help".
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/histcheck/histcheck/cli"
)

func main() {
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
	os.Exit(cli.MainContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
