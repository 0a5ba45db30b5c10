package history

import "strings"

// shortNames abbreviates operation names the way the textbook writes them.
var shortNames = map[string]string{"read": "r", "write": "w", "r": "r", "w": "w"}

// Label renders the operation in the textbook's form, "B:r(0)", "A:w(1)",
// "C:cas(1, 2)", with the key when there is one ("A:w(x, 1)"), and "?" for a
// read whose result is unknown. A read or write of nil shows nil, as does a
// completed dequeue that returned nil (a violation of the queue models). The
// process and operation names are shown through Quote and the values
// through Value.String, so a label is always one line of printable text.
func (o *Op) Label() string {
	var sb strings.Builder
	sb.Grow(len(o.Client) + len(o.F) + len(o.Key.text) + len(o.Value.text) + 8)
	sb.WriteString(Quote(o.Client))
	sb.WriteByte(':')
	f := o.F
	if s, ok := shortNames[f]; ok {
		f = s
	}
	sb.WriteString(Quote(f))
	sb.WriteByte('(')
	// The arguments, separated by commas, written as they come.
	sep := ""
	arg := func(s string) {
		sb.WriteString(sep)
		sb.WriteString(s)
		sep = ", "
	}
	if !o.Key.IsNone() {
		arg(o.Key.String())
	}
	switch {
	case o.Status == Info && (f == "r" || f == "get") && o.Value.IsNil():
		arg("?")
	case o.Value.Kind() == List && (f == "cas" || f == "compare-and-set"):
		var buf [3]Value
		for _, e := range o.Value.AppendElems(buf[:0]) {
			arg(e.String())
		}
	case o.Value.IsNone():
	case o.Value.IsNil() && f != "r" && f != "get" && f != "w" && f != "put" && (f != "dequeue" || o.Status != OK):
		// An operation with nothing to say (an acquire, a dequeue's
		// invocation) carries nil; a register's nil is a value, and so
		// is what a completed dequeue returned.
	default:
		arg(o.Value.String())
	}
	sb.WriteByte(')')
	return sb.String()
}
