// Command bankcheck is histcheck with the bank model added: every command
// and flag of histcheck, and -m bank.
package main

// readme:begin cli

import (
	"os"

	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/cli"
	"github.com/histcheck/histcheck/examples/bank"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, suite.Bind(bank.New)))
}

// readme:end cli
