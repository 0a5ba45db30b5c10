package history

import "strings"

// shortNames abbreviates operation names the way the textbook writes them.
var shortNames = map[string]string{"read": "r", "write": "w", "r": "r", "w": "w"}

// Label renders the operation in the textbook's form, "B:r(0)", "A:w(1)",
// "C:cas(1, 2)", with the key when there is one ("A:w(x, 1)"), and "?" for a
// read whose result is unknown. A read or write of nil shows nil. The
// process and operation names are shown through Quote and the values
// through Value.String, so a label is always one line of printable text.
func (o *Op) Label() string {
	var sb strings.Builder
	sb.WriteString(Quote(o.Client))
	sb.WriteByte(':')
	f := o.F
	if s, ok := shortNames[f]; ok {
		f = s
	}
	sb.WriteString(Quote(f))
	sb.WriteByte('(')
	var args []string
	if !o.Key.IsNone() {
		args = append(args, o.Key.String())
	}
	switch {
	case o.Status == Info && (f == "r" || f == "get") && o.Value.IsNil():
		args = append(args, "?")
	case o.Value.Kind() == List && (f == "cas" || f == "compare-and-set"):
		for _, e := range o.Value.Elems() {
			args = append(args, e.String())
		}
	case o.Value.IsNone():
	case o.Value.IsNil() && f != "r" && f != "get" && f != "w" && f != "put":
		// An operation with nothing to say (an acquire, a dequeue's
		// invocation) carries nil; a register's nil is a value.
	default:
		args = append(args, o.Value.String())
	}
	sb.WriteString(strings.Join(args, ", "))
	sb.WriteByte(')')
	return sb.String()
}
