package format

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// DBCopHist is dbcop's compact text.
const DBCopHist = "dbcop-hist"

// dbcopHistFormat is dbcop's compact text (.hist): a session's
// transactions on lines, each [x:=1 y==2 z==?] (a write, a read, a read of
// the initial state), [ … ]! for one that did not commit, a line of
// dashes between sessions, // comments. Its extension is the notation's
// too: a .hist file whose content is dbcop's is read as dbcop's.
var dbcopHistFormat = Format{
	Name:         DBCopHist,
	Summary:      "dbcop's compact text: [x:=1 y==1] transactions, --- between sessions",
	Transactions: true,
	Sniff:        sniffDBCopHist,
	Read:         streamed(readDBCopHist),
	Write:        buffered(writeDBCopHist),
}

// sniffDBCopHist claims input whose first line that is not blank, a
// comment or a separator starts a transaction with an event.
func sniffDBCopHist(head []byte) int {
	for len(head) > 0 {
		line, rest, _ := bytes.Cut(head, []byte("\n"))
		head = rest
		line = bytes.TrimSpace(line)
		if len(line) == 0 || bytes.HasPrefix(line, []byte("//")) || awditSeparator(line) == '-' {
			continue
		}
		if line[0] != '[' {
			return 0
		}
		var b sessionBuilder
		if _, _, err := b.dbcopEvent(line[1:]); err != nil {
			return 0
		}
		return 5
	}
	return 0
}

// readDBCopHist reads dbcop's compact text. Sessions are named 1, 2, …
// as dbcop numbers them; a variable of digits only is an integer key,
// any other a string.
func readDBCopHist(r io.Reader) (*history.History, error) {
	lr := newLineReader(r, RecordLimit)
	b := &sessionBuilder{zeroIsInit: true}
	if n := sizeHint(r) / 8; n > 0 {
		b.mops = make([]rawMop, 0, n) // "x==12 ": about one operation for every 8 bytes
	}
	names := map[string]int32{}
	session := 1
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0 || bytes.HasPrefix(line, []byte("//")):
			continue
		case awditSeparator(line) == '-':
			session++
			continue
		}
		s := b.session(strconv.Itoa(session), names)
		if err := b.dbcopLine(line, s, lr.line); err != nil {
			return nil, history.Errorf(lr.line, "%v", err)
		}
	}
	return b.build()
}

// dbcopLine reads a line of transactions.
func (b *sessionBuilder) dbcopLine(line []byte, s int32, at int) error {
	for len(line) > 0 {
		if line[0] != '[' {
			return fmt.Errorf("expected a transaction [x:=1 y==2 z==?], got %s", history.Quote(string(line)))
		}
		line = line[1:]
		t := rawTxn{session: s, status: history.OK, from: int32(len(b.mops)), line: at}
		for {
			line = bytes.TrimLeft(line, " \t")
			if len(line) > 0 && line[0] == ']' {
				line = line[1:]
				break
			}
			m, rest, err := b.dbcopEvent(line)
			if err != nil {
				return err
			}
			b.mops, line = append(b.mops, m), rest
		}
		if t.to = int32(len(b.mops)); t.to == t.from {
			return fmt.Errorf("an empty transaction []; dbcop's transactions hold at least one event")
		}
		if len(line) > 0 && line[0] == '!' {
			t.status, line = history.Fail, line[1:]
		}
		b.txns = append(b.txns, t)
		line = bytes.TrimLeft(line, " \t")
	}
	return nil
}

// dbcopEvent reads one event, x:=1, x==1 or x==?, and returns the rest of
// the line.
func (b *sessionBuilder) dbcopEvent(line []byte) (rawMop, []byte, error) {
	var m rawMop
	i := 0
	for i < len(line) {
		if c := line[i]; c < utf8.RuneSelf {
			// ASCII, the common case, without decoding.
			if c != '_' && (c < '0' || c > '9') && (c|0x20 < 'a' || c|0x20 > 'z') {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(line[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i += n
	}
	name, rest := line[:i], line[i:]
	switch {
	case i == 0:
		return m, nil, fmt.Errorf("expected an event (x:=1, x==1 or x==?), got %s", history.Quote(string(line)))
	case bytes.HasPrefix(rest, []byte(":=")):
		m.flags, rest = mopWrite, rest[2:]
	case bytes.HasPrefix(rest, []byte("==?")):
		m.key, m.flags = b.dbcopVariable(name, &m)
		m.flags |= mopNil
		return m, rest[3:], nil
	case bytes.HasPrefix(rest, []byte("==")):
		rest = rest[2:]
	default:
		return m, nil, fmt.Errorf("expected := or == after the variable %s, got %s", history.Quote(string(name)), history.Quote(string(line)))
	}
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	n, ok := parseUint(rest[:j])
	if !ok {
		return m, nil, fmt.Errorf("expected a version (a non-negative integer) in %s", history.Quote(string(line)))
	}
	m.val = n
	m.key, m.flags = b.dbcopVariable(name, &m)
	return m, rest[j:], nil
}

// dbcopVariable is a variable's key: an integer when it is digits only,
// so that integer keys come back as they were written.
func (b *sessionBuilder) dbcopVariable(name []byte, m *rawMop) (int64, uint8) {
	if n, ok := parseUint(name); ok {
		return n, m.flags
	}
	return b.strKey(string(name)), m.flags | mopStrKey
}

// writeDBCopHist writes h's read/write transactions in dbcop's compact
// text, one transaction a line, as dbcop fmt lays it out.
func writeDBCopHist(w *bufio.Writer, h *history.History) error {
	ss, err := sessionsOf(h)
	if err != nil {
		return err
	}
	for si, s := range ss {
		if si > 0 {
			w.WriteString("---\n")
		}
		for _, t := range s.txns {
			o := &h.Ops[t.op]
			if len(t.mops) == 0 {
				return fmt.Errorf("operation %s is an empty transaction, which dbcop's text cannot hold", o.Label())
			}
			w.WriteString("[")
			for i, m := range t.mops {
				if i > 0 {
					w.WriteString(" ")
				}
				k, err := dbcopHistVariable(m.Key, o)
				if err != nil {
					return err
				}
				switch {
				case m.Kind == txn.Write:
					k += ":="
				case m.Value.IsNil():
					w.WriteString(k + "==?")
					continue
				default:
					k += "=="
				}
				v, err := uintText(m.Value, o, "version")
				if err != nil {
					return err
				}
				w.WriteString(k + v)
			}
			w.WriteString("]")
			if t.status == history.Fail {
				w.WriteString("!")
			}
			w.WriteString("\n")
		}
	}
	return nil
}

// dbcopHistVariable writes a key as a variable: letters, digits and _.
func dbcopHistVariable(k history.Value, o *history.Op) (string, error) {
	s := k.Text()
	if n, ok := k.Int(); ok && n >= 0 {
		return s, nil
	}
	name, isStr := k.Str()
	ok := isStr && name != ""
	for _, r := range name {
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			ok = false
		}
	}
	if !ok {
		return "", fmt.Errorf("operation %s: the key %s is not a variable name (letters, digits and _) or a non-negative integer, which dbcop's text needs",
			o.Label(), history.Quote(k.String()))
	}
	return name, nil
}

// peekHead returns the first bytes of r without consuming them, when r
// reads through a buffer (as the readers' input does), else nil.
func peekHead(r io.Reader) []byte {
	if b, ok := r.(*budgeted); ok {
		r = b.r
	}
	br, ok := r.(*bufio.Reader)
	if !ok {
		return nil
	}
	head, _ := br.Peek(min(sniffLimit, br.Size()))
	return head
}
