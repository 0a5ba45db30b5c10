package main

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
)

// marker starts the line psql echoes after each statement, followed by
// the statement's SQLSTATE (00000 when it succeeded).
const marker = "@@histcheck "

// session is one psql process: statements go to its standard input, and
// each statement's output lines and SQLSTATE come back on its output.
type session struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startSession(c config) (*session, error) {
	cmd := exec.Command(c.psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=0",
		"-h", c.host, "-p", strconv.Itoa(c.port), "-U", c.user, "-d", c.db)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard // errors are read from SQLSTATE
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", c.psql, err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	return &session{cmd: cmd, in: in, out: sc}, nil
}

// result is one statement's output rows and SQLSTATE.
type result struct {
	rows  []string
	state string
}

// run sends the statements at once and reads back each one's result; an
// error means the session is broken (psql exited or its output ended).
func (s *session) run(stmts []string) ([]result, error) {
	var b strings.Builder
	for _, st := range stmts {
		b.WriteString(st)
		b.WriteString("\n\\echo " + marker + ":SQLSTATE\n")
	}
	if _, err := io.WriteString(s.in, b.String()); err != nil {
		return nil, fmt.Errorf("writing to psql: %w", err)
	}
	res := make([]result, 0, len(stmts))
	var rows []string
	for len(res) < len(stmts) {
		if !s.out.Scan() {
			if err := s.out.Err(); err != nil {
				return res, fmt.Errorf("reading psql: %w", err)
			}
			return res, io.ErrUnexpectedEOF
		}
		line := s.out.Text()
		if state, ok := strings.CutPrefix(line, marker); ok {
			res = append(res, result{rows: rows, state: state})
			rows = nil
			continue
		}
		rows = append(rows, line)
	}
	return res, nil
}

// close ends psql and waits for it.
func (s *session) close() {
	_ = s.in.Close()
	_ = s.cmd.Wait()
}
