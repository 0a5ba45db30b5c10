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
	p := plumeReader{b: &sessionBuilder{zeroIsInit: true}, sessions: map[int64]int32{}, byID: map[int64]int32{},
		last: -1, lastAborted: -1, lastSess: -1}
	if n := sizeHint(r) / 20; n > 0 {
		// About one operation for every 20 bytes: the operations' slices
		// are made once rather than copied as they grow.
		p.b.mops, p.owner = make([]rawMop, 0, n), make([]int32, 0, n)
	}
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(line) == 0 || len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		l, err := parsePlumeLine(line)
		if err != nil {
			return nil, history.Errorf(lr.line, "%v", err)
		}
		if err := p.add(l, lr.line); err != nil {
			return nil, err
		}
	}
	p.group()
	return p.b.build()
}

// plumeReader groups the lines into transactions. Their operations are
// kept in file order with the transaction each belongs to; a transaction
// whose lines are not adjacent is rare, and only then are the operations
// sorted by transaction at the end.
type plumeReader struct {
	b           *sessionBuilder
	sessions    map[int64]int32 // session as written -> index
	byID        map[int64]int32 // transaction id -> index, for large ids
	dense       []int32         // transaction id -> index+1 (0: none yet), for small ids
	owner       []int32         // the transaction of each operation
	last        int32           // the transaction of the previous line
	lastAborted int32           // the aborted transaction last made
	lastSess    int64
	lastS       int32
	scattered   bool
}

func (p *plumeReader) add(l plumeLine, line int) error {
	b := p.b
	s := p.lastS
	if l.sess != p.lastSess {
		var ok bool
		if s, ok = p.sessions[l.sess]; !ok {
			s = int32(len(b.names))
			p.sessions[l.sess] = s
			b.names = append(b.names, strconv.FormatInt(l.sess, 10))
		}
		p.lastSess, p.lastS = l.sess, s
	}
	m := rawMop{key: l.key, val: l.val}
	if l.write {
		m.flags = mopWrite
	}
	t := p.last
	switch {
	case l.id == -1 && !l.write:
		return nil
	case l.id == -1:
		if t < 0 || t != p.lastAborted || b.txns[t].session != s {
			t = p.open(rawTxn{session: s, status: history.Fail, line: line})
			p.lastAborted = t
		}
	case t < 0 || t == p.lastAborted || b.txns[t].id != l.id:
		var ok bool
		if t, ok = p.lookup(l.id); !ok {
			t = p.open(rawTxn{session: s, status: history.OK, line: line, id: l.id})
			p.remember(l.id, t)
		} else {
			p.scattered = true
		}
	}
	if tx := &b.txns[t]; tx.session != s {
		return history.Errorf(line, "transaction %d is in session %d here and in session %s on line %d; a transaction belongs to one session",
			l.id, l.sess, b.names[tx.session], tx.line)
	}
	p.last = t
	b.mops = append(b.mops, m)
	p.owner = append(p.owner, t)
	b.txns[t].to = int32(len(b.mops))
	return nil
}

// denseIDs bounds the transaction ids kept in a slice rather than a map:
// the tools number transactions 0, 1, 2, …
const denseIDs = 1 << 26

// lookup finds the transaction of an id.
func (p *plumeReader) lookup(id int64) (int32, bool) {
	if id < denseIDs {
		if id < int64(len(p.dense)) && p.dense[id] > 0 {
			return p.dense[id] - 1, true
		}
		return 0, false
	}
	t, ok := p.byID[id]
	return t, ok
}

func (p *plumeReader) remember(id int64, t int32) {
	if id >= denseIDs {
		p.byID[id] = t
		return
	}
	for int64(len(p.dense)) <= id {
		p.dense = append(p.dense, 0)
	}
	p.dense[id] = t + 1
}

// open starts a transaction at the next operation.
func (p *plumeReader) open(t rawTxn) int32 {
	t.from, t.to = int32(len(p.b.mops)), int32(len(p.b.mops))
	p.b.txns = append(p.b.txns, t)
	return int32(len(p.b.txns) - 1)
}

// group puts each transaction's operations together, in file order,
// when some transaction's lines were not adjacent.
func (p *plumeReader) group() {
	if !p.scattered {
		return
	}
	b := p.b
	count := make([]int32, len(b.txns)+1)
	for _, t := range p.owner {
		count[t+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	for i := range b.txns {
		b.txns[i].from, b.txns[i].to = count[i], count[i+1]
	}
	out := make([]rawMop, len(b.mops))
	for i, m := range b.mops {
		t := p.owner[i]
		out[count[t]] = m
		count[t]++
	}
	b.mops = out
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
