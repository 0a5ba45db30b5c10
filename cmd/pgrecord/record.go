package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Jepsen's PostgreSQL list-append workload's statements, on one table.
const (
	createSQL = "DROP TABLE IF EXISTS lists; CREATE TABLE lists (k int PRIMARY KEY, v text);"
	appendSQL = "INSERT INTO lists AS t (k, v) VALUES (%d, '%d') ON CONFLICT (k) DO UPDATE SET v = t.v || ',' || excluded.v;"
	readSQL   = "SELECT v FROM lists WHERE k = %d;"
)

// outcome is how a transaction ended, as Jepsen names it.
type outcome string

const (
	ok      outcome = "ok"
	failed  outcome = "fail"
	unknown outcome = "info"
)

// statements is a transaction's SQL: BEGIN, one statement per
// micro-operation, COMMIT.
func statements(level string, txn []mop) []string {
	st := make([]string, 0, len(txn)+2)
	st = append(st, "BEGIN ISOLATION LEVEL "+level+";")
	for _, m := range txn {
		if m.append {
			st = append(st, fmt.Sprintf(appendSQL, m.key, m.val))
		} else {
			st = append(st, fmt.Sprintf(readSQL, m.key))
		}
	}
	return append(st, "COMMIT;")
}

// settle reads a transaction's outcome from its statements' results: the
// first statement that failed decides. Before COMMIT, an error aborts the
// transaction (fail), unless the connection was lost (08) or the server
// shut down (57), when the outcome is unknown; at COMMIT, only a
// serialization failure (40001) or deadlock (40P01) is known to abort it.
// A committed transaction's reads are filled in from their rows.
func settle(txn []mop, res []result) (outcome, error) {
	for i, r := range res {
		if r.state == "00000" {
			continue
		}
		lost := strings.HasPrefix(r.state, "08") || strings.HasPrefix(r.state, "57")
		switch {
		case i < len(res)-1 && !lost:
			return failed, nil
		case i == len(res)-1 && (r.state == "40001" || r.state == "40P01"):
			return failed, nil
		default:
			return unknown, nil
		}
	}
	for i := range txn {
		if txn[i].append {
			continue
		}
		vals, err := parseList(res[i+1].rows)
		if err != nil {
			return unknown, fmt.Errorf("read of key %d: %w", txn[i].key, err)
		}
		txn[i].vals = vals
	}
	return ok, nil
}

// parseList reads a row's comma-separated list; no row is nil.
func parseList(rows []string) ([]int, error) {
	switch len(rows) {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, fmt.Errorf("%d rows, want at most 1", len(rows))
	}
	parts := strings.Split(rows[0], ",")
	vals := make([]int, len(parts))
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("element %q: %w", p, err)
		}
		vals[i] = v
	}
	return vals, nil
}

// edn writes a transaction's value: reads are nil in an invocation (and
// in a failed or unknown completion, whose reads are not known).
func edn(txn []mop, withReads bool) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, m := range txn {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case m.append:
			fmt.Fprintf(&b, "[:append %d %d]", m.key, m.val)
		case !withReads || m.vals == nil:
			fmt.Fprintf(&b, "[:r %d nil]", m.key)
		default:
			fmt.Fprintf(&b, "[:r %d [", m.key)
			for j, v := range m.vals {
				if j > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(strconv.Itoa(v))
			}
			b.WriteString("]]")
		}
	}
	b.WriteByte(']')
	return b.String()
}

// journal writes events in the order they happen: each gets its time
// (nanoseconds since the recording began) and index under one lock.
type journal struct {
	mu    sync.Mutex
	w     *bufio.Writer
	start time.Time
	index int
	err   error
}

func (j *journal) event(typ outcome, process int, value string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	_, j.err = fmt.Fprintf(j.w, "{:type :%s, :f :txn, :value %s, :time %d, :process %d, :index %d}\n",
		typ, value, time.Since(j.start).Nanoseconds(), process, j.index)
	j.index++
}

// record sets up the table and runs the clients until the generator is
// done, writing the history to c.out and a summary to log.
func record(c config, log io.Writer) error {
	out, closeOut, err := openOut(c.out)
	if err != nil {
		return err
	}
	version, err := setup(c)
	if err != nil {
		return err
	}
	j := &journal{w: bufio.NewWriter(out), start: time.Now()}
	g := newGenerator(c)
	counts := make([]map[outcome]int, c.clients)
	errs := make([]error, c.clients)
	var wg sync.WaitGroup
	for i := 0; i < c.clients; i++ {
		counts[i] = map[outcome]int{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = client(c, i, g, j, counts[i])
		}()
	}
	stop := make(chan struct{})
	killed := make(chan error, 1)
	go func() { killed <- killer(c, stop) }()
	wg.Wait()
	close(stop)
	if err := errors.Join(append(errs, <-killed)...); err != nil {
		return err
	}
	if j.err == nil {
		j.err = j.w.Flush()
	}
	if err := errors.Join(j.err, closeOut()); err != nil {
		return fmt.Errorf("writing %s: %w", c.out, err)
	}
	total := map[outcome]int{}
	for _, m := range counts {
		for k, v := range m {
			total[k] += v
		}
	}
	fmt.Fprintf(log, "PostgreSQL %s, %s, %d clients, %d keys, seed %d: %d ok, %d fail, %d info\n",
		version, c.level, c.clients, c.keys, c.seed, total[ok], total[failed], total[unknown])
	return nil
}

// client runs transactions from g on its own psql session until g is done.
// Process i's operations carry process i, then i + clients, … after each
// transaction of unknown outcome, as Jepsen numbers a crashed client's
// successor, and a fresh session takes over.
func client(c config, i int, g *generator, j *journal, counts map[outcome]int) error {
	s, err := startSession(c)
	if err != nil {
		return err
	}
	defer func() { s.close() }()
	process := i
	for {
		txn, more := g.next()
		if !more {
			return nil
		}
		j.event("invoke", process, edn(txn, false))
		res, runErr := s.run(statements(c.level, txn))
		o := unknown
		if runErr == nil {
			if o, err = settle(txn, res); err != nil {
				return err
			}
		}
		j.event(o, process, edn(txn, o == ok))
		counts[o]++
		if runErr != nil {
			s.close()
			if s, err = startSession(c); err != nil {
				return err
			}
		}
		if o == unknown {
			process += c.clients
		}
	}
}

// killSQL terminates one client's connection, chosen at random, as a
// crash would: its transaction's outcome is then unknown.
const killSQL = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()" +
	" AND backend_type = 'client backend' AND pid <> pg_backend_pid() ORDER BY random() LIMIT 1;"

// killer terminates a random client's connection every c.kill until stop
// is closed; it does nothing when c.kill is 0.
func killer(c config, stop <-chan struct{}) error {
	if c.kill == 0 {
		return nil
	}
	s, err := startSession(c)
	if err != nil {
		return err
	}
	defer s.close()
	tick := time.NewTicker(c.kill)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return nil
		case <-tick.C:
			if _, err := s.run([]string{killSQL}); err != nil {
				return fmt.Errorf("terminating a connection: %w", err)
			}
		}
	}
}

// setup creates the table and returns the server's version.
func setup(c config) (string, error) {
	s, err := startSession(c)
	if err != nil {
		return "", err
	}
	defer s.close()
	res, err := s.run([]string{createSQL, "SHOW server_version;"})
	if err != nil {
		return "", fmt.Errorf("setting up the table: %w", err)
	}
	for _, r := range res {
		if r.state != "00000" {
			return "", fmt.Errorf("setting up the table: SQLSTATE %s (is the server at %s:%d up?)", r.state, c.host, c.port)
		}
	}
	if len(res[1].rows) != 1 {
		return "", fmt.Errorf("SHOW server_version: %d rows", len(res[1].rows))
	}
	return res[1].rows[0], nil
}

// openOut opens the history file, gzipped when its name ends in .gz.
func openOut(name string) (io.Writer, func() error, error) {
	if name == "-" {
		return os.Stdout, func() error { return nil }, nil
	}
	f, err := os.Create(name)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(name, ".gz") {
		return f, f.Close, nil
	}
	z := gzip.NewWriter(f)
	return z, func() error { return errors.Join(z.Close(), f.Close()) }, nil
}
