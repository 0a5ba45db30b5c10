package format

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// AWDITTest is AWDIT's test format.
const AWDITTest = "awdit-test"

// awditTestFormat is the format of AWDIT's test histories
// (histories/tests/): one read or write per line, "r KEY VALUE" or
// "w KEY VALUE", a line of dashes between a session's transactions and a
// line of equals signs between sessions. Initial writes are explicit:
// every value read is written by some transaction (a first session
// usually writes 0 to every key).
var awditTestFormat = Format{
	Name:         AWDITTest,
	Transactions: true,
	Summary:      "AWDIT's tests: r|w KEY VALUE lines, ----- between transactions, ===== between sessions",
	Sniff:        sniffAWDIT,
	Read:         streamed(readAWDIT),
	Write:        buffered(writeAWDIT),
}

const awditShape = "r KEY VALUE or w KEY VALUE (non-negative integers), ----- between transactions or ===== between sessions"

// sniffAWDIT claims input whose first lines are AWDIT lines, among them
// at least one read or write.
func sniffAWDIT(head []byte) int {
	ops, lines := 0, 0
	for len(head) > 0 && lines < 8 {
		line, rest, full := bytes.Cut(head, []byte("\n"))
		head = rest
		if !full && len(rest) == 0 && lines > 0 {
			break
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		lines++
		switch awditSeparator(line) {
		case '-', '=':
			continue
		}
		if _, err := parseAWDITLine(line); err != nil {
			return 0
		}
		ops++
	}
	if ops == 0 {
		return 0
	}
	return 5
}

// awditSeparator says whether a (trimmed) line is a separator: '-' for
// one of dashes only, '=' for one of equals signs only, else 0. AWDIT
// splits its input at every '=' and '-', so any number of them
// separates.
func awditSeparator(line []byte) byte {
	if len(line) == 0 || (line[0] != '-' && line[0] != '=') {
		return 0
	}
	for _, c := range line {
		if c != line[0] {
			return 0
		}
	}
	return line[0]
}

// parseAWDITLine reads "r KEY VALUE" or "w KEY VALUE" (spaces or tabs
// between), byte by byte: histories run to millions of lines.
func parseAWDITLine(line []byte) (plumeLine, error) {
	var l plumeLine
	var f [3][]byte
	n := 0
	for i := 0; i < len(line); {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if j > i {
			if n == 3 {
				n++
				break
			}
			f[n] = line[i:j]
			n++
		}
		i = j
	}
	if n != 3 || len(f[0]) != 1 || (f[0][0] != 'r' && f[0][0] != 'w') {
		return l, fmt.Errorf("expected %s, got %s", awditShape, history.Quote(string(line)))
	}
	l.write = f[0][0] == 'w'
	var ok bool
	if l.key, ok = parseUint(f[1]); !ok {
		return l, fmt.Errorf("the key %s is not a non-negative integer (expected %s)", history.Quote(string(f[1])), awditShape)
	}
	if l.val, ok = parseUint(f[2]); !ok {
		return l, fmt.Errorf("the value %s is not a non-negative integer (expected %s)", history.Quote(string(f[2])), awditShape)
	}
	return l, nil
}

// readAWDIT reads AWDIT's test format. Sessions are named 0, 1, … in
// file order; empty transactions and sessions are left out, as AWDIT
// leaves them out.
func readAWDIT(r io.Reader) (*history.History, error) {
	lr := newLineReader(r, RecordLimit)
	b := &sessionBuilder{}
	if n := sizeHint(r) / 8; n > 0 {
		b.mops = make([]rawMop, 0, n) // "r 1 2\n": about one operation for every 8 bytes
	}
	names := map[string]int32{}
	sess, open := int32(-1), false // the current session; whether a transaction is open
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(line) == 0 || line[0] <= ' ' || line[len(line)-1] <= ' ' {
			if line = bytes.TrimSpace(line); len(line) == 0 {
				continue
			}
		}
		switch awditSeparator(line) {
		case '-':
			open = false
			continue
		case '=':
			open, sess = false, -1
			continue
		}
		l, err := parseAWDITLine(line)
		if err != nil {
			return nil, history.Errorf(lr.line, "%v", err)
		}
		if sess < 0 {
			sess = b.session(strconv.Itoa(len(b.names)), names)
		}
		if !open {
			n := int32(len(b.mops))
			b.txns = append(b.txns, rawTxn{session: sess, status: history.OK, from: n, to: n, line: lr.line})
			open = true
		}
		m := rawMop{key: l.key, val: l.val}
		if l.write {
			m.flags = mopWrite
		}
		b.mops = append(b.mops, m)
		b.txns[len(b.txns)-1].to++
	}
	return b.build()
}

// writeAWDIT writes h's committed read/write transactions in AWDIT's test
// format. Its initial writes being explicit, a history that reads the
// initial state (nil) gets a first session of one transaction writing 0
// to each key read so. It refuses aborted transactions, which the format
// cannot hold.
func writeAWDIT(w *bufio.Writer, h *history.History) error {
	ss, err := sessionsOf(h)
	if err != nil {
		return err
	}
	zeros := zeroWritten(ss)
	var initKeys []history.Value
	inited := map[history.Value]bool{}
	for _, s := range ss {
		for _, t := range s.txns {
			o := &h.Ops[t.op]
			if t.status == history.Fail {
				return fmt.Errorf("operation %s aborted; AWDIT's test format holds committed transactions only", o.Label())
			}
			for _, m := range t.mops {
				if m.Kind == txn.Read && m.Value.IsNil() && !inited[m.Key] {
					if zeros[m.Key] {
						return fmt.Errorf("operation %s reads nil (the initial state) of key %s, which a transaction also writes 0 to: "+
							"this format writes the initial state as an explicit write of 0, so the two could not be told apart", o.Label(), m.Key)
					}
					inited[m.Key] = true
					initKeys = append(initKeys, m.Key)
				}
			}
		}
	}
	sort.Slice(initKeys, func(i, j int) bool { return history.Compare(initKeys[i], initKeys[j]) < 0 })
	first := true
	sep := func(s string) {
		if !first {
			w.WriteString(s)
		}
		first = false
	}
	if len(initKeys) > 0 {
		sep("")
		for _, k := range initKeys {
			kt, err := uintText(k, &h.Ops[0], "key")
			if err != nil {
				return err
			}
			w.WriteString("w " + kt + " 0\n")
		}
	}
	for _, s := range ss {
		sep("=====\n")
		for i, t := range s.txns {
			if i > 0 {
				w.WriteString("-----\n")
			}
			if err := writeAWDITTxn(w, h, t); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeAWDITTxn(w *bufio.Writer, h *history.History, t wtxn) error {
	o := &h.Ops[t.op]
	for _, m := range t.mops {
		k, err := uintText(m.Key, o, "key")
		if err != nil {
			return err
		}
		val := m.Value
		if val.IsNil() && m.Kind == txn.Read {
			val = zero
		}
		v, err := uintText(val, o, "value")
		if err != nil {
			return err
		}
		f := "r "
		if m.Kind == txn.Write {
			f = "w "
		}
		w.WriteString(f + k + " " + v + "\n")
	}
	return nil
}
