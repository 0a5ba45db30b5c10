// Command pgrecord records a Jepsen list-append history from a running
// PostgreSQL server: concurrent clients run random transactions of appends
// and reads at one isolation level, and every invocation and completion is
// written as a Jepsen EDN event, for histcheck to check.
//
// Each client drives one psql process over its standard input and reads
// the results back between \echo markers, so that the recorder needs
// nothing beyond PostgreSQL's own client and the Go standard library. The
// SQL is that of Jepsen's PostgreSQL list-append workload: a list is a
// comma-separated text value, an append an upsert that concatenates, a
// read a select of the row.
//
//	pgrecord -port 5432 -isolation repeatable-read -clients 8 -keys 4 -txns 2000 -out h.edn.gz
//
// scripts/postgres-record starts a throwaway server and runs it.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err == nil {
		err = record(cfg, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgrecord:", err)
		os.Exit(1)
	}
}

// config is what one recording is asked for.
type config struct {
	psql      string // the psql command
	host      string
	port      int
	user      string
	db        string
	level     string // an isolation level as PostgreSQL spells it
	clients   int
	keys      int // keys in play at once
	maxWrites int // appends to a key before a fresh key replaces it
	maxMops   int // micro-operations per transaction: 1 to maxMops
	reads     float64
	txns      int
	seed      int64
	kill      time.Duration // how often a random client's connection is terminated; 0 for never
	out       string
}

// levels maps the flag's names to PostgreSQL's.
var levels = map[string]string{
	"serializable":     "SERIALIZABLE",
	"repeatable-read":  "REPEATABLE READ",
	"read-committed":   "READ COMMITTED",
	"read-uncommitted": "READ UNCOMMITTED",
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("pgrecord", flag.ContinueOnError)
	fs.StringVar(&c.psql, "psql", "psql", "the psql command")
	fs.StringVar(&c.host, "host", "127.0.0.1", "server address")
	fs.IntVar(&c.port, "port", 5432, "server port")
	fs.StringVar(&c.user, "user", "postgres", "database user")
	fs.StringVar(&c.db, "db", "postgres", "database")
	level := fs.String("isolation", "serializable", "serializable, repeatable-read, read-committed or read-uncommitted")
	fs.IntVar(&c.clients, "clients", 8, "concurrent clients")
	fs.IntVar(&c.keys, "keys", 4, "keys in play at once")
	fs.IntVar(&c.maxWrites, "max-writes-per-key", 32, "appends to a key before a fresh key replaces it")
	fs.IntVar(&c.maxMops, "max-txn-length", 4, "most micro-operations in a transaction")
	fs.Float64Var(&c.reads, "read-ratio", 0.5, "share of micro-operations that are reads")
	fs.IntVar(&c.txns, "txns", 1000, "transactions to run")
	fs.Int64Var(&c.seed, "seed", 1, "seed of the transactions' generator")
	fs.DurationVar(&c.kill, "kill-interval", 0, "terminate a random client's connection this often (0: never), so that some outcomes are unknown")
	fs.StringVar(&c.out, "out", "-", "history file (EDN; gzip when it ends in .gz; - for standard output)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	var ok bool
	if c.level, ok = levels[*level]; !ok {
		return c, fmt.Errorf("-isolation %q: want serializable, repeatable-read, read-committed or read-uncommitted", *level)
	}
	switch {
	case c.clients < 1, c.keys < 1, c.maxWrites < 1, c.maxMops < 1, c.txns < 0, c.kill < 0:
		return c, fmt.Errorf("-clients, -keys, -max-writes-per-key and -max-txn-length must be positive, -txns and -kill-interval not negative")
	case c.reads < 0 || c.reads > 1:
		return c, fmt.Errorf("-read-ratio %v: want 0 to 1", c.reads)
	}
	return c, nil
}
