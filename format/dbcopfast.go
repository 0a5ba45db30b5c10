package format

import (
	"strconv"

	"github.com/histcheck/histcheck/history"
)

// dbcopFast reads a dbcop document of the common form straight into the
// builder, without encoding/json's reflection: the wrapper or bare
// sessions, transactions {"events": […], "committed"|"success": bool},
// events in the tagged ({"Read": {"variable": N, "version": N|null}}) or
// compact (["r", N, N|null]) form, integer variables. On anything else
// (escapes, string variables, the original dbcop's events, a malformed
// document) it gives up, and the document is read again by
// readDBCopDoc's decoder, which gives the exact result or error.
type dbcopFast struct {
	src []byte
	i   int
	b   *sessionBuilder
}

// read reads the document into a fresh builder, or reports false.
func (p *dbcopFast) read() (*sessionBuilder, bool) {
	p.b = &sessionBuilder{zeroIsInit: true}
	p.b.mops = make([]rawMop, 0, len(p.src)/48)
	p.space()
	if p.peek() == '{' {
		if !p.wrapper() {
			return nil, false
		}
	} else if !p.sessions() {
		return nil, false
	}
	p.space()
	return p.b, p.i == len(p.src)
}

func (p *dbcopFast) peek() byte {
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

func (p *dbcopFast) space() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\n', '\r', '\t':
			p.i++
		default:
			return
		}
	}
}

// eat passes c after any space.
func (p *dbcopFast) eat(c byte) bool {
	p.space()
	if p.peek() != c {
		return false
	}
	p.i++
	return true
}

// key reads an object key without escapes, and its colon.
func (p *dbcopFast) key() ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.src) && p.src[p.i] != '"' {
		if p.src[p.i] == '\\' {
			return nil, false
		}
		p.i++
	}
	if p.i >= len(p.src) {
		return nil, false
	}
	k := p.src[start:p.i]
	p.i++
	return k, p.eat(':')
}

// skip passes one value of the wrapper's other fields.
func (p *dbcopFast) skip() bool {
	p.space()
	depth := 0
	for p.i < len(p.src) {
		switch c := p.src[p.i]; c {
		case '"':
			for p.i++; p.i < len(p.src) && p.src[p.i] != '"'; p.i++ {
				if p.src[p.i] == '\\' {
					p.i++
				}
			}
			p.i++
		case '{', '[':
			depth++
			p.i++
		case '}', ']':
			if depth == 0 {
				return true
			}
			depth--
			p.i++
		case ',':
			if depth == 0 {
				return true
			}
			p.i++
		default:
			p.i++
		}
	}
	return depth == 0
}

func (p *dbcopFast) wrapper() bool {
	p.i++ // {
	data := false
	for first := true; ; first = false {
		if p.eat('}') {
			return data
		}
		if !first && !p.eat(',') {
			return false
		}
		k, ok := p.key()
		if !ok {
			return false
		}
		if string(k) == "data" {
			if data || !p.sessions() {
				return false
			}
			data = true
			continue
		}
		if !p.skip() {
			return false
		}
	}
}

// list reads a JSON array, calling elem for each element.
func (p *dbcopFast) list(elem func() bool) bool {
	if !p.eat('[') {
		return false
	}
	for first := true; ; first = false {
		if p.eat(']') {
			return true
		}
		if !first && !p.eat(',') {
			return false
		}
		if !elem() {
			return false
		}
	}
}

func (p *dbcopFast) sessions() bool {
	n := 0
	names := map[string]int32{}
	return p.list(func() bool {
		n++
		s := p.b.session(strconv.Itoa(n), names)
		return p.list(func() bool { return p.txn(s) })
	})
}

func (p *dbcopFast) txn(s int32) bool {
	if !p.eat('{') {
		return false
	}
	t := rawTxn{session: s, status: history.OK, from: int32(len(p.b.mops))}
	events, status := false, false
	for first := true; ; first = false {
		if p.eat('}') {
			break
		}
		if !first && !p.eat(',') {
			return false
		}
		k, ok := p.key()
		if !ok {
			return false
		}
		switch string(k) {
		case "events":
			if events || !p.list(p.event) {
				return false
			}
			events = true
		case "committed", "success":
			v, ok := p.boolean()
			if !ok || status {
				return false
			}
			status = true
			if !v {
				t.status = history.Fail
			}
		default:
			return false
		}
	}
	t.to = int32(len(p.b.mops))
	p.b.txns = append(p.b.txns, t)
	return events && status
}

func (p *dbcopFast) boolean() (bool, bool) {
	p.space()
	switch {
	case len(p.src)-p.i >= 4 && string(p.src[p.i:p.i+4]) == "true":
		p.i += 4
		return true, true
	case len(p.src)-p.i >= 5 && string(p.src[p.i:p.i+5]) == "false":
		p.i += 5
		return false, true
	}
	return false, false
}

// event reads a tagged or compact event.
func (p *dbcopFast) event() bool {
	p.space()
	var m rawMop
	ok := false
	switch p.peek() {
	case '[':
		ok = p.compact(&m)
	case '{':
		ok = p.tagged(&m)
	}
	if ok {
		p.b.mops = append(p.b.mops, m)
	}
	return ok
}

// compact reads ["r"|"w", variable, version].
func (p *dbcopFast) compact(m *rawMop) bool {
	p.i++
	p.space()
	switch {
	case len(p.src)-p.i >= 3 && string(p.src[p.i:p.i+3]) == `"w"`:
		m.flags = mopWrite
	case len(p.src)-p.i >= 3 && string(p.src[p.i:p.i+3]) == `"r"`:
	default:
		return false
	}
	p.i += 3
	if !p.eat(',') {
		return false
	}
	var ok bool
	m.key, ok = p.uint()
	return ok && p.eat(',') && p.version(m) && p.eat(']')
}

// tagged reads {"Read"|"Write": {"variable": N, "version": N|null}}.
func (p *dbcopFast) tagged(m *rawMop) bool {
	p.i++
	k, ok := p.key()
	if !ok || (string(k) != "Read" && string(k) != "Write") || !p.eat('{') {
		return false
	}
	if string(k) == "Write" {
		m.flags = mopWrite
	}
	seen := 0
	for first := true; !p.eat('}'); first = false {
		if !first && !p.eat(',') {
			return false
		}
		f, ok := p.key()
		switch {
		case !ok:
			return false
		case string(f) == "variable":
			if m.key, ok = p.uint(); !ok {
				return false
			}
			seen |= 1
		case string(f) == "version":
			if !p.version(m) {
				return false
			}
			seen |= 2
		default:
			return false
		}
	}
	return seen == 3 && p.eat('}')
}

// version reads a version, or null for a read of the initial state.
func (p *dbcopFast) version(m *rawMop) bool {
	p.space()
	if len(p.src)-p.i >= 4 && string(p.src[p.i:p.i+4]) == "null" {
		p.i += 4
		if m.flags&mopWrite != 0 {
			return false
		}
		m.flags |= mopNil
		return true
	}
	var ok bool
	m.val, ok = p.uint()
	return ok
}

// uint reads a non-negative integer of at most 18 digits.
func (p *dbcopFast) uint() (int64, bool) {
	p.space()
	start := p.i
	for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		p.i++
	}
	if p.i < len(p.src) && (p.src[p.i] == '.' || p.src[p.i] == 'e' || p.src[p.i] == 'E') || p.i-start > 1 && p.src[start] == '0' {
		return 0, false // a float, or a leading zero JSON does not allow: the decoder says
	}
	return parseUint(p.src[start:p.i])
}
