package format

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// Plume is the text format of Plume, PolySI, AWDIT and IsoVista.
const Plume = "plume"

// plumeFormat is the text format the research checkers Plume, PolySI,
// AWDIT and IsoVista share: one read or write per line,
// r(key,value,session,txn) or w(key,value,session,txn), a transaction's
// operations in order, transaction ids unique across sessions, txn -1 an
// aborted write, and an implicit initial write of 0 to every key.
var plumeFormat = Format{
	Name:         Plume,
	Transactions: true,
	Summary:      "Plume, PolySI, AWDIT and IsoVista's text: r(key,value,session,txn) per line",
	Sniff:        sniffPlume,
	Read:         streamed(readPlume),
	Write:        buffered(writePlume),
}

// plumeShape describes a line in messages.
const plumeShape = "r(key,value,session,txn) or w(key,value,session,txn), with non-negative integers (txn -1: an aborted write)"

// sniffPlume claims input whose first lines are all plume lines.
func sniffPlume(head []byte) int {
	seen := 0
	for len(head) > 0 && seen < 4 {
		line, rest, full := bytes.Cut(head, []byte("\n"))
		head = rest
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !full && len(rest) == 0 && seen > 0 {
			break // the head may cut the last line short
		}
		if _, err := parsePlumeLine(line); err != nil {
			return 0
		}
		seen++
	}
	if seen == 0 {
		return 0
	}
	return 6
}

// plumeLine is one line: a read or write, its key, value, session and
// transaction.
type plumeLine struct {
	write              bool
	key, val, sess, id int64
}

// parsePlumeLine reads one line without regular expressions: histories
// run to tens of millions of lines.
func parsePlumeLine(b []byte) (plumeLine, error) {
	var l plumeLine
	if len(b) < 10 || (b[0] != 'r' && b[0] != 'w') || b[1] != '(' || b[len(b)-1] != ')' {
		return l, fmt.Errorf("expected %s, got %s", plumeShape, history.Quote(string(b)))
	}
	l.write = b[0] == 'w'
	fields := b[2 : len(b)-1]
	var parts [4][]byte
	for i := range parts {
		j := bytes.IndexByte(fields, ',')
		if i == 3 {
			if j >= 0 {
				return l, fmt.Errorf("expected %s, got %s: too many fields", plumeShape, history.Quote(string(b)))
			}
			j = len(fields)
		} else if j < 0 {
			return l, fmt.Errorf("expected %s, got %s: too few fields", plumeShape, history.Quote(string(b)))
		}
		parts[i], fields = fields[:j], fields[min(j+1, len(fields)):]
	}
	names := [4]string{"key", "value", "session", "txn"}
	to := [4]*int64{&l.key, &l.val, &l.sess, &l.id}
	for i, p := range parts {
		if i == 3 && len(p) == 2 && p[0] == '-' && p[1] == '1' {
			l.id = -1
			continue
		}
		n, ok := parseUint(p)
		if !ok {
			return l, fmt.Errorf("the %s %s is not a non-negative integer (expected %s)", names[i], history.Quote(string(p)), plumeShape)
		}
		*to[i] = n
	}
	return l, nil
}

// readPlume reads the text format. Transactions are grouped by id; a
// session's transactions are in the order their first lines come. The
// aborted writes of one session on consecutive lines are one aborted
// transaction; aborted reads (txn -1) say nothing and are left out, as
// the tools leave them out.
func readPlume(r io.Reader) (*history.History, error) {
	lr := newLineReader(r, RecordLimit)
	b := &sessionBuilder{zeroIsInit: true}
	sessions := map[string]int32{}
	sessNames := map[int64]int32{}
	byID := map[int64]int32{}
	// txnMops collects each transaction's operations, as a transaction's
	// lines need not be adjacent.
	var txnMops [][]rawMop
	last := int32(-1) // the transaction of the previous line
	lastAborted := int32(-1)
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		l, err := parsePlumeLine(line)
		if err != nil {
			return nil, history.Errorf(lr.line, "%v", err)
		}
		s, ok := sessNames[l.sess]
		if !ok {
			s = b.session(strconv.FormatInt(l.sess, 10), sessions)
			sessNames[l.sess] = s
		}
		m := rawMop{write: l.write, key: b.ints.get(l.key), val: b.ints.get(l.val)}
		if l.id == -1 {
			if !l.write {
				continue
			}
			if lastAborted < 0 || last != lastAborted || b.txns[lastAborted].session != s {
				lastAborted = int32(len(b.txns))
				b.txns = append(b.txns, rawTxn{session: s, status: history.Fail, line: lr.line})
				txnMops = append(txnMops, nil)
			}
			last = lastAborted
			txnMops[last] = append(txnMops[last], m)
			continue
		}
		t := last
		if t < 0 || t == lastAborted || b.txns[t].id != l.id {
			var ok bool
			if t, ok = byID[l.id]; !ok {
				t = int32(len(b.txns))
				byID[l.id] = t
				b.txns = append(b.txns, rawTxn{session: s, status: history.OK, line: lr.line, id: l.id})
				txnMops = append(txnMops, nil)
			}
		}
		if b.txns[t].session != s {
			return nil, history.Errorf(lr.line, "transaction %d is in session %d here and in session %s on line %d; a transaction belongs to one session",
				l.id, l.sess, b.names[b.txns[t].session], b.txns[t].line)
		}
		last = t
		txnMops[t] = append(txnMops[t], m)
	}
	n := 0
	for _, ms := range txnMops {
		n += len(ms)
	}
	b.mops = make([]rawMop, 0, n)
	for i, ms := range txnMops {
		b.txns[i].from = int32(len(b.mops))
		b.mops = append(b.mops, ms...)
		b.txns[i].to = int32(len(b.mops))
	}
	return b.build()
}

// writePlume writes h's read/write transactions in the text format:
// sessions numbered 0, 1, … in the order their clients first appear,
// transactions numbered across sessions in the same order, an aborted
// transaction's writes with txn -1 (its reads are left out, as the format
// has no place for them), and a read of the initial state (nil) as 0.
func writePlume(w *bufio.Writer, h *history.History) error {
	ss, err := sessionsOf(h)
	if err != nil {
		return err
	}
	zeros := zeroWritten(ss)
	id := 0
	for si, s := range ss {
		sess := strconv.Itoa(si)
		for _, t := range s.txns {
			o := &h.Ops[t.op]
			tid := strconv.Itoa(id)
			if t.status == history.Fail {
				tid = "-1"
			} else {
				id++
			}
			for _, m := range t.mops {
				if t.status == history.Fail && m.Kind != txn.Write {
					continue
				}
				line, err := plumeText(m.Kind == txn.Write, m.Key, m.Value, zeros, o)
				if err != nil {
					return err
				}
				w.WriteString(line)
				w.WriteString("," + sess + "," + tid + ")\n")
			}
		}
	}
	return nil
}

// plumeText writes the start of a line, up to its value.
func plumeText(write bool, key, val history.Value, zeros map[history.Value]bool, o *history.Op) (string, error) {
	k, err := uintText(key, o, "key")
	if err != nil {
		return "", err
	}
	if val.IsNil() && !write {
		if zeros[key] {
			return "", fmt.Errorf("operation %s reads nil (the initial state) of key %s, which a transaction also writes 0 to: "+
				"this format writes the initial state as 0, so the two reads could not be told apart", o.Label(), k)
		}
		val = zero
	}
	v, err := uintText(val, o, "value")
	if err != nil {
		return "", err
	}
	op := "r("
	if write {
		op = "w("
	}
	return op + k + "," + v, nil
}
