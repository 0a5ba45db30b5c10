package report

import (
	"bufio"
	"io"
)

// indenter is an io.Writer that indents compact JSON as it writes it to
// w, as json.Indent with no prefix and indent would, without holding the
// indented text: json.Encoder's SetIndent builds it in a buffer of its
// own grown by doubling, which a short run pays in fresh pages. Each Write
// takes whole JSON values, as json.Encoder.Encode makes them (a value and
// its newline).
type indenter struct {
	w      *bufio.Writer
	indent string
	depth  int
	// open is set after '{' or '[' until the next byte shows whether the
	// value is empty ("{}" stays on one line, as json.Indent keeps it).
	open bool
	// str is set inside a string, esc after its backslash.
	str, esc bool
}

func (d *indenter) Write(p []byte) (int, error) {
	for _, c := range p {
		d.byte(c)
	}
	return len(p), nil
}

func (d *indenter) byte(c byte) {
	if d.str {
		d.w.WriteByte(c)
		switch {
		case d.esc:
			d.esc = false
		case c == '\\':
			d.esc = true
		case c == '"':
			d.str = false
		}
		return
	}
	if d.open && c != '}' && c != ']' {
		d.open = false
		d.newline()
	}
	switch c {
	case '"':
		d.str = true
		d.w.WriteByte(c)
	case '{', '[':
		d.w.WriteByte(c)
		d.open = true
		d.depth++
	case '}', ']':
		d.depth--
		if d.open {
			d.open = false
		} else {
			d.newline()
		}
		d.w.WriteByte(c)
	case ',':
		d.w.WriteByte(c)
		d.newline()
	case ':':
		d.w.WriteString(": ")
	default:
		d.w.WriteByte(c)
	}
}

func (d *indenter) newline() {
	d.w.WriteByte('\n')
	for range d.depth {
		d.w.WriteString(d.indent)
	}
}

// writeIndented writes, to w, what encode writes to the io.Writer it is
// given (compact JSON values) indented by indent.
func writeIndented(w io.Writer, indent string, encode func(io.Writer) error) error {
	bw := bufio.NewWriter(w)
	if err := encode(&indenter{w: bw, indent: indent}); err != nil {
		return err
	}
	return bw.Flush()
}
