package history

import "strconv"

// ListBuilder builds a list whose elements are scalars or lists of
// scalars (a transaction's micro-operations, [[w 1 2] [r 1 nil]]) into
// one string, without a Value per element: readers of transactional
// histories build millions of them. The zero ListBuilder is ready; after
// List it is empty again and reuses its buffers.
type ListBuilder struct {
	top, row []byte
	inRow    bool
	digits   [20]byte
}

// Row starts a nested list; the elements added until EndRow go into it.
func (b *ListBuilder) Row() { b.inRow, b.row = true, b.row[:0] }

// EndRow ends the nested list and adds it to the list.
func (b *ListBuilder) EndRow() {
	b.inRow = false
	b.top = appendElem(b.top, List, b.row)
}

// Int adds an integer.
func (b *ListBuilder) Int(n int64) { b.add(Int, strconv.AppendInt(b.digits[:0], n, 10)) }

// Nil adds nil.
func (b *ListBuilder) Nil() { b.add(Nil, nil) }

// Value adds a value.
func (b *ListBuilder) Value(v Value) { b.addString(v.kind, v.text) }

func (b *ListBuilder) add(k ValueKind, text []byte) {
	if b.inRow {
		b.row = appendElem(b.row, k, text)
		return
	}
	b.top = appendElem(b.top, k, text)
}

func (b *ListBuilder) addString(k ValueKind, text string) {
	dst := &b.top
	if b.inRow {
		dst = &b.row
	}
	if len(text) < 10 {
		*dst = append(*dst, byte(k), '0'+byte(len(text)), ':')
	} else {
		*dst = append(*dst, byte(k))
		*dst = strconv.AppendInt(*dst, int64(len(text)), 10)
		*dst = append(*dst, ':')
	}
	*dst = append(*dst, text...)
}

// appendElem appends one element's encoding (see Value.text).
func appendElem(dst []byte, k ValueKind, text []byte) []byte {
	if len(text) < 10 { // most elements: one digit of length
		dst = append(dst, byte(k), '0'+byte(len(text)), ':')
		return append(dst, text...)
	}
	dst = append(dst, byte(k))
	dst = strconv.AppendInt(dst, int64(len(text)), 10)
	dst = append(dst, ':')
	return append(dst, text...)
}

// List returns the list built and empties the builder.
func (b *ListBuilder) List() Value {
	v := Value{kind: List, text: string(b.top)}
	b.top, b.inRow = b.top[:0], false
	return v
}
