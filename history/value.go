package history

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// ValueKind says what shape a Value has.
type ValueKind uint8

// The kinds of Value. None is the zero Value: a field that was not given.
const (
	None ValueKind = iota
	Nil
	Bool
	Int
	Float
	String
	List
	Set
	Map
)

var kindNames = [...]string{"none", "nil", "bool", "int", "float", "string", "list", "set", "map"}

func (k ValueKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is an immutable datum in canonical form, so that == compares by value:
// numbers by value (an integral float equals the integer), EDN keywords and
// symbols equal strings of the same name, lists equal vectors, sets and maps
// are compared regardless of order. Values are comparable and usable as map
// keys; the zero Value means "not given" (kind None).
type Value struct {
	kind ValueKind
	// text is the canonical encoding: decimal digits for Int, strconv 'g' for
	// Float, the raw string for String, "true"/"false" for Bool, and for the
	// composite kinds the concatenation of each element's encoding as
	// <kind byte><length>:<text>.
	text string
}

// NilValue is the null value (JSON null, EDN nil).
var NilValue = Value{kind: Nil}

// IntValue returns an integer Value.
func IntValue(n int64) Value { return Value{kind: Int, text: strconv.FormatInt(n, 10)} }

// BigIntValue returns an integer Value from decimal digits of any length
// (an optional leading minus). It reports false if s is not an integer.
func BigIntValue(s string) (Value, bool) {
	// Most integers fit in 64 bits: strconv reads exactly the decimal
	// strings big.Int does (an optional sign, then digits) without its
	// allocations, and IntValue writes the same canonical digits.
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return IntValue(n), true
	}
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return Value{}, false
	}
	return Value{kind: Int, text: b.String()}, true
}

// FloatValue returns a number Value; integral floats become integers so that
// 1.0 equals 1. NaN and infinities are kept as floats.
func FloatValue(f float64) Value {
	if f == math.Trunc(f) && !math.IsInf(f, 0) && math.Abs(f) < 1<<62 {
		return IntValue(int64(f))
	}
	return Value{kind: Float, text: strconv.FormatFloat(f, 'g', -1, 64)}
}

// StringValue returns a string Value (also used for EDN keywords and symbols).
func StringValue(s string) Value { return Value{kind: String, text: s} }

// BoolValue returns a boolean Value.
func BoolValue(b bool) Value {
	if b {
		return Value{kind: Bool, text: "true"}
	}
	return Value{kind: Bool, text: "false"}
}

func encodeElems(vs []Value) string {
	var sb strings.Builder
	// One allocation of the final size: lists are built by the million
	// when transactional histories are read.
	size := 0
	for _, v := range vs {
		size += 2 + len(v.text) + decimalDigits(len(v.text))
	}
	sb.Grow(size)
	for _, v := range vs {
		sb.WriteByte(byte(v.kind))
		sb.WriteString(strconv.Itoa(len(v.text)))
		sb.WriteByte(':')
		sb.WriteString(v.text)
	}
	return sb.String()
}

// decimalDigits is the length of n (≥ 0) written in decimal.
func decimalDigits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// ListValue returns an ordered sequence (JSON array, EDN vector or list).
func ListValue(vs ...Value) Value { return Value{kind: List, text: encodeElems(vs)} }

// SetValue returns an unordered collection without duplicates.
func SetValue(vs ...Value) Value {
	s := append([]Value(nil), vs...)
	sort.Slice(s, func(i, j int) bool { return Compare(s[i], s[j]) < 0 })
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return Value{kind: Set, text: encodeElems(out)}
}

// MapValue returns a map from keys[i] to vals[i]; a repeated key keeps its
// last value. It panics if the slices differ in length (a programming error).
func MapValue(keys, vals []Value) Value {
	if len(keys) != len(vals) {
		panic("history.MapValue: keys and values differ in length")
	}
	m := make(map[Value]Value, len(keys))
	for i, k := range keys {
		m[k] = vals[i]
	}
	ks := make([]Value, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return Compare(ks[i], ks[j]) < 0 })
	flat := make([]Value, 0, 2*len(ks))
	for _, k := range ks {
		flat = append(flat, k, m[k])
	}
	return Value{kind: Map, text: encodeElems(flat)}
}

// Kind returns the shape of v.
func (v Value) Kind() ValueKind { return v.kind }

// IsNone reports whether v is the zero Value (not given).
func (v Value) IsNone() bool { return v.kind == None }

// IsNil reports whether v is null.
func (v Value) IsNil() bool { return v.kind == Nil }

// Int returns v as an int64, if it is an integer that fits.
func (v Value) Int() (int64, bool) {
	if v.kind != Int {
		return 0, false
	}
	n, err := strconv.ParseInt(v.text, 10, 64)
	return n, err == nil
}

// Float returns v as a float64, if it is a number.
func (v Value) Float() (float64, bool) {
	if v.kind != Int && v.kind != Float {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.text, 64)
	return f, err == nil
}

// Str returns v's text if it is a string.
func (v Value) Str() (string, bool) { return v.text, v.kind == String }

// Bool returns v as a bool, if it is one.
func (v Value) Bool() (bool, bool) { return v.text == "true", v.kind == Bool }

// Text returns the canonical text of a scalar (digits of a number, the raw
// string); for composites it is an opaque encoding.
func (v Value) Text() string { return v.text }

// Elems returns the elements of a List or Set, or the alternating keys and
// values of a Map, and nil for scalars.
func (v Value) Elems() []Value {
	return v.AppendElems(nil)
}

// AppendElems appends what Elems returns to dst and returns the extended
// slice, so that callers that decode many values can reuse one buffer.
func (v Value) AppendElems(dst []Value) []Value {
	if v.kind < List {
		return dst
	}
	out := dst
	s := v.text
	for len(s) > 0 {
		k := ValueKind(s[0])
		// The length's digits, read in place: lists are decoded by the
		// million in transactional histories.
		i, n := 1, 0
		for ; s[i] != ':'; i++ {
			n = n*10 + int(s[i]-'0')
		}
		out = append(out, Value{kind: k, text: s[i+1 : i+1+n]})
		s = s[i+1+n:]
	}
	return out
}

// Pair returns the two elements of a list of two (a compare-and-set's
// [from to]) without building a slice of them; ok is false for any other
// value.
func (v Value) Pair() (a, b Value, ok bool) {
	if v.kind != List {
		return a, b, false
	}
	var buf [3]Value
	e := v.AppendElems(buf[:0])
	if len(e) != 2 {
		return a, b, false
	}
	return e[0], e[1], true
}

// NumElems returns len(v.Elems()) without building the elements.
func (v Value) NumElems() int {
	if v.kind < List {
		return 0
	}
	c := 0
	for s := v.text; len(s) > 0; c++ {
		i, n := 1, 0
		for ; s[i] != ':'; i++ {
			n = n*10 + int(s[i]-'0')
		}
		s = s[i+1+n:]
	}
	return c
}

// Len returns the number of elements of a List or Set, or entries of a Map.
func (v Value) Len() int {
	n := v.NumElems()
	if v.kind == Map {
		n /= 2
	}
	return n
}

// Compare orders values: first by kind, then numbers by value, strings
// lexically, composites element-wise. It is a total order consistent with ==.
func Compare(a, b Value) int {
	an := a.kind == Int || a.kind == Float
	bn := b.kind == Int || b.kind == Float
	if an && bn {
		if a.kind == Int && b.kind == Int {
			x, _ := new(big.Int).SetString(a.text, 10)
			y, _ := new(big.Int).SetString(b.text, 10)
			return x.Cmp(y)
		}
		x, _ := a.Float()
		y, _ := b.Float()
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return strings.Compare(a.kind.String()+a.text, b.kind.String()+b.text)
	}
	if a.kind != b.kind {
		if a.kind < b.kind {
			return -1
		}
		return 1
	}
	if a.kind >= List {
		ae, be := a.Elems(), b.Elems()
		for i := 0; i < len(ae) && i < len(be); i++ {
			if c := Compare(ae[i], be[i]); c != 0 {
				return c
			}
		}
		return len(ae) - len(be)
	}
	return strings.Compare(a.text, b.text)
}

// String renders v the way histories are written by hand: 1, "a" as a, nil,
// [1 2], #{1 2}, {a 1}. Strings are shown bare unless they contain spaces or
// brackets, so textbook witnesses read w(1), r(x); a string with characters
// that do not print is Go-quoted (see Quote), so the rendering is always
// one line of printable text.
func (v Value) String() string {
	switch v.kind {
	case None:
		return ""
	case Nil:
		return "nil"
	case String:
		if strings.ContainsAny(v.text, " []{}(),#") {
			return strconv.Quote(v.text)
		}
		return Quote(v.text)
	case List, Set, Map:
		es := v.Elems()
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = e.String()
		}
		switch v.kind {
		case List:
			return "[" + strings.Join(parts, " ") + "]"
		case Set:
			return "#{" + strings.Join(parts, " ") + "}"
		}
		var sb strings.Builder
		sb.WriteByte('{')
		for i := 0; i < len(parts); i += 2 {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(parts[i] + " " + parts[i+1])
		}
		sb.WriteByte('}')
		return sb.String()
	}
	return v.text
}

// GoString helps test failure messages.
func (v Value) GoString() string { return fmt.Sprintf("history.Value{%s %s}", v.kind, v.String()) }

// JSON returns the value as a JSON-compatible Go value (nil, bool, json.Number
// text as string for big numbers, string, []any, map[string]any). Maps
// whose keys are strings or integers are objects (integer keys written as
// their digits, as Jepsen writes them); other maps are lists of [key
// value] pairs.
func (v Value) JSON() any {
	switch v.kind {
	case None, Nil:
		return nil
	case Bool:
		return v.text == "true"
	case Int:
		if n, ok := v.Int(); ok {
			return n
		}
		return jsonNumber(v.text)
	case Float:
		f, _ := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return v.text
		}
		return f
	case String:
		return v.text
	case List, Set:
		es := v.Elems()
		out := make([]any, len(es))
		for i, e := range es {
			out[i] = e.JSON()
		}
		return out
	case Map:
		if m, ok := v.jsonObject(); ok {
			return m
		}
		es := v.Elems()
		out := make([]any, 0, len(es)/2)
		for i := 0; i < len(es); i += 2 {
			out = append(out, []any{es[i].JSON(), es[i+1].JSON()})
		}
		return out
	}
	return nil
}

// jsonObject renders a map whose keys are strings or integers as a JSON
// object, the integers written as their digits, as Jepsen's JSON does
// (a bank's balances by account); it reports false when a key is of
// another kind or two keys would share their text.
func (v Value) jsonObject() (map[string]any, bool) {
	es := v.Elems()
	m := make(map[string]any, len(es)/2)
	for i := 0; i < len(es); i += 2 {
		if k := es[i].kind; k != String && k != Int {
			return nil, false
		}
		if _, dup := m[es[i].text]; dup {
			return nil, false
		}
		m[es[i].text] = es[i+1].JSON()
	}
	return m, true
}

// jsonNumber marshals as a bare JSON number of any size.
type jsonNumber string

// MarshalJSON writes the digits unquoted.
func (n jsonNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }
