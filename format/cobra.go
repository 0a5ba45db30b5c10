package format

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/histcheck/histcheck/history"
)

// Cobra is Cobra's binary client log.
const Cobra = "cobra"

// cobraFormat is the binary log Cobra's clients write, one file per
// session (T0.log, T1.log, … in one folder), as PolySI and AWDIT read
// them: records of a byte and big-endian 64-bit integers, 'S' txn (start),
// 'W' write-id key value (a write), 'R' writer-txn write-id key value (a
// read of that write), 'C' txn (commit). A write's id is unique, so it is
// the value histcheck reads and writes; a read whose writer is Cobra's
// initial or null marker (0xbebeebee, 0xdeadbeef) reads the initial state.
// A folder of such logs is one history (ReadLogFolder); a single log, named
// with --format cobra, is a history of one session. Being binary, it is
// never detected by content.
var cobraFormat = Format{
	Name:         Cobra,
	Summary:      "Cobra's binary client log of one session (a folder of T*.log files is one history)",
	Transactions: true,
	Read: func(r io.Reader) (Result, error) {
		b := &sessionBuilder{}
		if err := b.cobraLog(r, "0"); err != nil {
			return Result{}, err
		}
		h, err := b.build()
		return Result{History: h}, err
	},
}

// Cobra's markers of the initial state, in place of a writer.
const (
	cobraInit = 0xbebeebee
	cobraNull = 0xdeadbeef
)

// cobraLog reads one session's log into b.
func (b *sessionBuilder) cobraLog(r io.Reader, session string) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		if bb, isB := r.(*budgeted); isB {
			r = bb.r
		}
		if br, ok = r.(*bufio.Reader); !ok {
			br = bufio.NewReaderSize(r, 64<<10)
		}
	}
	s := b.session(session, b.sessionIndex())
	var buf [32]byte
	open := false
	var txnID int64
	rec := 0
	for {
		tag, err := br.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return readFailed(err, -1, "reading Cobra's log")
		}
		rec++
		width := 0
		switch tag {
		case 'S', 'C':
			width = 8
		case 'W':
			width = 24
		case 'R':
			width = 32
		}
		if width == 0 {
			return history.Errorf(0, "record %d of session %s: unknown record %s; expected S, W, R or C", rec, session, history.Quote(string(rune(tag))))
		}
		if _, err := io.ReadFull(br, buf[:width]); err != nil {
			return history.Errorf(0, "record %d (%c) of session %s is cut short", rec, tag, session)
		}
		n := func(i int) int64 { return int64(binary.BigEndian.Uint64(buf[8*i:])) }
		switch tag {
		case 'S':
			if open {
				return history.Errorf(0, "record %d of session %s starts transaction %d while %d has not committed", rec, session, n(0), txnID)
			}
			open, txnID = true, n(0)
			b.txns = append(b.txns, rawTxn{session: s, status: history.OK, from: int32(len(b.mops)), to: int32(len(b.mops)), id: txnID})
		case 'C':
			if !open || n(0) != txnID {
				return history.Errorf(0, "record %d of session %s commits transaction %d, which is not the one running", rec, session, n(0))
			}
			open = false
		case 'W', 'R':
			if !open {
				return history.Errorf(0, "record %d of session %s (%c) is outside a transaction", rec, session, tag)
			}
			m := rawMop{flags: mopWrite, key: n(1), val: n(0)}
			if tag == 'R' {
				m = rawMop{key: n(2), val: n(1)}
				if w := n(1); w == cobraInit || w == cobraNull {
					m.flags = mopNil
				}
			}
			b.mops = append(b.mops, m)
			b.txns[len(b.txns)-1].to = int32(len(b.mops))
		}
	}
	if open {
		return history.Errorf(0, "session %s ends inside transaction %d, which never committed", session, txnID)
	}
	return nil
}

// sessionIndex maps the builder's session names to their indices.
func (b *sessionBuilder) sessionIndex() map[string]int32 {
	m := make(map[string]int32, len(b.names))
	for i, n := range b.names {
		m[n] = int32(i)
	}
	return m
}

// LogFolder reports whether dir is a folder of Cobra's client logs: one
// or more .log files, each empty or starting a transaction, and nothing
// else but subfolders.
func LogFolder(dir string) bool {
	logs, err := cobraLogs(dir)
	return err == nil && len(logs) > 0
}

// cobraLogs lists a Cobra log folder's logs, sorted, or says why it is not one.
func cobraLogs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var logs []string
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if !strings.HasSuffix(e.Name(), ".log") {
			return nil, fmt.Errorf("%s is not a log", e.Name())
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		var first [1]byte
		n, _ := f.Read(first[:])
		f.Close()
		if n == 1 && first[0] != 'S' {
			return nil, fmt.Errorf("%s does not start a transaction", e.Name())
		}
		logs = append(logs, p)
	}
	if len(logs) == 0 {
		return nil, errors.New("no logs")
	}
	sort.Strings(logs)
	return logs, nil
}

// ReadLogFolder reads a folder of Cobra's client logs (see LogFolder) as
// one history, each log a session named by its file (T0 for T0.log).
func ReadLogFolder(dir string) (Result, error) {
	logs, err := cobraLogs(dir)
	if err != nil {
		return Result{}, &history.InputError{File: dir, Msg: fmt.Sprintf("not a folder of Cobra's logs: %v", err)}
	}
	b := &sessionBuilder{}
	for _, p := range logs {
		f, err := os.Open(p)
		if err != nil {
			return Result{}, &history.InputError{File: p, Msg: fmt.Sprintf("cannot open: %v", errors.Unwrap(err))}
		}
		err = b.cobraLog(bufio.NewReaderSize(f, 64<<10), strings.TrimSuffix(filepath.Base(p), ".log"))
		f.Close()
		if err != nil {
			var ie *history.InputError
			if errors.As(err, &ie) {
				out := *ie
				out.File = p
				return Result{}, &out
			}
			return Result{}, &history.InputError{File: p, Msg: err.Error()}
		}
	}
	h, err := b.build()
	if err != nil {
		return Result{}, &history.InputError{File: dir, Msg: err.Error()}
	}
	return Result{History: h, Format: Cobra, Chosen: ByContent}, nil
}
