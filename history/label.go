package history

import "strings"

// shortNames abbreviates operation names the way the textbook writes them.
var shortNames = map[string]string{"read": "r", "write": "w", "r": "r", "w": "w"}

// Label renders the operation in the textbook's form, "B:r(0)", "A:w(1)",
// "C:cas(1, 2)", with the key when there is one ("A:w(x, 1)"), and "?" for a
// read whose result is unknown.
func (o *Op) Label() string {
	var sb strings.Builder
	sb.WriteString(o.Client)
	sb.WriteByte(':')
	f := o.F
	if s, ok := shortNames[f]; ok {
		f = s
	}
	sb.WriteString(f)
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
	case o.Value.IsNil() && f != "r" && f != "get":
	default:
		args = append(args, o.Value.String())
	}
	sb.WriteString(strings.Join(args, ", "))
	sb.WriteByte(')')
	return sb.String()
}
