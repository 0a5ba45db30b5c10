package format

import (
	"math"
	"strconv"

	"github.com/histcheck/histcheck/history"
)

// ednFast reads a plain op map straight into an event, without
// ednParser's tree of nodes and without math/big for integers that fit in
// 64 bits. Like fastJSON it handles the common forms only: on anything
// else (escapes in strings, characters, floats, big integers, metadata,
// tags inside values, discards, a duplicate or missing field) it gives up,
// and the caller reads the form again with ednParser, which gives the
// exact result or error. So the two agree on every form ednFast accepts.
type ednFast struct {
	b      []byte
	i      int
	intern interner
	// lists[d] is reused for the elements of a collection at depth d.
	lists [][]history.Value
	// lb builds vectors and lists, nested ones included, as one encoding;
	// building is set while it does (a set or map inside such a list
	// builds its own values, and lists inside it, with coll).
	lb       history.ListBuilder
	building bool
}

// newEDNFast returns a parser whose lists are copied into shared blocks
// (history.ListBuilder.UseBlocks): its events go into a history.
func newEDNFast() *ednFast {
	p := &ednFast{}
	p.lb.UseBlocks()
	return p
}

// name returns b as a string, shared with earlier equal names: field
// names, keywords, processes.
func (p *ednFast) name(b []byte) string { return p.intern.name(b) }

// space passes whitespace, commas and comments.
func (p *ednFast) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\n', '\t', '\r', ',', '\f':
			p.i++
		case ';':
			for p.i < len(p.b) && p.b[p.i] != '\n' {
				p.i++
			}
		default:
			return
		}
	}
}

// token returns the bytes up to the next delimiter.
func (p *ednFast) token() []byte {
	start := p.i
	for p.i < len(p.b) && !isDelim(p.b[p.i]) {
		p.i++
	}
	return p.b[start:p.i]
}

// keyword reads a keyword's name, without its colon; names that start
// with another colon are left to the parser.
func (p *ednFast) keyword() ([]byte, bool) {
	if p.i >= len(p.b) || p.b[p.i] != ':' {
		return nil, false
	}
	p.i++
	t := p.token()
	return t, len(t) > 0 && t[0] != ':'
}

// rawString reads a string without escapes.
func (p *ednFast) rawString() ([]byte, bool) {
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		switch p.b[j] {
		case '"':
			p.i = j + 1
			return p.b[start:j], true
		case '\\':
			return nil, false
		}
	}
	return nil, false
}

// parseEDNInt parses an integer of at most 18 digits, which always fits in an
// int64, written as ednParser.number reads it (no sign but '-').
func parseEDNInt(t []byte) (int64, bool) {
	d := t
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(d) < len(t) {
		n = -n
	}
	return n, true
}

// value reads any value as ednNode.value would convert it.
func (p *ednFast) value(depth int) (history.Value, bool) {
	p.space()
	if p.i >= len(p.b) || depth > fastDepth {
		return history.Value{}, false
	}
	switch p.b[p.i] {
	case '"':
		s, ok := p.rawString()
		return history.StringValue(string(s)), ok
	case '[', '(':
		if !p.building {
			return p.list(depth)
		}
		return p.coll(depth, closing(p.b[p.i]), history.List)
	case '{':
		return p.coll(depth, '}', history.Map)
	case '#':
		if p.i+1 < len(p.b) && p.b[p.i+1] == '{' {
			p.i++
			return p.coll(depth, '}', history.Set)
		}
		return history.Value{}, false
	case ':':
		k, ok := p.keyword()
		if !ok {
			return history.Value{}, false
		}
		return history.StringValue(p.name(k)), true
	case '\\', '^', ')', ']', '}':
		return history.Value{}, false
	}
	return p.atom(p.token())
}

// atom reads nil, a boolean, an integer or a symbol.
func (p *ednFast) atom(t []byte) (history.Value, bool) {
	switch string(t) {
	case "nil":
		return history.NilValue, true
	case "true":
		return history.BoolValue(true), true
	case "false":
		return history.BoolValue(false), true
	case "":
		return history.Value{}, false
	}
	if c := t[0]; c >= '0' && c <= '9' || (c == '+' || c == '-') && len(t) > 1 && t[1] >= '0' && t[1] <= '9' {
		n, ok := parseEDNInt(t)
		return history.IntValue(n), ok
	}
	return history.StringValue(string(t)), true
}

// closing is the bracket that closes the vector or list opened by c.
func closing(c byte) byte {
	if c == '(' {
		return ')'
	}
	return ']'
}

// list reads a vector or list, from its opening bracket, its elements at
// depth+1, with the list builder: the value and the lists nested in it
// are written as one encoding.
func (p *ednFast) list(depth int) (history.Value, bool) {
	p.lb.Reset()
	p.building = true
	defer func() { p.building = false }()
	if !p.elems(depth) {
		return history.Value{}, false
	}
	return p.lb.List(), true
}

// elems adds the elements of the vector or list that opens at p.i to the
// builder's innermost open list.
func (p *ednFast) elems(depth int) bool {
	close := closing(p.b[p.i])
	p.i++
	for {
		p.space()
		if p.i >= len(p.b) {
			return false
		}
		if p.b[p.i] == close {
			p.i++
			return true
		}
		if !p.elem(depth + 1) {
			return false
		}
	}
}

// elem adds the value at p.i, at depth, to the builder: as value would
// read it, and without a Value of its own for lists, strings, keywords
// and integers.
func (p *ednFast) elem(depth int) bool {
	if depth > fastDepth {
		return false
	}
	switch p.b[p.i] {
	case '[', '(':
		p.lb.Open()
		if !p.elems(depth) {
			return false
		}
		p.lb.Close()
		return true
	case '"':
		s, ok := p.rawString()
		p.lb.AddString(s)
		return ok
	case ':':
		k, ok := p.keyword()
		p.lb.AddString(k)
		return ok
	case '{', '#', '\\', '^', ')', ']', '}':
		v, ok := p.value(depth)
		p.lb.Add(v)
		return ok
	}
	t := p.token()
	if len(t) > 0 {
		if c := t[0]; c >= '0' && c <= '9' || (c == '+' || c == '-') && len(t) > 1 && t[1] >= '0' && t[1] <= '9' {
			if p.lb.AddDigits(t) {
				return true
			}
			n, ok := parseEDNInt(t)
			p.lb.AddInt(n)
			return ok
		}
	}
	v, ok := p.atom(t)
	p.lb.Add(v)
	return ok
}

// coll reads a vector, list, set or map from its opening bracket up to
// close, its elements at depth+1.
func (p *ednFast) coll(depth int, close byte, kind history.ValueKind) (history.Value, bool) {
	p.i++
	for len(p.lists) <= depth {
		p.lists = append(p.lists, nil)
	}
	vs := p.lists[depth][:0]
	defer func() { p.lists[depth] = vs[:0] }()
	for {
		p.space()
		if p.i >= len(p.b) {
			return history.Value{}, false
		}
		if p.b[p.i] == close {
			p.i++
			break
		}
		v, ok := p.value(depth + 1)
		if !ok {
			return history.Value{}, false
		}
		vs = append(vs, v)
	}
	switch kind {
	case history.Set:
		return history.SetValue(vs...), true
	case history.Map:
		if len(vs)%2 != 0 {
			return history.Value{}, false
		}
		ks, xs := make([]history.Value, 0, len(vs)/2), make([]history.Value, 0, len(vs)/2)
		for i := 0; i < len(vs); i += 2 {
			ks, xs = append(ks, vs[i]), append(xs, vs[i+1])
		}
		return history.MapValue(ks, xs), true
	}
	return history.ListValue(vs...), true
}

// opMap reads an op map, possibly tagged (#jepsen.history.Op{…}), at
// the start of b, on line, with the same result as ednEvent over
// ednParser's tree, and returns where it ends; ok is false when it gives
// up, or b ends first.
func (p *ednFast) opMap(b []byte, line int) (e history.Event, end int, ok bool) {
	p.b, p.i = b, 0
	if len(b) > 1 && b[0] == '#' && b[1] != '{' && b[1] != '_' && b[1] != '#' {
		p.i++
		p.token() // the tag, which must touch its map
	}
	if p.i >= len(b) || b[p.i] != '{' {
		return e, 0, false
	}
	p.i++
	e.Line = line
	seen := 0
	for {
		p.space()
		if p.i < len(b) && b[p.i] == '}' {
			p.i++
			break
		}
		key, ok := p.keyword()
		if !ok {
			return e, 0, false
		}
		p.space()
		bit, ok := p.field(&e, key)
		if !ok || seen&bit != 0 {
			return e, 0, false
		}
		seen |= bit
	}
	// A missing field is left to the parser, which names it.
	const must = seenProcess | seenType | seenF
	return e, p.i, seen&must == must
}

// field reads the value of the field named key into e. It returns the bit
// that marks the field seen, or 0 for an extra field, which may not repeat
// either but is looked up among the extras instead.
func (p *ednFast) field(e *history.Event, key []byte) (bit int, ok bool) {
	switch string(key) {
	case "process":
		e.Process, ok = p.process()
		return seenProcess, ok
	case "type":
		var s []byte
		if s, ok = p.name1(); ok {
			e.Type, ok = history.ParseType(string(s))
		}
		return seenType, ok
	case "f":
		var s []byte
		if s, ok = p.name1(); ok {
			e.F = p.name(s)
		}
		return seenF, ok
	case "time":
		e.Time, e.HasTime, ok = p.optionalInt()
		if e.HasTime && e.Time == NoTime {
			e.Time, e.HasTime = 0, false
		}
		// Jepsen counts event times up from the start of the test.
		return seenTime, ok && e.Time >= 0
	case "index":
		e.Index, e.HasIdx, ok = p.optionalInt()
		return seenIndex, ok
	}
	if target, bit := operand(e, key); target != nil {
		*target, ok = p.value(1)
		return bit, ok
	}
	v, ok := p.value(1)
	name := p.name(key)
	if !ok || hasField(e.Extra, name) {
		return 0, false
	}
	e.Extra = append(e.Extra, history.Field{Name: name, Value: v})
	return 0, true
}

// name1 reads a name, as opName and processName accept it: a keyword or a
// string without escapes, less one leading colon, not empty and not
// starting with another.
func (p *ednFast) name1() ([]byte, bool) {
	if p.i >= len(p.b) {
		return nil, false
	}
	var s []byte
	ok := false
	switch p.b[p.i] {
	case ':':
		return p.keyword()
	case '"':
		s, ok = p.rawString()
	}
	if len(s) > 0 && s[0] == ':' {
		s = s[1:]
	}
	return s, ok && len(s) > 0 && s[0] != ':'
}

// process reads an event's process: a name or an integer, spelt as
// processName spells it.
func (p *ednFast) process() (string, bool) {
	if p.i < len(p.b) && (p.b[p.i] == ':' || p.b[p.i] == '"') {
		s, ok := p.name1()
		return p.name(s), ok
	}
	t := p.token()
	n, ok := parseEDNInt(t)
	if !ok {
		return "", false
	}
	if n >= 0 && n < 1<<20 && t[0] != '-' && (len(t) == 1 || t[0] != '0') {
		return p.name(t), true
	}
	return strconv.FormatInt(n, 10), true
}

// optionalInt reads a time or index: nil (not given), or an integer that
// fits in 64 bits (and, having at most 18 digits, is not the value
// reserved for "never").
func (p *ednFast) optionalInt() (n int64, given, ok bool) {
	t := p.token()
	if string(t) == "nil" {
		return 0, false, true
	}
	n, ok = parseEDNInt(t)
	return n, true, ok && n != math.MaxInt64
}
