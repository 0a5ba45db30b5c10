package history

import (
	"strconv"
	"strings"
	"unsafe"
)

// ListBuilder writes a list Value's encoding element by element, the
// lists nested in it included, into one buffer: a reader then makes one
// string per list it reads rather than one per nested list and per
// element (transactional histories hold millions of micro-operations,
// each a list, most holding another). The zero ListBuilder is ready to
// use; it is reused after Reset.
type ListBuilder struct {
	buf []byte
	// open holds, per nested list not yet closed, where its elements
	// begin in buf.
	open []int
	// block is the free rest of the memory List copies lists into, once
	// UseBlocks is called.
	block     []byte
	useBlocks bool
	// scratch, when set, is where List copies lists instead.
	scratch *Scratch
}

// listBlock is the size of the blocks lists are copied into, and
// blockedList the largest list copied into one: a longer list gets its
// own memory, so that a block wastes at most that much at its end.
const (
	listBlock   = 64 << 10
	blockedList = listBlock / 16
)

// UseBlocks makes List copy the lists into shared blocks of memory, one
// allocation per block rather than one per list: for a reader whose
// lists go into a history and live as long as it does. A block stays in
// memory while any list in it does.
func (b *ListBuilder) UseBlocks() { b.useBlocks = true }

// Reset empties the builder, keeping its buffers.
func (b *ListBuilder) Reset() {
	b.buf, b.open = b.buf[:0], b.open[:0]
}

// Add appends v to the innermost open list.
func (b *ListBuilder) Add(v Value) {
	b.buf = append(b.buf, byte(v.kind))
	b.buf = strconv.AppendInt(b.buf, int64(len(v.text)), 10)
	b.buf = append(b.buf, ':')
	b.buf = append(b.buf, v.text...)
}

// AddInt appends IntValue(n) to the innermost open list.
func (b *ListBuilder) AddInt(n int64) {
	var digits [20]byte
	t := strconv.AppendInt(digits[:0], n, 10)
	b.buf = append(b.buf, byte(Int))
	b.buf = strconv.AppendInt(b.buf, int64(len(t)), 10)
	b.buf = append(b.buf, ':')
	b.buf = append(b.buf, t...)
}

// AddDigits appends the integer t writes, when t is IntValue's text of
// it (an optional minus, then digits without a leading zero; not -0) of
// at most 18 digits, and reports whether it was: readers pass the
// digits they read without converting them twice.
func (b *ListBuilder) AddDigits(t []byte) bool {
	d := t
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || d[0] == '0' && (len(d) > 1 || len(t) > 1) {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	if len(t) < 10 {
		// The kind, one digit of length and the colon, written at once.
		b.buf = append(b.buf, byte(Int), byte('0'+len(t)), ':')
	} else {
		b.buf = append(b.buf, byte(Int))
		b.buf = strconv.AppendInt(b.buf, int64(len(t)), 10)
		b.buf = append(b.buf, ':')
	}
	b.buf = append(b.buf, t...)
	return true
}

// AddString appends StringValue(string(s)) to the innermost open list.
func (b *ListBuilder) AddString(s []byte) {
	b.buf = append(b.buf, byte(String))
	b.buf = strconv.AppendInt(b.buf, int64(len(s)), 10)
	b.buf = append(b.buf, ':')
	b.buf = append(b.buf, s...)
}

// Open starts a list nested in the innermost open list, as its next
// element; Close ends it.
func (b *ListBuilder) Open() {
	b.buf = append(b.buf, byte(List))
	b.open = append(b.open, len(b.buf))
}

// Close ends the innermost open list. The length of an element's text
// comes before the text: the nested list's elements move up to make room
// for it, which costs a copy of them, not an allocation.
func (b *ListBuilder) Close() {
	start := b.open[len(b.open)-1]
	b.open = b.open[:len(b.open)-1]
	n := len(b.buf) - start
	var digits [20]byte
	head := append(strconv.AppendInt(digits[:0], int64(n), 10), ':')
	for range head {
		b.buf = append(b.buf, 0)
	}
	copy(b.buf[start+len(head):], b.buf[start:start+n])
	copy(b.buf[start:], head)
}

// Depth is the number of nested lists open.
func (b *ListBuilder) Depth() int { return len(b.open) }

// List returns the list of the elements added outside any nested list,
// ListValue of them. It panics if a nested list is still open (a
// programming error).
func (b *ListBuilder) List() Value {
	if len(b.open) > 0 {
		panic("history.ListBuilder: a nested list is still open")
	}
	return Value{kind: List, text: b.text()}
}

// SetScratch makes List copy the lists into s until it is called again
// with nil: a reader parses a batch of events into s, then keeps the
// lists that are to outlive it (Keep) before s is reused.
func (b *ListBuilder) SetScratch(s *Scratch) { b.scratch = s }

// Keep returns v, or a copy of it made as List makes one when v's
// encoding lies in the scratch memory set by SetScratch.
func (b *ListBuilder) Keep(v Value) Value {
	if b.scratch == nil || !b.scratch.holds(v.text) {
		return v
	}
	return Value{kind: v.kind, text: b.copied(v.text)}
}

// text is a copy of the encoding built: in the scratch memory when one
// is set, in a block when UseBlocks was called, else in memory of its
// own.
func (b *ListBuilder) text() string {
	if len(b.buf) == 0 {
		return ""
	}
	if b.scratch != nil {
		return b.scratch.copy(b.buf)
	}
	// A view of buf, which copied copies.
	return b.copied(unsafe.String(&b.buf[0], len(b.buf)))
}

// copied is a copy of s, in a block when UseBlocks was called.
func (b *ListBuilder) copied(s string) string {
	n := len(s)
	if !b.useBlocks || n == 0 || n > blockedList {
		return strings.Clone(s)
	}
	if cap(b.block)-len(b.block) < n {
		b.block = make([]byte, 0, listBlock)
	}
	at := len(b.block)
	b.block = append(b.block, s...)
	// The block's bytes up to its length are never written again.
	return unsafe.String(&b.block[at], n)
}

// Scratch is memory lists are copied into for a while (see
// ListBuilder.SetScratch), in chunks kept from one use to the next.
type Scratch struct {
	chunks [][]byte
	used   int // the chunks in use, the last one partly
}

// Reset makes the memory free for new lists: those copied into it
// before must no longer be used.
func (s *Scratch) Reset() {
	for i := range s.chunks[:s.used] {
		s.chunks[i] = s.chunks[i][:0]
	}
	s.used = 0
}

// copy copies buf into the scratch memory.
func (s *Scratch) copy(buf []byte) string {
	n := len(buf)
	if s.used == 0 || cap(s.chunks[s.used-1])-len(s.chunks[s.used-1]) < n {
		if s.used == len(s.chunks) {
			s.chunks = append(s.chunks, make([]byte, 0, max(listBlock, n)))
		}
		if cap(s.chunks[s.used]) < n {
			s.chunks[s.used] = make([]byte, 0, n)
		}
		s.used++
	}
	c := &s.chunks[s.used-1]
	at := len(*c)
	*c = append(*c, buf...)
	return unsafe.String(&(*c)[at], n)
}

// holds reports whether text lies in the scratch memory.
func (s *Scratch) holds(text string) bool {
	if len(text) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	for _, c := range s.chunks[:s.used] {
		if len(c) > 0 {
			lo := uintptr(unsafe.Pointer(&c[0]))
			if p >= lo && p < lo+uintptr(len(c)) {
				return true
			}
		}
	}
	return false
}
