package format

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// DBCopBincode is the original dbcop's binary history.
const DBCopBincode = "dbcop-bincode"

// dbcopBincodeFormat is the history file of the original dbcop (OOPSLA
// 2019), history.bincode, which Plume's and PolySI's benchmark folders
// keep beside the text format: bincode, little-endian, as PolySI reads
// and writes it. Its parameters (five 64-bit integers), three strings
// (info, start, end: a 64-bit length and UTF-8 bytes), then the sessions:
// a count, each session a count of transactions, each transaction a count
// of events, each event write (a byte), variable, value (64-bit) and
// success (a byte), then the transaction's success. A failed event that
// writes is an aborted write and one that reads did not happen, as AWDIT
// reads them; a transaction that did not succeed is aborted. Variables
// start at 0: a read of 0 reads the initial state unless some
// transaction writes 0 there.
var dbcopBincodeFormat = Format{
	Name:         DBCopBincode,
	Summary:      "the original dbcop's binary history (history.bincode)",
	Extensions:   []string{".bincode"},
	Transactions: true,
	Read:         streamed(readDBCopBincode),
	Write:        buffered(writeDBCopBincode),
}

// binReader reads bincode's little-endian integers, counting bytes for
// messages.
type binReader struct {
	br  *bufio.Reader
	off int64
	err error
}

func (r *binReader) u64(what string) uint64 {
	if r.err != nil {
		return 0
	}
	// Peek and Discard read the buffer in place, without a copy.
	b, err := r.br.Peek(8)
	if err != nil {
		r.err = history.Errorf(0, "dbcop's history is cut short at byte %d, in %s", r.off, what)
		return 0
	}
	n := binary.LittleEndian.Uint64(b)
	r.br.Discard(8)
	r.off += 8
	return n
}

func (r *binReader) flag(what string) bool {
	if r.err != nil {
		return false
	}
	c, err := r.br.ReadByte()
	r.off++
	if err != nil || c > 1 {
		if err != nil {
			r.err = history.Errorf(0, "dbcop's history is cut short at byte %d, in %s", r.off-1, what)
		} else {
			r.err = history.Errorf(0, "byte %d, in %s: %d is not a boolean (0 or 1)", r.off-1, what, c)
		}
	}
	return c == 1
}

// count reads a length, refusing one the rest of the input could not
// hold (each element takes at least min bytes).
func (r *binReader) count(what string, min uint64) int {
	n := r.u64(what)
	if r.err == nil && n > 1<<40/min {
		r.err = history.Errorf(0, "byte %d: %s of %d is more than a history holds", r.off-8, what, n)
	}
	return int(n)
}

func readDBCopBincode(in io.Reader) (*history.History, error) {
	if b, ok := in.(*budgeted); ok {
		in = b.r
	}
	br, ok := in.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(in, 64<<10)
	}
	r := &binReader{br: br}
	for range 5 {
		r.u64("the parameters")
	}
	for _, what := range []string{"info", "start", "end"} {
		n := r.count("the length of "+what, 1)
		if r.err == nil {
			if _, err := br.Discard(n); err != nil {
				return nil, history.Errorf(0, "dbcop's history is cut short in %s", what)
			}
			r.off += int64(n)
		}
	}
	b := &sessionBuilder{zeroIsInit: true}
	names := map[string]int32{}
	sessions := r.count("the number of sessions", 8)
	for si := 0; si < sessions && r.err == nil; si++ {
		s := b.session(strconv.Itoa(si+1), names)
		txns := r.count("the number of transactions", 9)
		for ti := 0; ti < txns && r.err == nil; ti++ {
			b.dbcopBinTxn(r, s)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, history.Errorf(0, "byte %d: more after the last session", r.off)
	}
	return b.build()
}

// dbcopBinTxn reads one transaction into session s.
func (b *sessionBuilder) dbcopBinTxn(r *binReader, s int32) {
	t := rawTxn{session: s, status: history.OK, from: int32(len(b.mops))}
	var aborted []rawMop
	events := r.count("the number of events", 18)
	for range events {
		write := r.flag("an event's write")
		m := rawMop{key: int64(r.u64("an event's variable")), val: int64(r.u64("an event's value"))}
		ok := r.flag("an event's success")
		if write {
			m.flags = mopWrite
		}
		switch {
		case r.err != nil:
			return
		case ok:
			b.mops = append(b.mops, m)
		case write:
			aborted = append(aborted, m)
		}
	}
	if !r.flag("a transaction's success") {
		t.status = history.Fail
	}
	t.to = int32(len(b.mops))
	b.txns = append(b.txns, t)
	if len(aborted) > 0 {
		from := int32(len(b.mops))
		b.mops = append(b.mops, aborted...)
		b.txns = append(b.txns, rawTxn{session: s, status: history.Fail, from: from, to: int32(len(b.mops))})
	}
}

// writeDBCopBincode writes h's read/write transactions as PolySI writes
// a dbcop history: a read of the initial state as 0 (refused where some
// transaction writes 0 to the key), info "histcheck" and epoch dates.
func writeDBCopBincode(w *bufio.Writer, h *history.History) error {
	ss, err := sessionsOf(h)
	if err != nil {
		return err
	}
	zeros := zeroWritten(ss)
	u64 := func(n uint64) { w.Write(binary.LittleEndian.AppendUint64(nil, n)) }
	flag := func(b bool) {
		if b {
			w.WriteByte(1)
		} else {
			w.WriteByte(0)
		}
	}
	str := func(s string) { u64(uint64(len(s))); w.WriteString(s) }
	keys, txns, events := sessionCounts(ss)
	for _, n := range []int{0, len(ss), keys, txns, events} {
		u64(uint64(n))
	}
	str("histcheck")
	str("1970-01-01T00:00:00+00:00")
	str("1970-01-01T00:00:00+00:00")
	u64(uint64(len(ss)))
	for _, s := range ss {
		u64(uint64(len(s.txns)))
		for _, t := range s.txns {
			o := &h.Ops[t.op]
			u64(uint64(len(t.mops)))
			for _, m := range t.mops {
				val := m.Value
				if m.Kind == txn.Read && val.IsNil() {
					if zeros[m.Key] {
						return fmt.Errorf("operation %s reads nil (the initial state) of key %s, which a transaction also writes 0 to: "+
							"dbcop writes the initial state as 0, so the two reads could not be told apart", o.Label(), m.Key)
					}
					val = zero
				}
				k, err := uintText(m.Key, o, "key")
				if err != nil {
					return err
				}
				v, err := uintText(val, o, "value")
				if err != nil {
					return err
				}
				kn, _ := strconv.ParseUint(k, 10, 64)
				vn, _ := strconv.ParseUint(v, 10, 64)
				flag(m.Kind == txn.Write)
				u64(kn)
				u64(vn)
				flag(true)
			}
			flag(t.status == history.OK)
		}
	}
	return nil
}
