package format

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/histcheck/histcheck/history"
)

// ednFormat is Jepsen op maps in EDN.
var ednFormat = Format{
	Name:       EDN,
	Summary:    "Jepsen op maps in EDN",
	Extensions: []string{".edn"},
	Events:     true,
	Sniff:      sniffEDN,
	Read:       readEDNInput,
	Write:      buffered(writeEDN),
}

// sniffEDN claims input that starts with a ; comment, a list, a tagged
// form, reader metadata (^), or a vector or map with keywords in it.
func sniffEDN(head []byte) int {
	k, rest := lead(head)
	switch k {
	case leadEDN:
		return 4
	case leadNotation:
		return 0
	}
	switch firstByte(rest) {
	case '(', '#', '^':
		return 4
	case '[', '{':
		if hasEDNKeyword(rest) {
			return 4
		}
	}
	return 0
}

// ednKind is the shape of a parsed EDN form.
type ednKind uint8

const (
	ednNil ednKind = iota
	ednBool
	ednInt
	ednFloat
	ednString
	ednKeyword
	ednSymbol
	ednList
	ednVector
	ednMap
	ednSet
)

// ednNode is one EDN form with the line it starts on, so that op maps and
// their bad fields can be reported where they are.
type ednNode struct {
	kind  ednKind
	text  string // scalar text: digits, the string's contents, a keyword's name without ':'
	items []*ednNode
	line  int
}

// ednParser is a recursive-descent EDN reader over the whole input.
type ednParser struct {
	src  []byte
	pos  int
	line int
}

// maxEDNDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxEDNDepth = 1000

func newEDNParser(src []byte, line int) *ednParser {
	return &ednParser{src: src, line: line}
}

func (p *ednParser) errorf(line int, format string, args ...any) *history.InputError {
	return history.Errorf(line, format, args...)
}

// skip passes whitespace, commas, comments and #_ discarded forms.
func (p *ednParser) skip(depth int) error {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '\n':
			p.line++
			p.pos++
		case c == ' ' || c == '\t' || c == '\r' || c == ',' || c == '\f':
			p.pos++
		case c == ';':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '#' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '_':
			p.pos += 2
			if _, err := p.form(depth + 1); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

// atEnd skips to the next form and reports whether there is none.
func (p *ednParser) atEnd() (bool, error) {
	if err := p.skip(0); err != nil {
		return false, err
	}
	return p.pos >= len(p.src), nil
}

func isDelim(c byte) bool { return delims[c] }

// delims marks the bytes that end a token: whitespace, commas, brackets,
// the quote and the comment's semicolon. Readers test every byte of a
// token, and a table costs less than the comparisons.
var delims = func() (t [256]bool) {
	for _, c := range []byte(" \t\r\n,\f()[]{}\";") {
		t[c] = true
	}
	return t
}()

var closers = map[byte]byte{'(': ')', '[': ']', '{': '}'}

// form reads the next form; the caller has checked there is one.
func (p *ednParser) form(depth int) (*ednNode, error) {
	if depth > maxEDNDepth {
		return nil, p.errorf(p.line, "EDN nested more than %d deep", maxEDNDepth)
	}
	if err := p.skip(depth); err != nil {
		return nil, err
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf(p.line, "unexpected end of input; expected an EDN value")
	}
	if p.src[p.pos] == '^' {
		if err := p.meta(depth); err != nil {
			return nil, err
		}
	}
	line := p.line
	c := p.src[p.pos]
	switch c {
	case '(', '[', '{':
		p.pos++
		kind := ednMap
		switch c {
		case '(':
			kind = ednList
		case '[':
			kind = ednVector
		}
		return p.coll(kind, c, closers[c], line, depth)
	case '#':
		if p.pos+1 < len(p.src) {
			switch p.src[p.pos+1] {
			case '{':
				p.pos += 2
				return p.coll(ednSet, '{', '}', line, depth)
			case '#':
				p.pos += 2
				tok := p.token()
				switch tok {
				case "Inf":
					return &ednNode{kind: ednFloat, text: "+Inf", line: line}, nil
				case "-Inf":
					return &ednNode{kind: ednFloat, text: "-Inf", line: line}, nil
				case "NaN":
					return &ednNode{kind: ednFloat, text: "NaN", line: line}, nil
				}
				return nil, p.errorf(line, "unknown symbolic value ##%s", tok)
			}
		}
		p.pos++
		if tok := p.token(); tok == "" {
			return nil, p.errorf(line, "unexpected '#'")
		}
		// A tagged literal: the tag names what the next form stands for
		// (Jepsen writes op records as #jepsen.history.Op{…}, Clojure
		// #inst "…" and #uuid "…"); histcheck reads the form as it is.
		if p.pos >= len(p.src) {
			return nil, p.errorf(line, "a tagged literal needs a value after its tag")
		}
		return p.form(depth + 1)
	case ')', ']', '}':
		return nil, p.errorf(line, "unexpected '%c' with no open collection", c)
	case '"':
		return p.str(line)
	case '\\':
		p.pos++
		return p.char(line)
	case ':':
		p.pos++
		tok := p.token()
		if tok == "" {
			return nil, p.errorf(line, "a keyword needs a name after ':'")
		}
		return &ednNode{kind: ednKeyword, text: strings.TrimPrefix(tok, ":"), line: line}, nil
	}
	tok := p.token()
	if tok == "" {
		r, _ := utf8.DecodeRune(p.src[p.pos:])
		return nil, p.errorf(line, "unexpected character %q", r)
	}
	return p.atom(tok, line)
}

// meta passes reader metadata before a form: ^{…}, ^:keyword, ^Symbol or
// ^"tag", any number of them. Metadata attaches to the next form and is not
// a value, so it is read (to find where it ends and to report bad input)
// and dropped; Jepsen writes it before op maps. On return a form follows.
func (p *ednParser) meta(depth int) error {
	for p.pos < len(p.src) && p.src[p.pos] == '^' {
		line := p.line
		p.pos++
		if err := p.skip(depth); err != nil {
			return err
		}
		if p.pos >= len(p.src) || isCloser(p.src[p.pos]) {
			return p.errorf(line, "'^' needs metadata after it: a map, a keyword or a symbol")
		}
		m, err := p.form(depth + 1)
		if err != nil {
			return err
		}
		switch m.kind {
		case ednMap, ednKeyword, ednSymbol, ednString:
		default:
			return p.errorf(m.line, "metadata after '^' must be a map, a keyword or a symbol, got %s", m.describe())
		}
		if err := p.skip(depth); err != nil {
			return err
		}
		if p.pos >= len(p.src) || isCloser(p.src[p.pos]) {
			return p.errorf(line, "metadata after '^' has no form after it to attach to")
		}
	}
	return nil
}

func isCloser(c byte) bool { return c == ')' || c == ']' || c == '}' }

// token reads up to the next delimiter.
func (p *ednParser) token() string {
	start := p.pos
	for p.pos < len(p.src) && !isDelim(p.src[p.pos]) {
		p.pos++
	}
	return string(p.src[start:p.pos])
}

func (p *ednParser) coll(kind ednKind, open, close byte, line, depth int) (*ednNode, error) {
	n := &ednNode{kind: kind, line: line}
	for {
		if err := p.skip(depth); err != nil {
			return nil, err
		}
		if p.pos >= len(p.src) {
			return nil, p.errorf(p.line, "unexpected end of input; the '%c' opened at line %d is not closed", open, line)
		}
		c := p.src[p.pos]
		if c == close {
			p.pos++
			break
		}
		if c == ')' || c == ']' || c == '}' {
			return nil, p.errorf(p.line, "unexpected '%c'; expected '%c' to close the '%c' opened at line %d", c, close, open, line)
		}
		item, err := p.form(depth + 1)
		if err != nil {
			return nil, err
		}
		n.items = append(n.items, item)
	}
	if kind == ednMap && len(n.items)%2 != 0 {
		return nil, p.errorf(line, "map has a key without a value")
	}
	return n, nil
}

func (p *ednParser) str(line int) (*ednNode, error) {
	p.pos++ // opening quote
	var sb strings.Builder
	for {
		if p.pos >= len(p.src) {
			return nil, p.errorf(line, "unterminated string starting at line %d", line)
		}
		c := p.src[p.pos]
		switch c {
		case '"':
			p.pos++
			return &ednNode{kind: ednString, text: sb.String(), line: line}, nil
		case '\n':
			p.line++
			sb.WriteByte(c)
			p.pos++
		case '\\':
			if p.pos+1 >= len(p.src) {
				return nil, p.errorf(line, "unterminated string starting at line %d", line)
			}
			e := p.src[p.pos+1]
			p.pos += 2
			switch e {
			case 't':
				sb.WriteByte('\t')
			case 'r':
				sb.WriteByte('\r')
			case 'n':
				sb.WriteByte('\n')
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case '\\', '"', '\'':
				sb.WriteByte(e)
			case 'u':
				if p.pos+4 > len(p.src) {
					return nil, p.errorf(p.line, "bad \\u escape in string")
				}
				r, err := strconv.ParseUint(string(p.src[p.pos:p.pos+4]), 16, 32)
				if err != nil {
					return nil, p.errorf(p.line, "bad \\u escape in string")
				}
				sb.WriteRune(rune(r))
				p.pos += 4
			default:
				return nil, p.errorf(p.line, "unknown escape %s in string", history.Quote(`\`+string(rune(e))))
			}
		default:
			sb.WriteByte(c)
			p.pos++
		}
	}
}

var namedChars = map[string]string{"newline": "\n", "space": " ", "tab": "\t", "return": "\r", "backspace": "\b", "formfeed": "\f"}

func (p *ednParser) char(line int) (*ednNode, error) {
	if p.pos >= len(p.src) {
		return nil, p.errorf(line, "unexpected end of input after '\\'")
	}
	// The first character is taken even if it is a delimiter (\( or \space).
	r, size := utf8.DecodeRune(p.src[p.pos:])
	p.pos += size
	rest := p.token()
	if rest == "" {
		return &ednNode{kind: ednString, text: string(r), line: line}, nil
	}
	name := string(r) + rest
	if s, ok := namedChars[name]; ok {
		return &ednNode{kind: ednString, text: s, line: line}, nil
	}
	if r == 'u' && len(rest) == 4 {
		if n, err := strconv.ParseUint(rest, 16, 32); err == nil {
			return &ednNode{kind: ednString, text: string(rune(n)), line: line}, nil
		}
	}
	return nil, p.errorf(line, "unknown character literal %s", history.Quote(`\`+name))
}

func (p *ednParser) atom(tok string, line int) (*ednNode, error) {
	switch tok {
	case "nil":
		return &ednNode{kind: ednNil, line: line}, nil
	case "true", "false":
		return &ednNode{kind: ednBool, text: tok, line: line}, nil
	}
	c := tok[0]
	if c >= '0' && c <= '9' || (c == '+' || c == '-') && len(tok) > 1 && tok[1] >= '0' && tok[1] <= '9' {
		return p.number(tok, line)
	}
	return &ednNode{kind: ednSymbol, text: tok, line: line}, nil
}

func (p *ednParser) number(tok string, line int) (*ednNode, error) {
	if strings.Contains(tok, "/") {
		return nil, p.errorf(line, "ratio %s is not supported; write a decimal number", tok)
	}
	digits := strings.TrimPrefix(tok, "+")
	if strings.HasSuffix(digits, "N") {
		if v, ok := history.BigIntValue(strings.TrimSuffix(digits, "N")); ok {
			return &ednNode{kind: ednInt, text: v.Text(), line: line}, nil
		}
		return nil, p.errorf(line, "bad number %s", tok)
	}
	if v, ok := history.BigIntValue(digits); ok && !strings.ContainsAny(digits, "eE.") {
		return &ednNode{kind: ednInt, text: v.Text(), line: line}, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(digits, "M"), 64)
	if err != nil || strings.ContainsAny(digits, "xX_") || math.IsInf(f, 0) {
		return nil, p.errorf(line, "bad number %s", tok)
	}
	return &ednNode{kind: ednFloat, text: strconv.FormatFloat(f, 'g', -1, 64), line: line}, nil
}

// value converts a form to a history Value: keywords and symbols become
// strings of their name, vectors and lists become lists.
func (n *ednNode) value() history.Value {
	switch n.kind {
	case ednNil:
		return history.NilValue
	case ednBool:
		return history.BoolValue(n.text == "true")
	case ednInt:
		v, _ := history.BigIntValue(n.text)
		return v
	case ednFloat:
		f, _ := strconv.ParseFloat(n.text, 64)
		return history.FloatValue(f)
	case ednString, ednKeyword, ednSymbol:
		return history.StringValue(n.text)
	case ednList, ednVector, ednSet:
		vs := make([]history.Value, len(n.items))
		for i, it := range n.items {
			vs[i] = it.value()
		}
		if n.kind == ednSet {
			return history.SetValue(vs...)
		}
		return history.ListValue(vs...)
	case ednMap:
		ks := make([]history.Value, 0, len(n.items)/2)
		vs := make([]history.Value, 0, len(n.items)/2)
		for i := 0; i+1 < len(n.items); i += 2 {
			ks = append(ks, n.items[i].value())
			vs = append(vs, n.items[i+1].value())
		}
		return history.MapValue(ks, vs)
	}
	return history.Value{}
}

// name returns the text of a keyword, symbol or string, for map keys and
// names such as :f.
func (n *ednNode) name() (string, bool) {
	switch n.kind {
	case ednKeyword, ednSymbol, ednString:
		return n.text, true
	}
	return "", false
}

func (n *ednNode) describe() string {
	switch n.kind {
	case ednKeyword:
		return ":" + n.text
	case ednString:
		return strconv.Quote(n.text)
	}
	return n.value().String()
}

// ednEvent reads one op map.
func ednEvent(m *ednNode) (history.Event, error) {
	if m.kind != ednMap {
		return history.Event{}, history.Errorf(m.line, "expected an op map {:process … :type … :f …}, got %s", m.describe())
	}
	fs := make([]field, 0, len(m.items)/2)
	for i := 0; i < len(m.items); i += 2 {
		k, v := m.items[i], m.items[i+1]
		name, ok := k.name()
		if !ok {
			name = k.value().String()
		}
		fs = append(fs, field{name: name, value: v.value(), line: v.line, show: v.describe()})
	}
	return buildEvent(fs, m.line, ":")
}
