package format

import (
	"bytes"
	"io"
	"runtime"

	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/history"
)

// readEDNInput is the EDN format's reader: a stream, within the memory
// budget when r carries one.
func readEDNInput(r io.Reader) (Result, error) {
	var mem *budget.Memory
	size := int64(-1)
	if b, ok := r.(*budgeted); ok {
		mem, size = b.mem, b.size
	}
	h, err := readEDNSized(r, mem, true, size)
	return Result{History: h}, err
}

// ednReader reads op maps from an ednStream into a Pairer.
type ednReader struct {
	in   *ednStream
	fast *ednFast // nil: every form through ednParser
	pr   *history.Pairer
	meta map[string]history.Value
	// size is the input's length when known (else -1), and hint the
	// operation count at which the Pairer next hears how much is read.
	size int64
	hint int
}

// readEDN reads op maps: one vector or list of them, maps one after
// another, or a wrapper map with a :history entry, as a stream. fast says
// whether to try ednFast on each op map before the exact ednParser.
func readEDN(r io.Reader, mem *budget.Memory, fast bool) (*history.History, error) {
	return readEDNSized(r, mem, fast, -1)
}

// readEDNSized is readEDN of an input of size bytes (-1 if not known),
// which tells the Pairer how many operations to make room for.
func readEDNSized(r io.Reader, mem *budget.Memory, fast bool, size int64) (*history.History, error) {
	return readEDNStream(newEDNStream(r, mem), fast, size)
}

func readEDNStream(in *ednStream, fast bool, size int64) (*history.History, error) {
	rd := &ednReader{in: in, pr: history.NewPairer(), size: size, hint: ednHintFirst}
	if fast {
		rd.fast = newEDNFast()
	}
	if err := rd.skip(0); err != nil {
		return nil, err
	}
	if _, ok, err := rd.in.peek(); err != nil {
		return nil, err
	} else if !ok {
		return nil, history.Errorf(rd.in.line, "no EDN forms; expected op maps")
	}
	whole, err := rd.first()
	if err != nil {
		return nil, err
	}
	for {
		if err := rd.skip(0); err != nil {
			return nil, err
		}
		if _, ok, err := rd.in.peek(); err != nil {
			return nil, err
		} else if !ok {
			break
		}
		if whole != "" {
			return nil, history.Errorf(rd.in.line, "unexpected form after the %s; a history is one vector of op maps, op maps one after another, or one map with a :history entry", whole)
		}
		if err := rd.event(0); err != nil {
			return nil, err
		}
	}
	h := rd.pr.History()
	if len(rd.meta) > 0 {
		h.Meta = rd.meta
	}
	return h, nil
}

// first reads the first form: a vector or list of op maps, or a map with a
// :history entry, whose op maps are read one at a time (it then returns
// what it was, for messages: nothing may follow it), or the first op map.
func (rd *ednReader) first() (whole string, err error) {
	depth, err := rd.prefixes(0)
	if err != nil {
		return "", err
	}
	c, ok, err := rd.in.peek()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", history.Errorf(rd.in.line, "unexpected end of input; expected an EDN value")
	}
	line := rd.in.line
	switch c {
	case '[', '(':
		rd.in.consume(1, 0)
		return map[byte]string{'[': "vector", '(': "list"}[c] + " of op maps", rd.elements(c, line, depth)
	case '{':
		return rd.topMap(line, depth)
	}
	return "", rd.event(depth)
}

// skip passes whitespace, commas, comments and #_ discarded forms, as
// ednParser.skip does.
func (rd *ednReader) skip(depth int) error {
	s := rd.in
	for {
		c, ok, err := s.peek()
		if !ok {
			return err
		}
		switch c {
		case '\n':
			s.consume(1, 1)
		case ' ', '\t', '\r', ',', '\f':
			s.consume(1, 0)
		case ';':
			if err := rd.comment(); err != nil {
				return err
			}
		case '#':
			if ok, err := s.ensure(2); !ok || s.buf[s.off+1] != '_' {
				return err
			}
			s.consume(2, 0)
			if _, err := rd.node(depth + 1); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

// comment passes a ; comment, up to its newline.
func (rd *ednReader) comment() error {
	s := rd.in
	for {
		for j := s.off; j < len(s.buf); j++ {
			if s.buf[j] == '\n' {
				s.off = j
				return nil
			}
		}
		s.off = len(s.buf)
		if s.eof {
			return nil
		}
		if err := s.more(); err != nil {
			return err
		}
	}
}

// prefixes passes the metadata and tags before a form whose brackets the
// caller reads itself, as ednParser.form and meta do, and returns the depth
// the form is at.
func (rd *ednReader) prefixes(depth int) (int, error) {
	s := rd.in
	for {
		if depth > maxEDNDepth {
			return depth, history.Errorf(s.line, "EDN nested more than %d deep", maxEDNDepth)
		}
		if err := rd.skip(depth); err != nil {
			return depth, err
		}
		if ok, err := s.ensure(2); !ok {
			return depth, err
		}
		switch c, next := s.buf[s.off], s.buf[s.off+1]; {
		case c == '^':
			if err := rd.metadata(depth); err != nil {
				return depth, err
			}
		case c == '#' && next != '{' && next != '#' && next != '_' && !isDelim(next):
			line := s.line
			s.consume(1, 0)
			if _, err := s.token(); err != nil {
				return depth, err
			}
			if _, ok, err := s.peek(); !ok {
				if err == nil {
					err = history.Errorf(line, "a tagged literal needs a value after its tag")
				}
				return depth, err
			}
			depth++
		default:
			return depth, nil
		}
	}
}

// metadata passes one ^ and its metadata, checked as ednParser.meta checks it.
func (rd *ednReader) metadata(depth int) error {
	s := rd.in
	line := s.line
	s.consume(1, 0)
	if err := rd.skip(depth); err != nil {
		return err
	}
	if c, ok, err := s.peek(); err != nil {
		return err
	} else if !ok || isCloser(c) {
		return history.Errorf(line, "'^' needs metadata after it: a map, a keyword or a symbol")
	}
	m, err := rd.node(depth + 1)
	if err != nil {
		return err
	}
	switch m.kind {
	case ednMap, ednKeyword, ednSymbol, ednString:
	default:
		return history.Errorf(m.line, "metadata after '^' must be a map, a keyword or a symbol, got %s", m.describe())
	}
	if err := rd.skip(depth); err != nil {
		return err
	}
	if c, ok, err := s.peek(); err != nil {
		return err
	} else if !ok || isCloser(c) {
		return history.Errorf(line, "metadata after '^' has no form after it to attach to")
	}
	return nil
}

// node reads the next form whole, at depth.
func (rd *ednReader) node(depth int) (*ednNode, error) {
	chunk, lines, err := rd.in.frame()
	if err != nil {
		return nil, err
	}
	n, err := newEDNParser(chunk, rd.in.line).form(depth)
	if err != nil {
		return nil, err
	}
	rd.in.consume(len(chunk), lines)
	return n, nil
}

// event reads the next form, at depth, as an op map and pairs its event.
// A plain op map within the window is read where it is; any other form is
// framed first, and read by ednParser unless it is a plain op map after
// all.
func (rd *ednReader) event(depth int) error {
	s := rd.in
	if rd.fast != nil {
		if e, n, ok := rd.fast.opMap(s.buf[s.off:], s.line); ok && n < s.limit {
			// ednFast takes no characters or escapes, so every newline
			// in the form is one.
			s.consume(n, bytes.Count(s.buf[s.off:s.off+n], []byte{'\n'}))
			return rd.add(&e)
		}
	}
	chunk, lines, err := s.frame()
	if err != nil {
		return err
	}
	line := s.line
	var e history.Event
	ok := false
	if rd.fast != nil {
		var n int
		e, n, ok = rd.fast.opMap(chunk, line)
		ok = ok && n == len(chunk)
	}
	if !ok {
		n, err := newEDNParser(chunk, line).form(depth)
		if err != nil {
			return err
		}
		if e, err = ednEvent(n); err != nil {
			return err
		}
	}
	s.consume(len(chunk), lines)
	return rd.add(&e)
}

// ednHintFirst is the operation count at which the Pairer first hears how
// much of the input is read; the count doubles after each.
const ednHintFirst = 256

// add pairs e, and now and then tells the Pairer how much of the input
// is read, so that it can make room for the whole history at once.
func (rd *ednReader) add(e *history.Event) error {
	if err := rd.pr.Add(e); err != nil {
		return err
	}
	if rd.size > 0 && rd.pr.Ops() >= rd.hint {
		rd.pr.Expect(rd.in.read(), rd.size)
		rd.hint *= 2
	}
	return nil
}

// elements reads the op maps of a vector or list opened at line, whose
// opening bracket has been read, up to its closing one.
func (rd *ednReader) elements(open byte, line, depth int) error {
	close := closers[open]
	for n := 0; ; n++ {
		if n == batchLines && rd.fast != nil && rd.size >= 0 && runtime.NumCPU() > 1 {
			return rd.batchedElements(open, line, depth)
		}
		if err := rd.skip(depth); err != nil {
			return err
		}
		c, ok, err := rd.in.peek()
		switch {
		case err != nil:
			return err
		case !ok:
			return history.Errorf(rd.in.line, "unexpected end of input; the '%c' opened at line %d is not closed", open, line)
		case c == close:
			rd.in.consume(1, 0)
			return nil
		case isCloser(c):
			return history.Errorf(rd.in.line, "unexpected '%c'; expected '%c' to close the '%c' opened at line %d", c, close, open, line)
		}
		if err := rd.event(depth + 1); err != nil {
			return err
		}
	}
}

// batchedElements reads the rest of the elements as elements does, in
// batches: a goroutine of its own frames the forms, and they are read on
// every core and their events paired in order. elements takes it for a
// long file of known size, whose operations the Pairer makes room for at
// once; a stream of unknown length is read form by form, which holds less
// at a time.
func (rd *ednReader) batchedElements(open byte, line, depth int) error {
	produce := func(send func(*lineBatch) bool, free batchPool) {
		b := free.get()
		for {
			closed, err := rd.frameElement(open, line, depth, b)
			if err != nil || closed {
				b.readErr = err
				send(b)
				return
			}
			if len(b.data) >= batchBytes || len(b.ends) >= batchLines {
				if !send(b) {
					return
				}
				b = free.get()
			}
		}
	}
	return pairBatches(rd.pr, rd.size, produce, func() func(*lineBatch) {
		fast := newEDNFast()
		pending := map[string]int{}
		return func(b *lineBatch) {
			fast.lb.SetScratch(&b.scratch)
			b.parseEDN(fast)
			b.keep(&fast.lb, pending)
			fast.lb.SetScratch(nil)
		}
	})
}

// frameElement passes what comes before the next element of the vector
// or list opened at line and, if it is one, adds it to b as it stands;
// closed reports the closing bracket instead.
func (rd *ednReader) frameElement(open byte, line, depth int, b *lineBatch) (closed bool, err error) {
	if err := rd.skip(depth); err != nil {
		return false, err
	}
	c, ok, err := rd.in.peek()
	switch {
	case err != nil:
		return false, err
	case !ok:
		return false, history.Errorf(rd.in.line, "unexpected end of input; the '%c' opened at line %d is not closed", open, line)
	case c == closers[open]:
		rd.in.consume(1, 0)
		return true, nil
	case isCloser(c):
		return false, history.Errorf(rd.in.line, "unexpected '%c'; expected '%c' to close the '%c' opened at line %d", c, closers[open], open, line)
	}
	chunk, lines, err := rd.in.frame()
	if err != nil {
		return false, err
	}
	b.depth = depth + 1
	b.data = append(b.data, chunk...)
	b.ends = append(b.ends, len(b.data))
	b.lines = append(b.lines, rd.in.line)
	rd.in.consume(len(chunk), lines)
	b.upTo = rd.in.read()
	return false, nil
}

// parseEDN reads the batch's forms into events as event does, stopping at
// the first in error.
func (b *lineBatch) parseEDN(fast *ednFast) {
	start := 0
	for i, end := range b.ends {
		chunk, line := b.data[start:end], b.lines[i]
		start = end
		e, n, ok := fast.opMap(chunk, line)
		if !ok || n != len(chunk) {
			form, err := newEDNParser(chunk, line).form(b.depth)
			if err == nil {
				e, err = ednEvent(form)
			}
			if err != nil {
				b.err = err
				return
			}
		}
		b.events = append(b.events, e)
	}
}

// topMap reads a map that is the first form: a wrapper, whose :history
// entry is read one op map at a time and whose other entries are the
// history's settings, or else the first op map.
func (rd *ednReader) topMap(line, depth int) (whole string, err error) {
	rd.in.consume(1, 0)
	var items []*ednNode
	var hist *ednNode // the :history key, once read
	for {
		if err := rd.skip(depth); err != nil {
			return "", err
		}
		c, ok, err := rd.in.peek()
		switch {
		case err != nil:
			return "", err
		case !ok:
			return "", history.Errorf(rd.in.line, "unexpected end of input; the '{' opened at line %d is not closed", line)
		case c == '}':
			rd.in.consume(1, 0)
			return rd.endTopMap(items, hist, line)
		case isCloser(c):
			return "", history.Errorf(rd.in.line, "unexpected '%c'; expected '}' to close the '{' opened at line %d", c, line)
		}
		k, err := rd.node(depth + 1)
		if err != nil {
			return "", err
		}
		if name, _ := k.name(); name != "history" || len(items)%2 != 0 {
			items = append(items, k)
			continue
		}
		if hist != nil {
			return "", history.Errorf(k.line, "the map has a second :history entry (the first at line %d); expected one", hist.line)
		}
		present, err := rd.history(depth + 1)
		if err != nil {
			return "", err
		}
		if !present {
			items = append(items, k) // endTopMap reports the key without a value
			continue
		}
		hist = k
	}
}

// history reads the value of a :history entry, at depth, as a vector or
// list of op maps, one at a time. It reports false when the map ends
// before the value.
func (rd *ednReader) history(depth int) (bool, error) {
	if err := rd.skip(depth - 1); err != nil {
		return false, err
	}
	if c, ok, err := rd.in.peek(); !ok || c == '}' {
		return false, err
	}
	depth, err := rd.prefixes(depth)
	if err != nil {
		return true, err
	}
	c, ok, err := rd.in.peek()
	if err != nil {
		return true, err
	}
	line := rd.in.line
	if ok && (c == '[' || c == '(') {
		rd.in.consume(1, 0)
		return true, rd.elements(c, line, depth)
	}
	v, err := rd.node(depth)
	if err != nil {
		return true, err
	}
	return true, history.Errorf(v.line, "the :history entry must be a vector of op maps, got %s", v.describe())
}

// endTopMap finishes the first map: the settings of a wrapper, or the
// first op map.
func (rd *ednReader) endTopMap(items []*ednNode, hist *ednNode, line int) (string, error) {
	if hist == nil && len(items)%2 == 0 {
		m := &ednNode{kind: ednMap, items: items, line: line}
		e, err := ednEvent(m)
		if err != nil {
			return "", err
		}
		return "", rd.pr.Add(&e)
	}
	if len(items)%2 != 0 {
		return "", history.Errorf(line, "map has a key without a value")
	}
	rd.meta = map[string]history.Value{}
	for i := 0; i < len(items); i += 2 {
		k, ok := items[i].name()
		if !ok {
			return "", history.Errorf(items[i].line, "wrapper keys must be keywords or strings, got %s", items[i].describe())
		}
		rd.meta[k] = items[i+1].value()
	}
	return "map with a :history entry", nil
}
