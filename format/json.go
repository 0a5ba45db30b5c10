package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/histcheck/histcheck/history"
)

// jsonFormat is Jepsen events as a JSON array; a file in it may hold any of
// the JSON forms, told apart by content.
var jsonFormat = Format{
	Name:       JSON,
	Summary:    "Jepsen events as a JSON array (or any JSON form, detected)",
	Extensions: []string{".json"},
	Events:     true,
	Sniff:      sniffJSON,
	Read: document(func(src []byte) (Result, error) {
		if looksDBCop(src) { // a .json file of dbcop's
			return readDBCopDoc(src)
		}
		return jsonResult(src, formAuto)
	}),
	Write: buffered(writeJSON),
}

// opsFormat is operations with call and return times, in JSON.
var opsFormat = Format{
	Name:    Ops,
	Summary: "operations with call and return, JSON",
	Read:    document(func(src []byte) (Result, error) { return jsonResult(src, formOps) }),
}

// tuplesFormat is [process, f, value, call, return] tuples in JSON.
var tuplesFormat = Format{
	Name:    Tuples,
	Summary: "[process, f, value, call, return] tuples, JSON",
	Read:    document(func(src []byte) (Result, error) { return jsonResult(src, formTuples) }),
}

// jsonlFormat is Jepsen events, one JSON object per line, read as a stream.
var jsonlFormat = Format{
	Name:       JSONL,
	Summary:    "Jepsen events, one JSON object per line",
	Extensions: []string{".jsonl", ".ndjson"},
	Events:     true,
	Sniff:      sniffJSONL,
	Read:       streamed(readJSONL),
	Write:      buffered(writeJSONL),
}

// sniffJSON claims input that starts as a JSON array or object does, after
// the EDN and JSON Lines sniffers had their say.
func sniffJSON(head []byte) int {
	if k, rest := lead(head); k == leadNone && (firstByte(rest) == '[' || firstByte(rest) == '{') {
		return 2
	}
	return 0
}

// sniffJSONL claims input whose first line is a whole object and whose
// next line starts another.
func sniffJSONL(head []byte) int {
	if k, rest := lead(head); k == leadNone && firstByte(rest) == '{' && countJSONValues(rest) > 1 {
		return 3
	}
	return 0
}

// jsonResult reads a JSON document and names the form it held.
func jsonResult(src []byte, form jsonForm) (Result, error) {
	h, got, err := readJSONForm(src, form, true)
	if err != nil {
		return Result{}, err
	}
	res := Result{History: h}
	switch got {
	case formOps:
		res.Format = Ops
	case formTuples:
		res.Format = Tuples
	default:
		res.Format = JSON
	}
	return res, nil
}

// jnode is one parsed JSON value with the line it starts on; objects keep
// their keys in input order.
type jnode struct {
	kind  byte // '{' object, '[' array, 's' string, 'n' number, 'b' bool, '0' null
	str   string
	num   json.Number
	b     bool
	keys  []string
	items []*jnode // array elements, or object values parallel to keys
	line  int
}

// lines maps byte offsets to 1-based line numbers.
type lines struct {
	nl    []int // offsets of '\n'
	first int   // line number of offset 0
}

func newLines(src []byte, first int) *lines {
	l := &lines{first: first}
	for i, c := range src {
		if c == '\n' {
			l.nl = append(l.nl, i)
		}
	}
	return l
}

func (l *lines) at(off int) int { return l.first + sort.SearchInts(l.nl, off) }

// jsonParser reads JSON with encoding/json's tokenizer, noting where each
// value starts.
type jsonParser struct {
	src   []byte
	dec   *json.Decoder
	lines *lines
}

const maxJSONDepth = 1000

func newJSONParser(src []byte, firstLine int) *jsonParser {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	return &jsonParser{src: src, dec: dec, lines: newLines(src, firstLine)}
}

// start returns the offset where the next token starts.
func (p *jsonParser) start() int {
	off := int(p.dec.InputOffset())
	for off < len(p.src) {
		switch p.src[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

func (p *jsonParser) syntaxError(err error, open *jnode) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := max(int(se.Offset)-1, 0)
		return history.Errorf(p.lines.at(off), "invalid JSON: %s", se.Error())
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		line := p.lines.at(len(p.src))
		if open != nil {
			return history.Errorf(line, "unexpected end of input; the '%c' opened at line %d is not closed", open.kind, open.line)
		}
		return history.Errorf(line, "unexpected end of input; expected a JSON value")
	}
	return history.Errorf(p.lines.at(p.start()), "invalid JSON: %v", err)
}

// value reads the next JSON value; parent is the enclosing container, for
// messages about truncated input.
func (p *jsonParser) value(parent *jnode, depth int) (*jnode, error) {
	if depth > maxJSONDepth {
		return nil, history.Errorf(p.lines.at(p.start()), "JSON nested more than %d deep", maxJSONDepth)
	}
	line := p.lines.at(p.start())
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntaxError(err, parent)
	}
	n := &jnode{line: line}
	switch t := tok.(type) {
	case json.Delim:
		n.kind = byte(t)
		if t == '}' || t == ']' {
			return nil, history.Errorf(line, "unexpected '%c'", t)
		}
		for p.dec.More() {
			if t == '{' {
				kt, err := p.dec.Token()
				if err != nil {
					return nil, p.syntaxError(err, n)
				}
				n.keys = append(n.keys, kt.(string))
			}
			item, err := p.value(n, depth+1)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, item)
		}
		if _, err := p.dec.Token(); err != nil { // the closing delimiter
			return nil, p.syntaxError(err, n)
		}
	case string:
		n.kind, n.str = 's', t
	case json.Number:
		n.kind, n.num = 'n', t
	case bool:
		n.kind, n.b = 'b', t
	case nil:
		n.kind = '0'
	}
	return n, nil
}

// all reads every top-level value; there may be more than one (JSON Lines
// written without line breaks).
func (p *jsonParser) all() ([]*jnode, error) {
	var out []*jnode
	for {
		if p.start() >= len(p.src) {
			return out, nil
		}
		n, err := p.value(nil, 0)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
}

// jsonValue converts a JSON value; numbers keep their exact integer digits.
func (n *jnode) toValue() (history.Value, error) {
	switch n.kind {
	case '0':
		return history.NilValue, nil
	case 'b':
		return history.BoolValue(n.b), nil
	case 's':
		return history.StringValue(n.str), nil
	case 'n':
		s := string(n.num)
		if !strings.ContainsAny(s, ".eE") {
			if v, ok := history.BigIntValue(s); ok {
				return v, nil
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) {
			return history.Value{}, history.Errorf(n.line, "number %s is out of range", s)
		}
		return history.FloatValue(f), nil
	case '[':
		vs := make([]history.Value, len(n.items))
		for i, it := range n.items {
			v, err := it.toValue()
			if err != nil {
				return history.Value{}, err
			}
			vs[i] = v
		}
		return history.ListValue(vs...), nil
	case '{':
		ks := make([]history.Value, len(n.keys))
		vs := make([]history.Value, len(n.items))
		for i, it := range n.items {
			v, err := it.toValue()
			if err != nil {
				return history.Value{}, err
			}
			ks[i], vs[i] = history.StringValue(n.keys[i]), v
		}
		return history.MapValue(ks, vs), nil
	}
	return history.Value{}, nil
}

// describe shows a value the way the input wrote it, shortened.
func (n *jnode) describe() string {
	switch n.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 's':
		return strconv.Quote(n.str)
	case 'n':
		return string(n.num)
	case 'b':
		return strconv.FormatBool(n.b)
	}
	return "null"
}

// fields converts an object's entries.
func (n *jnode) fields() ([]field, error) {
	fs := make([]field, len(n.keys))
	for i, k := range n.keys {
		v, err := n.items[i].toValue()
		if err != nil {
			return nil, err
		}
		fs[i] = field{name: k, value: v, line: n.items[i].line, show: n.items[i].describe()}
	}
	return fs, nil
}

// jsonForm says which kind of JSON history a document holds.
type jsonForm int

const (
	formAuto   jsonForm = iota
	formEvents          // Jepsen events
	formOps             // operations with call and return
	formTuples          // [process f value call return]
)

// readJSONWith reads a JSON history; fast says whether to try fastJSON on
// an array of events first (tests compare the two paths).
func readJSONWith(src []byte, form jsonForm, fast bool) (*history.History, error) {
	h, _, err := readJSONForm(src, form, fast)
	return h, err
}

// readJSONForm reads a JSON history: an array in one of the three forms, a
// wrapper object with a "history" entry, or objects one after another. It
// says which form it read; fast is as for readJSONWith.
func readJSONForm(src []byte, form jsonForm, fast bool) (*history.History, jsonForm, error) {
	if fast && form == formAuto {
		if h, ok := newFastJSON().eventArray(src); ok {
			return h, formEvents, nil
		}
		if h, ok := newFastJSON().wrapped(src); ok {
			return h, formEvents, nil
		}
	}
	p := newJSONParser(src, 1)
	tops, err := p.all()
	if err != nil {
		return nil, form, err
	}
	switch {
	case len(tops) == 0:
		return nil, form, history.Errorf(0, "empty input; expected a JSON array of events or operations")
	case len(tops) > 1:
		h, err := jsonEventObjects(tops)
		return h, formEvents, err
	}
	top := tops[0]
	var meta map[string]history.Value
	if top.kind == '{' {
		hi := -1
		for i, k := range top.keys {
			if k == "history" {
				hi = i
			}
		}
		if hi < 0 {
			// A single event object.
			h, err := jsonEventObjects(tops)
			return h, formEvents, err
		}
		meta = map[string]history.Value{}
		for i, k := range top.keys {
			if i == hi {
				continue
			}
			v, err := top.items[i].toValue()
			if err != nil {
				return nil, form, err
			}
			meta[k] = v
		}
		top = top.items[hi]
	}
	if top.kind != '[' {
		return nil, form, history.Errorf(top.line, "expected a JSON array of events or operations, got %s", top.describe())
	}
	if form == formAuto {
		form = detectJSONForm(top)
	}
	var h *history.History
	switch form {
	case formOps:
		h, err = jsonOps(top.items)
	case formTuples:
		h, err = jsonTuples(top.items)
	default:
		h, err = jsonEventObjects(top.items)
	}
	if err != nil {
		return nil, form, err
	}
	if form == formTuples {
		// Textbook tuples follow the textbook, as the notation does: the
		// register starts at 0 unless the wrapper says otherwise.
		if meta == nil {
			meta = map[string]history.Value{}
		}
		if _, ok := meta["init"]; !ok {
			meta["init"] = history.IntValue(0)
		}
	}
	if len(meta) > 0 {
		h.Meta = meta
	}
	return h, form, nil
}

// detectJSONForm looks at the first element: an array is a tuple, an object
// with "call" an operation, anything else an event.
func detectJSONForm(arr *jnode) jsonForm {
	if len(arr.items) == 0 {
		return formEvents
	}
	first := arr.items[0]
	if first.kind == '[' {
		return formTuples
	}
	if first.kind == '{' {
		for _, k := range first.keys {
			if k == "call" || k == "return" {
				return formOps
			}
		}
	}
	return formEvents
}

func jsonEventObjects(objs []*jnode) (*history.History, error) {
	events := make([]history.Event, 0, len(objs))
	for _, o := range objs {
		e, err := jsonEvent(o)
		if err != nil {
			return nil, err
		}
		events = append(events, e)
	}
	return history.Pair(events)
}

func jsonEvent(o *jnode) (history.Event, error) {
	if o.kind != '{' {
		return history.Event{}, history.Errorf(o.line, `expected an event object {"process": …, "type": …, "f": …}, got %s`, o.describe())
	}
	fs, err := o.fields()
	if err != nil {
		return history.Event{}, err
	}
	return buildEvent(fs, o.line, "")
}

// shortF spells out the textbook's abbreviations.
func shortF(f string) string {
	switch f {
	case "w":
		return "write"
	case "r":
		return "read"
	}
	return f
}

// jsonOps reads form 3: objects with process, f, value, call, return.
func jsonOps(objs []*jnode) (*history.History, error) {
	ops := make([]history.Op, 0, len(objs))
	for i, o := range objs {
		op, err := jsonOp(o, int64(i))
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	return history.FromOps(ops)
}

// jsonOp reads one operation object, the index-th.
func jsonOp(o *jnode, index int64) (history.Op, error) {
	if o.kind != '{' {
		return history.Op{}, history.Errorf(o.line, `expected an operation object {"process": …, "f": …, "call": …, "return": …}, got %s`, o.describe())
	}
	fs, err := o.fields()
	if err != nil {
		return history.Op{}, err
	}
	r := opReader{op: history.Op{Index: index, Status: history.OK, Line: o.line}}
	seen := map[string]bool{}
	for _, f := range fs {
		if seen[f.name] {
			return history.Op{}, history.Errorf(f.line, "field %q appears twice", f.name)
		}
		seen[f.name] = true
		if err := r.field(f); err != nil {
			return history.Op{}, err
		}
	}
	return r.finish(o.line)
}

// opReader gathers the fields of one operation object, and what its
// checks need to know about them once all are read.
type opReader struct {
	op                       history.Op
	hasF, hasCall, hasReturn bool
	nullReturn               bool // "return" is null: the outcome is unknown
	typeGiven                bool
}

// field reads one field of the operation.
func (r *opReader) field(f field) error {
	op := &r.op
	var err error
	switch f.name {
	case "process":
		p, ok := processName(f.value)
		if !ok {
			return processError(f.line, `"process"`, f.show, f.value)
		}
		op.Client = p
	case "f":
		name, ok := opName(f.value)
		if !ok {
			return history.Errorf(f.line, `"f" must be an operation name, got %s`, f.show)
		}
		op.F, r.hasF = shortF(name), true
	case "value":
		op.Value = f.value
	case "key":
		op.Key = f.value
	case "version":
		op.Version = f.value
	case "token":
		op.Token = f.value
	case "call":
		op.Call, err = intField(f, "")
		r.hasCall = true
	case "return":
		r.hasReturn, r.nullReturn = true, f.value.IsNil()
		if !r.nullReturn {
			op.Return, err = intField(f, "")
		}
	case "index":
		op.Index, err = intField(f, "")
	case "type":
		s, _ := f.value.Str()
		t, ok := history.ParseType(s)
		if f.value.Kind() != history.String || !ok || t == history.Invoke {
			return history.Errorf(f.line, `"type" must be ok, fail or info; got %s`, f.show)
		}
		op.Status, r.typeGiven = t, true
	default:
		op.Extra = append(op.Extra, history.Field{Name: f.name, Value: f.value})
	}
	return err
}

// finish checks that the operation object at line gave every field it
// needs, and settles the status of one whose outcome is unknown.
func (r *opReader) finish(line int) (history.Op, error) {
	op := r.op
	switch {
	case op.Client == "":
		return op, history.Errorf(line, `operation has no "process" field`)
	case !r.hasF:
		return op, history.Errorf(line, `operation has no "f" field naming the operation`)
	case !r.hasCall:
		return op, history.Errorf(line, `operation has no "call" time`)
	case !r.hasReturn:
		return op, history.Errorf(line, `operation has no "return" time (write null if the outcome is unknown)`)
	}
	if r.nullReturn {
		if r.typeGiven && op.Status != history.Info {
			return op, history.Errorf(line, "%s operation needs a return time; null means the outcome is unknown (type info)", withArticle(op.Status.String()))
		}
		op.Status = history.Info
	}
	if op.Status == history.Info {
		op.Return = history.Infinity
	}
	return op, nil
}

// jsonTuples reads form 4: [process, f, value, call, return] with an
// optional sixth element, the status.
func jsonTuples(items []*jnode) (*history.History, error) {
	ops := make([]history.Op, 0, len(items))
	for i, t := range items {
		if t.kind != '[' || len(t.items) < 5 || len(t.items) > 6 {
			return nil, history.Errorf(t.line, "expected a tuple [process, f, value, call, return], got %s", t.describeTuple())
		}
		vs := make([]history.Value, len(t.items))
		for j, it := range t.items {
			v, err := it.toValue()
			if err != nil {
				return nil, err
			}
			vs[j] = v
		}
		line := t.line
		op := history.Op{Index: int64(i), Status: history.OK, Value: vs[2], Line: line}
		p, ok := processName(vs[0])
		if !ok {
			return nil, processError(line, "the process (first element)", t.items[0].describe(), vs[0])
		}
		op.Client = p
		f, ok := opName(vs[1])
		if !ok {
			return nil, history.Errorf(line, "the operation (second element) must be a name such as w, r or cas, got %s", t.items[1].describe())
		}
		op.F = shortF(f)
		call, err := intField(field{name: "call", value: vs[3], line: line, show: t.items[3].describe()}, "")
		if err != nil {
			return nil, err
		}
		op.Call = call
		if len(vs) == 6 {
			s, _ := vs[5].Str()
			st, ok := history.ParseType(s)
			if vs[5].Kind() != history.String || !ok || st == history.Invoke {
				return nil, history.Errorf(line, "the status (sixth element) must be ok, fail or info; got %s", t.items[5].describe())
			}
			op.Status = st
		}
		if vs[4].IsNil() {
			if op.Status != history.Info && len(vs) == 6 {
				return nil, history.Errorf(line, "%s operation needs a return time; null means the outcome is unknown (info)", withArticle(op.Status.String()))
			}
			op.Status = history.Info
		}
		if op.Status == history.Info {
			op.Return = history.Infinity
		} else {
			ret, err := intField(field{name: "return", value: vs[4], line: line, show: t.items[4].describe()}, "")
			if err != nil {
				return nil, err
			}
			op.Return = ret
		}
		ops = append(ops, op)
	}
	return history.FromOps(ops)
}

func (n *jnode) describeTuple() string {
	if n.kind == '[' {
		return fmt.Sprintf("an array of %d elements", len(n.items))
	}
	return n.describe()
}

// readJSONL reads Jepsen events, one JSON object per line, as a stream:
// each event is paired as soon as it is read, so memory grows with the
// operations, not with the text.
func readJSONL(r io.Reader) (*history.History, error) { return readJSONLWith(r, true) }

// readJSONLWith reads JSON Lines; fast says whether to try fastJSON on each
// line before the exact but slower jsonParser.
func readJSONLWith(r io.Reader, fast bool) (*history.History, error) {
	lr := newLineReader(r, RecordLimit)
	pr := history.NewPairer()
	if err := pairJSONL(lr, pr, fast); err != nil {
		return nil, err
	}
	if pr.Events() == 0 {
		return nil, history.Errorf(max(lr.line, 1), "no events; expected one JSON object per line")
	}
	return pr.History(), nil
}

// pairJSONL reads the lines and pairs their events in order. Past its
// first batch of lines, a long file of known size is read in batches
// parsed on every core (pairLines), the events paired in their order; the
// Pairer, told how much is read, then makes room for all the operations
// at once. A stream of unknown length is read line by line, which holds
// less at a time.
func pairJSONL(lr *lineReader, pr *history.Pairer, fast bool) error {
	fp := newFastJSON()
	first := &lineBatch{}
	eof := first.fill(lr, 0)
	if !fast || eof || lr.size < 0 || runtime.NumCPU() < 2 {
		first.parse(fp, fast)
		if err := first.pair(pr); err != nil || eof {
			return err
		}
		for {
			b, err := lr.next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			e, skip, err := jsonlEvent(fp, b, lr.line, fast)
			if err != nil {
				return err
			}
			if !skip {
				if err := pr.Add(&e); err != nil {
					return err
				}
			}
		}
	}
	return pairLines(lr, pr, first)
}

// jsonlEvent reads the event on line b (skip: the line is blank).
func jsonlEvent(fp *fastJSON, b []byte, line int, fast bool) (e history.Event, skip bool, err error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return e, true, nil
	}
	if !utf8.Valid(b) {
		return e, false, history.Errorf(line, "invalid UTF-8")
	}
	if fast {
		if fp.lineEvent(b, line, &e) {
			return e, false, nil
		}
		e = history.Event{}
	}
	p := newJSONParser(b, line)
	tops, err := p.all()
	if err != nil {
		return e, false, err
	}
	if len(tops) != 1 {
		return e, false, history.Errorf(line, "expected one JSON object on the line, found %d values", len(tops))
	}
	e, err = jsonEvent(tops[0])
	return e, false, err
}

// parse reads the batch's events, stopping at the first line in error.
func (b *lineBatch) parse(fp *fastJSON, fast bool) {
	start := 0
	for i, end := range b.ends {
		e, skip, err := jsonlEvent(fp, b.data[start:end], b.first+i, fast)
		start = end
		if err != nil {
			b.err = err
			return
		}
		if !skip {
			b.events = append(b.events, e)
		}
	}
}

// withArticle puts "a" or "an" before a word, for messages.
func withArticle(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}
