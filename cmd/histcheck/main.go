// Command histcheck checks histories of concurrent operations for
// linearizability, sequential and causal consistency and the session
// guarantees. See "histcheck check --help".
package main

import (
	"os"

	"github.com/histcheck/histcheck/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
