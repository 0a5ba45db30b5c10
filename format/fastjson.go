package format

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/histcheck/histcheck/history"
)

// fastJSON decodes Jepsen event objects straight into events, without the
// token-by-token tree of jsonParser, which costs about a microsecond a token.
// It handles well-formed input only: on anything unusual (a syntax error, a
// duplicate or misplaced field, a number that does not fit, deep nesting) it
// gives up, and the caller reads the record again with jsonParser, which
// gives the exact error. So the two agree on every input that fastJSON
// accepts, and errors keep their wording and line.
type fastJSON struct {
	b      []byte
	i      int
	line   int // line of b[i], counting newlines passed in whitespace
	intern map[string]string
}

// fastDepth is how deep fastJSON follows nested values before it gives up;
// the slow reader enforces the real limit.
const fastDepth = 64

// maxInterned bounds the table of repeated names (processes, operations,
// extra field names).
const maxInterned = 1 << 14

func newFastJSON() *fastJSON { return &fastJSON{intern: map[string]string{}} }

func (p *fastJSON) reset(b []byte, line int) {
	p.b, p.i, p.line = b, 0, line
}

// name returns b as a string, shared with earlier equal names.
func (p *fastJSON) name(b []byte) string {
	if s, ok := p.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(p.intern) < maxInterned {
		p.intern[s] = s
	}
	return s
}

func (p *fastJSON) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case '\n':
			p.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		p.i++
	}
}

// eat consumes c after whitespace.
func (p *fastJSON) eat(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// rawString returns the bytes of a string without escapes, or ok=false
// with esc=true when it has escapes (then decoded by decodeString).
func (p *fastJSON) rawString() (b []byte, esc, ok bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return nil, false, false
	}
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			p.i = j + 1
			return p.b[start:j], false, true
		case c == '\\':
			return nil, true, false
		case c < 0x20:
			return nil, false, false
		}
	}
	return nil, false, false
}

// str reads a string, escapes included, with encoding/json's decoding.
func (p *fastJSON) str() (string, bool) {
	b, esc, ok := p.rawString()
	if ok {
		return string(b), true
	}
	if !esc {
		return "", false
	}
	start := p.i
	j := start + 1
	for ; j < len(p.b); j++ {
		if c := p.b[j]; c == '\\' {
			j++
		} else if c == '"' {
			break
		} else if c < 0x20 {
			return "", false
		}
	}
	if j >= len(p.b) {
		return "", false
	}
	var s string
	if json.Unmarshal(p.b[start:j+1], &s) != nil {
		return "", false
	}
	p.i = j + 1
	return s, true
}

// number scans a JSON number and returns its text and whether it is an
// integer (no fraction or exponent).
func (p *fastJSON) number() ([]byte, bool, bool) {
	b, start, j := p.b, p.i, p.i
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && b[j] >= '1' && b[j] <= '9':
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
	default:
		return nil, false, false
	}
	integer := true
	if j < len(b) && b[j] == '.' {
		integer = false
		j++
		d := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == d {
			return nil, false, false
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		integer = false
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		d := j
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == d {
			return nil, false, false
		}
	}
	p.i = j
	return b[start:j], integer, true
}

// smallInt parses the digits of a JSON integer that has at most 18 digits,
// which always fits in an int64.
func smallInt(t []byte) (int64, bool) {
	neg := t[0] == '-'
	if neg {
		t = t[1:]
	}
	if len(t) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range t {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// int64Value reads an integer that fits in 64 bits, for times and indexes.
func (p *fastJSON) int64Value() (int64, bool) {
	p.space()
	t, integer, ok := p.number()
	if !ok || !integer {
		return 0, false
	}
	return smallInt(t)
}

// value reads any JSON value as a history Value, converting numbers the way
// jnode.toValue does.
func (p *fastJSON) value(depth int) (history.Value, bool) {
	p.space()
	if p.i >= len(p.b) || depth > fastDepth {
		return history.Value{}, false
	}
	switch c := p.b[p.i]; c {
	case '"':
		s, ok := p.str()
		return history.StringValue(s), ok
	case '[':
		p.i++
		var vs []history.Value
		if p.eat(']') {
			return history.ListValue(), true
		}
		for {
			v, ok := p.value(depth + 1)
			if !ok {
				return history.Value{}, false
			}
			vs = append(vs, v)
			if p.eat(']') {
				return history.ListValue(vs...), true
			}
			if !p.eat(',') {
				return history.Value{}, false
			}
		}
	case '{':
		p.i++
		var ks, vs []history.Value
		if p.eat('}') {
			return history.MapValue(nil, nil), true
		}
		for {
			p.space()
			k, ok := p.str()
			if !ok || !p.eat(':') {
				return history.Value{}, false
			}
			v, ok := p.value(depth + 1)
			if !ok {
				return history.Value{}, false
			}
			ks, vs = append(ks, history.StringValue(k)), append(vs, v)
			if p.eat('}') {
				return history.MapValue(ks, vs), true
			}
			if !p.eat(',') {
				return history.Value{}, false
			}
		}
	case 't', 'f', 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(p.b)-p.i >= len(lit) && string(p.b[p.i:p.i+len(lit)]) == lit {
				p.i += len(lit)
				switch lit {
				case "null":
					return history.NilValue, true
				default:
					return history.BoolValue(lit == "true"), true
				}
			}
		}
		return history.Value{}, false
	}
	t, integer, ok := p.number()
	if !ok {
		return history.Value{}, false
	}
	if integer {
		if n, ok := smallInt(t); ok {
			return history.IntValue(n), true
		}
		return history.BigIntValue(string(t))
	}
	f, err := strconv.ParseFloat(string(t), 64)
	if err != nil || math.IsInf(f, 0) {
		return history.Value{}, false
	}
	return history.FloatValue(f), true
}

// Bits of fastJSON.event's fields seen, to refuse duplicates.
const (
	seenProcess = 1 << iota
	seenType
	seenF
	seenValue
	seenKey
	seenVersion
	seenToken
	seenTime
	seenIndex
)

// event reads one event object starting at the current position, with the
// same result as jsonEvent over jsonParser's tree.
func (p *fastJSON) event() (history.Event, bool) {
	p.space()
	e := history.Event{Line: p.line}
	if !p.eat('{') {
		return e, false
	}
	var seen int
	var fName string
	var hasF bool
	if p.eat('}') {
		return e, false // no process: the slow reader says so
	}
	for {
		p.space()
		key, esc, ok := p.rawString()
		if !ok || esc || !p.eat(':') {
			return e, false
		}
		bit := 0
		switch string(key) {
		case "process":
			bit = seenProcess
			p.space()
			if p.i < len(p.b) && p.b[p.i] == '"' {
				b, _, ok := p.rawString()
				if !ok || len(b) == 0 {
					return e, false
				}
				if b[0] == ':' {
					b = b[1:]
				}
				if len(b) == 0 {
					return e, false
				}
				e.Process = p.name(b)
			} else {
				t, integer, ok := p.number()
				if !ok || !integer {
					return e, false
				}
				n, ok := smallInt(t)
				if !ok {
					return e, false
				}
				if n >= 0 && n < 1<<20 && (len(t) == 1 || t[0] != '0') && t[0] != '-' {
					e.Process = p.name(t)
				} else {
					e.Process = strconv.FormatInt(n, 10)
				}
			}
		case "type":
			bit = seenType
			p.space()
			b, _, ok := p.rawString()
			if !ok {
				return e, false
			}
			t, ok := history.ParseType(string(b))
			if !ok {
				return e, false
			}
			e.Type = t
		case "f":
			bit = seenF
			p.space()
			b, _, ok := p.rawString()
			if !ok {
				return e, false
			}
			if len(b) > 0 && b[0] == ':' {
				b = b[1:]
			}
			if len(b) == 0 {
				return e, false
			}
			fName, hasF = p.name(b), true
		case "time", "index":
			bit = seenTime
			if key[0] == 'i' {
				bit = seenIndex
			}
			p.space()
			if p.i+4 <= len(p.b) && string(p.b[p.i:p.i+4]) == "null" {
				p.i += 4
				break
			}
			n, ok := p.int64Value()
			if !ok || n == math.MaxInt64 {
				return e, false
			}
			if bit == seenTime {
				if n < 0 {
					return e, false
				}
				e.Time, e.HasTime = n, true
			} else {
				e.Index, e.HasIdx = n, true
			}
		default:
			var target *history.Value
			switch string(key) {
			case "value":
				bit, target = seenValue, &e.Value
			case "key":
				bit, target = seenKey, &e.Key
			case "version":
				bit, target = seenVersion, &e.Version
			case "token":
				bit, target = seenToken, &e.Token
			}
			v, ok := p.value(1)
			if !ok {
				return e, false
			}
			if target != nil {
				*target = v
				break
			}
			name := p.name(key)
			for _, f := range e.Extra {
				if f.Name == name {
					return e, false
				}
			}
			e.Extra = append(e.Extra, history.Field{Name: name, Value: v})
		}
		if seen&bit != 0 {
			return e, false
		}
		seen |= bit
		if p.eat('}') {
			break
		}
		if !p.eat(',') {
			return e, false
		}
	}
	if seen&seenProcess == 0 || seen&seenType == 0 || !hasF && !history.IsNemesis(e.Process) {
		return e, false
	}
	e.F = fName
	return e, true
}

// lineEvent reads a JSON Lines record: one event object and nothing else.
func (p *fastJSON) lineEvent(b []byte, line int) (history.Event, bool) {
	p.reset(b, line)
	e, ok := p.event()
	if !ok {
		return e, false
	}
	p.space()
	return e, p.i == len(p.b)
}

// eventArray reads a JSON array of event objects, pairing them as it goes.
// It gives up (ok=false) on anything but a well-formed array of valid event
// objects, including an operations array, whose objects have "call".
func (p *fastJSON) eventArray(src []byte) (h *history.History, ok bool) {
	p.reset(src, 1)
	if !p.eat('[') {
		return nil, false
	}
	pr := history.NewPairer()
	if !p.eat(']') {
		for {
			e, ok := p.event()
			if !ok || hasField(e.Extra, "call") || hasField(e.Extra, "return") {
				return nil, false
			}
			if pr.Add(&e) != nil {
				return nil, false
			}
			if p.eat(']') {
				break
			}
			if !p.eat(',') {
				return nil, false
			}
		}
	}
	p.space()
	if p.i != len(p.b) {
		return nil, false
	}
	return pr.History(), true
}

func hasField(fs []history.Field, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}
