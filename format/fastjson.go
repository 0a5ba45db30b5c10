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
	intern interner
	// elems is a stack of the elements of the lists being read, nested
	// lists above their parents': reused, it spares a slice per list.
	elems []history.Value
	// procs and ints hold the names of small process numbers and the
	// values of small integers already read, indexed by the number, so
	// that each is made once.
	procs []string
	ints  []history.Value
	// bigInts holds the values of the larger integers read last, by
	// number modulo its size (bigIntCache), made when the first is read:
	// a key-value history writes a new integer in most writes, and its
	// completion and the reads that return it come soon after, each
	// otherwise a value's text made again.
	bigInts []bigInt
	// bigProcs holds the names of the larger process numbers read last,
	// by number modulo its size: Jepsen numbers the client that replaces
	// a crashed one past every other (by the concurrency), so a long
	// history's running clients have large numbers, distinct modulo
	// their count, that would otherwise be looked up by text each event.
	bigProcs [bigProcCache]procEntry
	// lb builds arrays, nested ones included, as one encoding; building
	// is set while it does (an object inside such an array builds its
	// own values, and arrays inside it, with list).
	lb       history.ListBuilder
	building bool
}

// smallCache bounds the numbers whose process names and values fastJSON
// keeps (procs, ints).
const smallCache = 4096

// bigProcCache is the size of fastJSON.bigProcs, a power of two.
const bigProcCache = 256

// bigIntCache is the size of fastJSON.bigInts, a power of two.
const bigIntCache = 4096

// bigInt is an integer and its value.
type bigInt struct {
	n int64
	v history.Value
}

// procEntry is a process number and its name.
type procEntry struct {
	n    int64
	name string
}

// fastDepth is how deep fastJSON follows nested values before it gives up;
// the slow reader enforces the real limit.
const fastDepth = 64

// maxInterned bounds the table of repeated names (processes, operations,
// extra field names).
const maxInterned = 1 << 14

// newFastJSON returns a parser whose arrays are copied into shared blocks
// (history.ListBuilder.UseBlocks): its events go into a history.
func newFastJSON() *fastJSON {
	p := &fastJSON{}
	p.lb.UseBlocks()
	return p
}

func (p *fastJSON) reset(b []byte, line int) {
	p.b, p.i, p.line = b, 0, line
}

// name returns b as a string, shared with earlier equal names.
func (p *fastJSON) name(b []byte) string { return p.intern.name(b) }

// interner shares the text of repeated names (processes, operations, field
// names), up to maxInterned of them. The zero interner is ready to use.
type interner struct {
	m map[string]string
	// recent holds the last few names found or added, compared before
	// the map is hashed: a history has few operation and field names,
	// read again and again.
	recent [internRecent]string
	next   int
}

// internRecent is how many names interner.recent holds.
const internRecent = 8

// name returns b as a string, shared with earlier equal names.
func (in *interner) name(b []byte) string {
	for _, s := range in.recent {
		if s == string(b) && s != "" {
			return s
		}
	}
	if s, ok := in.m[string(b)]; ok {
		// Found in the table: recent once more, so that many new
		// names (processes) do not keep the few names read again and
		// again (operations) out of it.
		in.recent[in.next%internRecent] = s
		in.next++
		return s
	}
	s := string(b)
	if in.m == nil {
		in.m = map[string]string{}
	}
	if len(in.m) < maxInterned {
		in.m[s] = s
		in.recent[in.next%internRecent] = s
		in.next++
	}
	return s
}

func (p *fastJSON) space() {
	// Most tokens follow the one before directly.
	if p.i < len(p.b) && p.b[p.i] > ' ' {
		return
	}
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
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
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

// numTok is a JSON number as number scans it: its text, whether it is an
// integer (no fraction or exponent) and, for an integer of at most 18
// digits, which always fits in an int64, its value (fits).
type numTok struct {
	t       []byte
	integer bool
	fits    bool
	n       int64
}

// number scans a JSON number.
func (p *fastJSON) number() (numTok, bool) {
	b, start, j := p.b, p.i, p.i
	if j < len(b) && b[j] == '-' {
		j++
	}
	d := j // the first digit
	var n int64
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && b[j] >= '1' && b[j] <= '9':
		// Past 18 digits n overflows, but then it is not used.
		for ; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
			n = n*10 + int64(b[j]-'0')
		}
	default:
		return numTok{}, false
	}
	if d > start {
		n = -n
	}
	end, ok := fraction(b, j)
	if !ok {
		return numTok{}, false
	}
	p.i = end
	integer := end == j
	return numTok{t: b[start:end], integer: integer, fits: integer && j-d <= 18, n: n}, true
}

// fraction returns the end of the fraction and exponent of a number, if
// any, that start at j, and false when they are malformed.
func fraction(b []byte, j int) (int, bool) {
	if j < len(b) && b[j] == '.' {
		d := j + 1
		if j = digits(b, d); j == d {
			return 0, false
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		d := j
		if j = digits(b, d); j == d {
			return 0, false
		}
	}
	return j, true
}

// digits returns the end of the run of decimal digits that starts at j.
func digits(b []byte, j int) int {
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	return j
}

// int64Value reads an integer that fits in 64 bits, for times and indexes.
func (p *fastJSON) int64Value() (int64, bool) {
	p.space()
	tok, ok := p.number()
	return tok.n, ok && tok.fits
}

// lit consumes the literal s (true, false, null) if it comes next.
func (p *fastJSON) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// value reads any JSON value as a history Value, converting numbers the way
// jnode.toValue does.
func (p *fastJSON) value(depth int) (history.Value, bool) {
	p.space()
	if p.i >= len(p.b) || depth > fastDepth {
		return history.Value{}, false
	}
	switch p.b[p.i] {
	case '"':
		s, ok := p.str()
		return history.StringValue(s), ok
	case '[':
		if !p.building {
			return p.buildList(depth)
		}
		return p.list(depth)
	case '{':
		return p.object(depth)
	case 't':
		return history.BoolValue(true), p.lit("true")
	case 'f':
		return history.BoolValue(false), p.lit("false")
	case 'n':
		return history.NilValue, p.lit("null")
	}
	return p.numberValue()
}

// buildList reads an array, from its '[', whose elements are at depth+1,
// with the list builder: the value and the arrays nested in it are
// written as one encoding.
func (p *fastJSON) buildList(depth int) (history.Value, bool) {
	p.lb.Reset()
	p.building = true
	defer func() { p.building = false }()
	if !p.buildElems(depth) {
		return history.Value{}, false
	}
	return p.lb.List(), true
}

// buildElems adds the elements of the array that opens at p.i to the
// builder's innermost open list.
func (p *fastJSON) buildElems(depth int) bool {
	p.i++
	if p.eat(']') {
		return true
	}
	for {
		p.space()
		if p.i >= len(p.b) || depth+1 > fastDepth || !p.elem(depth+1) {
			return false
		}
		if p.eat(']') {
			return true
		}
		if !p.eat(',') {
			return false
		}
	}
}

// elem adds the value at p.i, at depth, to the builder: as value would
// read it, and without a Value of its own for arrays, strings and
// integers of 64 bits.
func (p *fastJSON) elem(depth int) bool {
	switch p.b[p.i] {
	case '[':
		p.lb.Open()
		if !p.buildElems(depth) {
			return false
		}
		p.lb.Close()
		return true
	case '"':
		if b, _, ok := p.rawString(); ok {
			p.lb.AddString(b)
			return true
		}
		s, ok := p.str()
		p.lb.AddString([]byte(s))
		return ok
	case '{', 't', 'f', 'n':
		v, ok := p.value(depth)
		p.lb.Add(v)
		return ok
	}
	tok, ok := p.number()
	if ok && tok.fits {
		if !p.lb.AddDigits(tok.t) {
			p.lb.AddInt(tok.n) // -0
		}
		return true
	}
	v, ok := p.tokValue(tok, ok)
	p.lb.Add(v)
	return ok
}

// list reads an array, from its '[', whose elements are at depth+1.
func (p *fastJSON) list(depth int) (history.Value, bool) {
	p.i++
	if p.eat(']') {
		return history.ListValue(), true
	}
	base := len(p.elems)
	defer func() { p.elems = p.elems[:base] }()
	for {
		v, ok := p.value(depth + 1)
		if !ok {
			return history.Value{}, false
		}
		p.elems = append(p.elems, v)
		if p.eat(']') {
			return history.ListValue(p.elems[base:]...), true
		}
		if !p.eat(',') {
			return history.Value{}, false
		}
	}
}

// object reads an object, from its '{', as a map value whose values are at
// depth+1 and whose keys keep their order.
func (p *fastJSON) object(depth int) (history.Value, bool) {
	p.i++
	if p.eat('}') {
		return history.MapValue(nil, nil), true
	}
	var ks, vs []history.Value
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
}

// numberValue reads a number: an integer exactly, however long, anything
// else as a 64-bit float, which it must fit.
func (p *fastJSON) numberValue() (history.Value, bool) {
	tok, ok := p.number()
	return p.tokValue(tok, ok)
}

// tokValue is the value of a number number scanned (ok).
func (p *fastJSON) tokValue(tok numTok, ok bool) (history.Value, bool) {
	switch {
	case !ok:
		return history.Value{}, false
	case tok.fits:
		return p.intValue(tok.n), true
	case tok.integer:
		return history.BigIntValue(string(tok.t))
	}
	f, err := strconv.ParseFloat(string(tok.t), 64)
	if err != nil || math.IsInf(f, 0) {
		return history.Value{}, false
	}
	return history.FloatValue(f), true
}

// intValue returns history.IntValue(n), made once for a small n.
func (p *fastJSON) intValue(n int64) history.Value {
	if n < 0 || n >= smallCache {
		if p.bigInts == nil {
			p.bigInts = make([]bigInt, bigIntCache)
		}
		c := &p.bigInts[n&(bigIntCache-1)]
		if c.n != n || c.v.IsNone() {
			*c = bigInt{n: n, v: history.IntValue(n)}
		}
		return c.v
	}
	v := smallSlot(&p.ints, n)
	if v.IsNone() {
		*v = history.IntValue(n)
	}
	return *v
}

// smallSlot returns the place of n (below smallCache) in a table indexed
// by number, growing the table by doubling as numbers come.
func smallSlot[T any](table *[]T, n int64) *T {
	if t := *table; int(n) >= len(t) {
		*table = append(t, make([]T, min(max(int(n)+1, 2*len(t)), smallCache)-len(t))...)
	}
	return &(*table)[n]
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

// eventInto reads one event object starting at the current position
// into e, which it clears first (a reader of many events reuses their
// room), with the same result as jsonEvent over jsonParser's tree.
func (p *fastJSON) eventInto(e *history.Event) bool {
	p.space()
	*e = history.Event{Line: p.line}
	// An empty object has no process: the slow reader says so.
	if !p.eat('{') || p.eat('}') {
		return false
	}
	seen := 0
	for {
		p.space()
		key, esc, ok := p.rawString()
		if !ok || esc || !p.eat(':') {
			return false
		}
		bit, ok := p.eventField(e, key)
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		if p.eat('}') {
			break
		}
		if !p.eat(',') {
			return false
		}
	}
	// A missing field is left to the slow reader, which names it.
	return seen&seenProcess != 0 && seen&seenType != 0 && (seen&seenF != 0 || history.IsNemesis(e.Process))
}

// eventField reads the value of the field named key into e. It returns the
// bit that marks the field seen, or 0 for an extra field, which may not
// repeat either but is looked up among the extras instead.
func (p *fastJSON) eventField(e *history.Event, key []byte) (bit int, ok bool) {
	p.space()
	switch string(key) {
	case "process":
		e.Process, ok = p.process()
		return seenProcess, ok
	case "type":
		e.Type, ok = p.eventType()
		return seenType, ok
	case "f":
		e.F, ok = p.keyword()
		return seenF, ok
	case "time":
		// Jepsen counts event times up from the start of the test.
		e.Time, e.HasTime, ok = p.optionalInt()
		if e.HasTime && e.Time == NoTime {
			e.Time, e.HasTime = 0, false
		}
		return seenTime, ok && e.Time >= 0
	case "index":
		e.Index, e.HasIdx, ok = p.optionalInt()
		return seenIndex, ok
	}
	if target, bit := operand(e, key); target != nil {
		*target, ok = p.value(1)
		return bit, ok
	}
	return 0, p.extra(e, key)
}

// operand returns where e keeps the operand field named key (value, key,
// version or token) and the field's bit, or nil for another name.
func operand(e *history.Event, key []byte) (*history.Value, int) {
	switch string(key) {
	case "value":
		return &e.Value, seenValue
	case "key":
		return &e.Key, seenKey
	case "version":
		return &e.Version, seenVersion
	case "token":
		return &e.Token, seenToken
	}
	return nil, 0
}

// process reads an event's process: a name (see keyword) or an integer,
// spelt as processName spells it.
func (p *fastJSON) process() (string, bool) {
	if p.i < len(p.b) && p.b[p.i] == '"' {
		return p.keyword()
	}
	tok, ok := p.number()
	if !ok || !tok.fits {
		return "", false
	}
	// The usual small process numbers are written as processName writes
	// them, so their text is shared; any other is written out again.
	t, n := tok.t, tok.n
	if n >= 0 && n < 1<<20 && (len(t) == 1 || t[0] != '0') && t[0] != '-' {
		return p.procName(n, t), true
	}
	return strconv.FormatInt(n, 10), true
}

// procName returns the name of process n, spelt t, shared with earlier
// reads of it.
func (p *fastJSON) procName(n int64, t []byte) string {
	if n >= smallCache {
		c := &p.bigProcs[n&(bigProcCache-1)]
		if c.n != n || c.name == "" {
			*c = procEntry{n: n, name: p.name(t)}
		}
		return c.name
	}
	name := smallSlot(&p.procs, n)
	if *name == "" {
		*name = string(t)
	}
	return *name
}

// keyword reads a process or operation name: a string without escapes,
// less one leading colon (a keyword's), that is not empty and does not
// start with another colon, as processName and opName require.
func (p *fastJSON) keyword() (string, bool) {
	b, _, ok := p.rawString()
	if len(b) > 0 && b[0] == ':' {
		b = b[1:]
	}
	if !ok || len(b) == 0 || b[0] == ':' {
		return "", false
	}
	return p.name(b), true
}

// eventType reads an event's type, a string without escapes.
func (p *fastJSON) eventType() (history.Type, bool) {
	b, _, ok := p.rawString()
	if !ok {
		return 0, false
	}
	return history.ParseType(string(b))
}

// optionalInt reads a time or index: null (not given), or an integer that
// fits in 64 bits and is not the value reserved for "never".
func (p *fastJSON) optionalInt() (n int64, given, ok bool) {
	// Most are a few digits, then the object's next comma or its end:
	// read without number's token and its checks for a sign, a fraction
	// and an exponent.
	b, j := p.b, p.i
	for ; j < len(b) && j-p.i < 18 && b[j]-'0' <= 9; j++ {
		n = n*10 + int64(b[j]-'0')
	}
	if j > p.i && j < len(b) && (b[j] == ',' || b[j] == '}') && (b[p.i] != '0' || j == p.i+1) {
		p.i = j
		return n, true, true
	}
	n = 0
	if p.lit("null") {
		return 0, false, true
	}
	n, ok = p.int64Value()
	return n, true, ok && n != math.MaxInt64
}

// extra reads the value of a field that is not one of an event's own, and
// refuses a name given twice.
func (p *fastJSON) extra(e *history.Event, key []byte) bool {
	v, ok := p.value(1)
	if !ok {
		return false
	}
	name := p.name(key)
	if hasField(e.Extra, name) {
		return false
	}
	e.Extra = append(e.Extra, history.Field{Name: name, Value: v})
	return true
}

// lineEvent reads a JSON Lines record, one event object and nothing else,
// into e, which it may change even when it gives up.
func (p *fastJSON) lineEvent(b []byte, line int, e *history.Event) bool {
	p.reset(b, line)
	if !p.eventInto(e) {
		return false
	}
	p.space()
	return p.i == len(p.b)
}

// eventArray reads a JSON array of event objects, pairing them as it goes.
// It gives up (ok=false) on anything but a well-formed array of valid event
// objects, including an operations array, whose objects have "call".
func (p *fastJSON) eventArray(src []byte) (h *history.History, ok bool) {
	p.reset(src, 1)
	if h, ok = p.events(); !ok {
		return nil, false
	}
	p.space()
	if p.i != len(p.b) {
		return nil, false
	}
	return h, true
}

// wrapped reads a wrapper object whose "history" entry is an array of
// event objects and whose other entries are the history's settings (as
// histcheck writes a history with its model and initial value). It gives
// up (ok=false) on anything else, a repeated key included.
func (p *fastJSON) wrapped(src []byte) (h *history.History, ok bool) {
	p.reset(src, 1)
	if !p.eat('{') {
		return nil, false
	}
	meta := map[string]history.Value{}
	for {
		p.space()
		key, ok := p.str()
		if !ok || !p.eat(':') {
			return nil, false
		}
		if _, dup := meta[key]; dup || key == "history" && h != nil {
			return nil, false
		}
		if key == "history" {
			if h, ok = p.events(); !ok {
				return nil, false
			}
		} else if meta[key], ok = p.value(1); !ok {
			return nil, false
		}
		if p.eat('}') {
			break
		}
		if !p.eat(',') {
			return nil, false
		}
	}
	p.space()
	if h == nil || p.i != len(p.b) {
		return nil, false
	}
	if len(meta) > 0 {
		h.Meta = meta
	}
	return h, true
}

// opsSample is how many operations the reader of an event array reads
// before it first tells the Pairer how many to expect; it tells again each
// time the count doubles, until the Pairer has read enough to take the hint.
const opsSample = 2048

// events reads an array of event objects from its '[', pairing them as it
// goes (see eventArray).
func (p *fastJSON) events() (h *history.History, ok bool) {
	if !p.eat('[') {
		return nil, false
	}
	pr := history.NewPairer()
	var e history.Event
	hint := opsSample
	if !p.eat(']') {
		for {
			if !p.eventInto(&e) || hasField(e.Extra, "call") || hasField(e.Extra, "return") {
				return nil, false
			}
			if pr.Add(&e) != nil {
				return nil, false
			}
			if pr.Ops() >= hint {
				pr.Expect(int64(p.i), int64(len(p.b)))
				hint *= 2
			}
			if p.eat(']') {
				break
			}
			if !p.eat(',') {
				return nil, false
			}
		}
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
