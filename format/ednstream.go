package format

import (
	"bytes"
	"io"
	"unicode/utf8"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/history"
)

// EDN is read as a stream, one form at a time: ednStream keeps a window
// on the input that holds at least the form being read, ednFrame finds
// where that form ends without building it, and the form is then read
// into an event, by ednFast when it is a plain op map and else by the
// exact ednParser, which gives the errors. A history written as one
// vector of op maps, or as a map with a :history entry, is streamed
// element by element in the same way.

// ednWindow is the first size of the window, and the amount of input read
// between two questions to the memory budget.
const ednWindow = 64 << 10

// ednStream is the input of the EDN reader: buf[off:] is read and not yet
// consumed, and line is the line of buf[off].
type ednStream struct {
	r    io.Reader
	buf  []byte
	off  int
	line int
	eof  bool
	// buf[:checked] is known to be UTF-8; checkLine is the line of
	// buf[checked].
	checked   int
	checkLine int
	mem       *budget.Memory
	total     int64 // bytes read
	asked     int64 // total when the budget was last asked
	limit     int   // the longest form
}

func newEDNStream(r io.Reader, mem *budget.Memory) *ednStream {
	limit := DocumentLimit
	if share := mem.Limit() / MaxValueShare; share > 0 && share < int64(limit) {
		limit = int(share)
	}
	return &ednStream{r: r, buf: make([]byte, 0, ednWindow), line: 1, checkLine: 1, mem: mem, limit: limit}
}

// more reads more input, keeping buf[off:] (moved to the front), and
// growing the window when that fills it. At the end of the input it sets
// eof.
func (s *ednStream) more() error {
	if s.eof {
		return nil
	}
	n := copy(s.buf, s.buf[s.off:])
	s.buf, s.checked, s.off = s.buf[:n], max(s.checked-s.off, 0), 0
	if n == cap(s.buf) {
		if err := s.grow(); err != nil {
			return err
		}
	}
	for len(s.buf) < cap(s.buf) {
		k, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+k]
		s.total += int64(k)
		if err == io.EOF {
			s.eof = true
			break
		}
		if err != nil {
			return readFailed(err, s.total, "reading")
		}
	}
	if err := s.ask(); err != nil {
		return err
	}
	return s.checkUTF8()
}

// grow doubles the window for a form longer than it, within the limit of
// one form and the memory budget.
func (s *ednStream) grow() error {
	if err := s.fits(len(s.buf)); err != nil {
		return err
	}
	size := min(2*cap(s.buf), s.limit+1)
	if err := s.mem.Allow(int64(size), "reading an EDN form"); err != nil {
		return s.noRoom(err)
	}
	buf := make([]byte, len(s.buf), size)
	copy(buf, s.buf)
	s.buf = buf
	return nil
}

// fits refuses a form of n bytes, starting at the current line, that is
// longer than one form may be.
func (s *ednStream) fits(n int) error {
	if n < s.limit {
		return nil
	}
	if s.mem.Limit() > 0 && s.limit < DocumentLimit {
		return history.Errorf(s.line, "the form starting here is longer than %s, more than the memory budget allows for one value (%s, a %dth of it)",
			budget.Size(int64(s.limit)), budget.Size(s.mem.Limit()), MaxValueShare)
	}
	return history.Errorf(s.line, "the form starting here is longer than %d bytes (the limit for one form)", s.limit)
}

// ask asks the memory budget for what the history read so far may grow
// by, each time the input read has doubled: the events kept grow with the
// input.
func (s *ednStream) ask() error {
	if s.total-s.asked < max(s.asked, ednWindow) {
		return nil
	}
	if err := s.mem.Allow(s.total-s.asked, "reading the input"); err != nil {
		return s.noRoom(err)
	}
	s.asked = s.total
	return nil
}

func (s *ednStream) noRoom(err error) error {
	return history.Errorf(0, "the input does not fit in memory (%d bytes read): %v; raise --max-memory", s.total, err)
}

// checkUTF8 checks what was read since the last check, but for a rune cut
// by the end of the window, and names the line of an invalid sequence.
func (s *ednStream) checkUTF8() error {
	region := s.buf[s.checked:]
	if !s.eof {
		region = trimPartialRune(region)
	}
	if !utf8.Valid(region) {
		err := checkUTF8(region)
		if ie, ok := err.(*history.InputError); ok {
			ie.Line += s.checkLine - 1
		}
		return err
	}
	s.checkLine += bytes.Count(region, []byte{'\n'})
	s.checked += len(region)
	return nil
}

// ensure reads until n bytes are unconsumed and reports whether they are.
func (s *ednStream) ensure(n int) (bool, error) {
	for len(s.buf)-s.off < n {
		if s.eof {
			return false, nil
		}
		if err := s.more(); err != nil {
			return false, err
		}
	}
	return true, nil
}

// peek returns the next byte, or ok=false at the end of the input.
func (s *ednStream) peek() (c byte, ok bool, err error) {
	if ok, err = s.ensure(1); !ok {
		return 0, false, err
	}
	return s.buf[s.off], true, nil
}

// frame returns the next form, with any metadata, tags and discarded forms
// before it, and the lines it spans, without consuming it. At the end of
// the input an unfinished form is returned as it is, for the parser to
// report.
func (s *ednStream) frame() (chunk []byte, lines int, err error) {
	for {
		end, lines, done := ednFrame(s.buf[s.off:], s.eof)
		if done || s.eof {
			return s.buf[s.off : s.off+end], lines, s.fits(end)
		}
		if err := s.more(); err != nil {
			return nil, 0, err
		}
	}
}

// consume passes n bytes spanning lines lines.
func (s *ednStream) consume(n, lines int) {
	s.off += n
	s.line += lines
}

// read is how many bytes of the input are consumed.
func (s *ednStream) read() int64 { return s.total - int64(len(s.buf)-s.off) }

// token reads the bytes up to the next delimiter.
func (s *ednStream) token() (string, error) {
	for {
		j := s.off
		for j < len(s.buf) && !isDelim(s.buf[j]) {
			j++
		}
		if j < len(s.buf) || s.eof {
			tok := string(s.buf[s.off:j])
			s.off = j
			return tok, nil
		}
		if err := s.more(); err != nil {
			return "", err
		}
	}
}

// ednFrame finds the end of the form at the start of b, with the metadata
// (^), tags (#tag) and discards (#_) before it, and counts the lines it
// spans as ednParser does. It follows EDN's lexical rules only (strings,
// characters, comments, nesting); the parser checks the rest. done is
// false when b ends first (then end is len(b)). A closing bracket with
// nothing open ends the form too, so that the parser reports it.
func ednFrame(b []byte, eof bool) (end, lines int, done bool) {
	depth, need := 0, 1
	for i := 0; i < len(b); {
		j, nl, step := frameStep(b, i, eof)
		if step == stepMore {
			return len(b), lines, false
		}
		lines += nl
		i = j
		switch step {
		case stepOpen:
			depth++
		case stepClose:
			if depth == 0 {
				return i, lines, true
			}
			depth--
			if depth == 0 {
				need--
			}
		case stepPrefix:
			if depth == 0 {
				need++
			}
		case stepAtom:
			if depth == 0 {
				need--
			}
		}
		if need == 0 {
			return i, lines, true
		}
	}
	return len(b), lines, false
}

// What one step of ednFrame passed.
const (
	stepSpace  = iota // whitespace, a comment or a tag
	stepAtom          // a scalar
	stepOpen          // an opening bracket
	stepClose         // a closing bracket
	stepPrefix        // ^ or #_, which need one more form
	stepMore          // b ended before the step did
)

// frameStep passes one lexical element of b at i: it returns where the
// element ends, the newlines in it, and what it was.
func frameStep(b []byte, i int, eof bool) (next, lines, step int) {
	switch c := b[i]; c {
	case '\n':
		return i + 1, 1, stepSpace
	case ' ', '\t', '\r', ',', '\f':
		return i + 1, 0, stepSpace
	case ';':
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return frameEnd(b, eof, stepSpace)
		}
		return i + j, 0, stepSpace
	case '"':
		return frameString(b, i, eof)
	case '\\':
		// The character is taken whatever it is (\( or a newline); a
		// name may follow (\space).
		if i+1 >= len(b) || !eof && !utf8.FullRune(b[i+1:]) {
			return frameEnd(b, eof, stepAtom)
		}
		_, size := utf8.DecodeRune(b[i+1:])
		return frameToken(b, i+1+size, eof)
	case '(', '[', '{':
		return i + 1, 0, stepOpen
	case ')', ']', '}':
		return i + 1, 0, stepClose
	case '^':
		return i + 1, 0, stepPrefix
	case '#':
		return frameDispatch(b, i, eof)
	}
	return frameToken(b, i, eof)
}

// frameDispatch passes what starts with '#': a set's opening, a discard, a
// symbolic value (##Inf) or a tag.
func frameDispatch(b []byte, i int, eof bool) (next, lines, step int) {
	if i+1 >= len(b) {
		return frameEnd(b, eof, stepSpace)
	}
	switch b[i+1] {
	case '{':
		return i + 2, 0, stepOpen
	case '_':
		return i + 2, 0, stepPrefix
	case '#':
		return frameToken(b, i+2, eof)
	}
	next, _, step = frameToken(b, i+1, eof)
	if step == stepAtom {
		step = stepSpace // a tag stands before the form it names
	}
	return next, 0, step
}

// frameToken passes the bytes up to the next delimiter.
func frameToken(b []byte, i int, eof bool) (next, lines, step int) {
	for j := i; j < len(b); j++ {
		if isDelim(b[j]) {
			return j, 0, stepAtom
		}
	}
	return frameEnd(b, eof, stepAtom)
}

// frameString passes a string, counting its lines as ednParser.str does
// (a newline after a backslash is an escape, which it refuses).
func frameString(b []byte, i int, eof bool) (next, lines, step int) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, lines, stepAtom
		case '\\':
			j++
		case '\n':
			lines++
		}
	}
	return len(b), lines, stepMore
}

// frameEnd is the step that meets the end of b: at the end of the input
// the element ends there; otherwise more input is needed.
func frameEnd(b []byte, eof bool, step int) (next, lines, s int) {
	if eof {
		return len(b), 0, step
	}
	return len(b), 0, stepMore
}
