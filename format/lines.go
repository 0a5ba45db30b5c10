package format

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/history"
)

// RecordLimit is the longest record histcheck reads: one line of JSON
// Lines, a Jepsen log or the notation. A longer line is an error found
// after reading RecordLimit bytes of it, so that a hostile input cannot make
// the reader hold an unbounded line.
const RecordLimit = 16 << 20

// DocumentLimit is the largest whole-document input (a JSON array), which
// is read into memory before it is parsed, and the longest EDN form; long
// histories belong in JSON Lines or EDN, which are read as streams.
const DocumentLimit = 1 << 30

// lineReader hands out lines without their terminator ("\n" or "\r\n"),
// counting them, and refuses lines longer than limit.
type lineReader struct {
	br    *bufio.Reader
	buf   []byte // a line longer than br's buffer, assembled
	line  int    // number of the line last returned
	limit int
	mem   *budget.Memory // set when the budget's share for one value is the limit
	// partial reports that the line last returned ended at the end of
	// the input, without a newline.
	partial bool
}

// newLineReader reads lines of at most limit bytes, or of the memory
// budget's share for one value (MaxValueShare) when r carries a budget
// with a smaller share: a line is one operation, whose value would be
// refused once read (and take several times its text meanwhile), so it
// is refused while it is read.
func newLineReader(r io.Reader, limit int) *lineReader {
	var mem *budget.Memory
	if b, ok := r.(*budgeted); ok {
		r = b.r // lines are not held whole: the budget is not asked
		if share := b.mem.Limit() / MaxValueShare; share > 0 && share < int64(limit) {
			limit, mem = int(share), b.mem
		}
	}
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &lineReader{br: br, limit: limit, mem: mem}
}

// next returns the next line, valid until the following call, or io.EOF.
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		switch err {
		case nil, io.EOF:
			b := chunk
			if len(l.buf) > 0 {
				l.buf = append(l.buf, chunk...)
				b = l.buf
			}
			if err == io.EOF && len(b) == 0 {
				return nil, io.EOF
			}
			l.line++
			l.partial = err == io.EOF && !bytes.HasSuffix(b, []byte("\n"))
			b = bytes.TrimSuffix(b, []byte("\n"))
			b = bytes.TrimSuffix(b, []byte("\r"))
			if len(b) > l.limit {
				return nil, l.tooLong()
			}
			return b, nil
		case bufio.ErrBufferFull:
			if len(l.buf)+len(chunk) > l.limit+1 { // +1: a '\r' may end it
				l.line++
				return nil, l.tooLong()
			}
			l.grow(len(chunk))
			l.buf = append(l.buf, chunk...)
		default:
			return nil, readFailed(err, -1, fmt.Sprintf("reading line %d", l.line+1))
		}
	}
}

// grow makes room for n more bytes by doubling, up to the limit, so that a
// long line leaves at most as much garbage behind as it holds.
func (l *lineReader) grow(n int) {
	need := len(l.buf) + n
	if need <= cap(l.buf) {
		return
	}
	c := max(2*cap(l.buf), 64<<10)
	for c < need {
		c *= 2
	}
	c = min(c, l.limit+1+n)
	buf := make([]byte, len(l.buf), max(c, need))
	copy(buf, l.buf)
	l.buf = buf
}

func (l *lineReader) tooLong() error {
	if l.mem != nil {
		return history.Errorf(l.line, "the line is longer than %s, more than the memory budget allows for one value (%s, a %dth of it)",
			budget.Size(int64(l.limit)), budget.Size(l.mem.Limit()), MaxValueShare)
	}
	return history.Errorf(l.line, "record longer than %d bytes (the limit for one line)", l.limit)
}
