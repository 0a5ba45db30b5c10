package format

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// DBCop is dbcop's history JSON.
const DBCop = "dbcop"

// dbcopFormat is dbcop's history JSON: sessions of transactions, each
// {"events": [...], "committed": bool}, wrapped as dbcop's generator
// writes them ({"params": …, "info": …, "start": …, "end": …, "data":
// [sessions]}) or bare ([sessions]). An event is {"Read": {"variable": V,
// "version": N or null}}, {"Write": {"variable": V, "version": N}} or the
// compact ["r", V, N] / ["w", V, N]; the original dbcop's events,
// {"variable": V, "value": N, "write": bool, "success": bool} in
// transactions with "success", are read too. A read of null, or of 0 when
// no transaction writes 0 to the variable, reads the initial state.
var dbcopFormat = Format{
	Name:         DBCop,
	Summary:      "dbcop's history JSON: sessions of {events, committed} transactions",
	Transactions: true,
	Sniff:        sniffDBCop,
	Read:         document(readDBCopDoc),
	Write:        buffered(writeDBCop),
}

// sniffDBCop claims JSON that starts as a dbcop history: the generator's
// wrapper, or an array of sessions of transactions with events.
func sniffDBCop(head []byte) int {
	if looksDBCop(head) {
		return 7
	}
	return 0
}

// looksDBCop tells a dbcop document by its first bytes: {"params" … or
// [[{"events" …, whitespace aside.
func looksDBCop(src []byte) bool {
	src = src[:min(len(src), 4096)]
	var compact []byte
	for _, c := range src {
		if c != ' ' && c != '\n' && c != '\r' && c != '\t' {
			compact = append(compact, c)
			if len(compact) == 16 {
				break
			}
		}
	}
	return bytes.HasPrefix(compact, []byte(`{"params":`)) && bytes.Contains(src, []byte(`"data"`)) ||
		bytes.HasPrefix(compact, []byte(`[[{"events":`)) || bytes.HasPrefix(compact, []byte(`[[]`)) && bytes.Contains(src, []byte(`"events"`))
}

// dbcopDoc is the generator's wrapper.
type dbcopDoc struct {
	Params json.RawMessage `json:"params"`
	Data   []dbcopSession  `json:"data"`
}

type dbcopSession []dbcopTxn

type dbcopTxn struct {
	Events    []dbcopEvent `json:"events"`
	Committed *bool        `json:"committed"`
	Success   *bool        `json:"success"` // the original dbcop's name
}

// dbcopEvent is one event in any of dbcop's forms.
type dbcopEvent struct {
	write, ok bool
	variable  json.Number
	version   *json.Number // nil: a read of the initial state
	varString string       // a variable named by a string
}

// UnmarshalJSON reads the tagged, compact and original forms.
func (e *dbcopEvent) UnmarshalJSON(b []byte) error {
	e.ok = true
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var parts []json.RawMessage
		if err := json.Unmarshal(b, &parts); err != nil || len(parts) != 3 {
			return fmt.Errorf(`want ["r", variable, version] or ["w", variable, version], got %s`, history.Quote(string(b)))
		}
		var tag string
		if err := json.Unmarshal(parts[0], &tag); err != nil || (tag != "r" && tag != "w") {
			return fmt.Errorf(`want "r" or "w" first in %s`, history.Quote(string(b)))
		}
		e.write = tag == "w"
		return e.fields(parts[1], parts[2])
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("want an event object, got %s", history.Quote(string(b)))
	}
	if inner, ok := m["Read"]; ok && len(m) == 1 {
		return e.tagged(inner)
	}
	if inner, ok := m["Write"]; ok && len(m) == 1 {
		e.write = true
		return e.tagged(inner)
	}
	if _, ok := m["value"]; ok {
		var old struct {
			Variable json.RawMessage `json:"variable"`
			Value    json.RawMessage `json:"value"`
			Write    bool            `json:"write"`
			Success  *bool           `json:"success"`
		}
		if err := json.Unmarshal(b, &old); err != nil {
			return fmt.Errorf("event %s: %v", history.Quote(string(b)), err)
		}
		e.write = old.Write
		e.ok = old.Success == nil || *old.Success
		return e.fields(old.Variable, old.Value)
	}
	return fmt.Errorf(`want {"Read": {...}}, {"Write": {...}}, ["r"|"w", variable, version] or {"variable", "value", "write", "success"}, got %s`, history.Quote(string(b)))
}

func (e *dbcopEvent) tagged(inner json.RawMessage) error {
	var f struct {
		Variable json.RawMessage `json:"variable"`
		Version  json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(inner, &f); err != nil || f.Variable == nil || f.Version == nil {
		return fmt.Errorf(`want {"variable": V, "version": N}, got %s`, history.Quote(string(inner)))
	}
	return e.fields(f.Variable, f.Version)
}

// fields reads the variable (a number or a string) and the version (a
// non-negative integer, or null for a read of the initial state).
func (e *dbcopEvent) fields(variable, version json.RawMessage) error {
	if err := json.Unmarshal(variable, &e.variable); err != nil {
		if err := json.Unmarshal(variable, &e.varString); err != nil {
			return fmt.Errorf("the variable %s is neither a number nor a string", history.Quote(string(variable)))
		}
	}
	if string(bytes.TrimSpace(version)) == "null" {
		if e.write {
			return fmt.Errorf("a write of null to %s; a write needs a version", history.Quote(string(variable)))
		}
		return nil
	}
	var v json.Number
	if err := json.Unmarshal(version, &v); err != nil {
		return fmt.Errorf("the version %s is not a number", history.Quote(string(version)))
	}
	e.version = &v
	return nil
}

// readDBCopDoc reads a dbcop document.
func readDBCopDoc(src []byte) (Result, error) {
	if b, ok := (&dbcopFast{src: src}).read(); ok {
		h, err := b.build()
		return Result{History: h, Format: DBCop}, err
	}
	return readDBCopDecoded(src)
}

// readDBCopDecoded reads a dbcop document through encoding/json: every
// form dbcop writes, with errors that name the line.
func readDBCopDecoded(src []byte) (Result, error) {
	var sessions []dbcopSession
	trimmed := bytes.TrimSpace(src)
	var err error
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var doc dbcopDoc
		err = json.Unmarshal(src, &doc)
		sessions = doc.Data
		if err == nil && doc.Data == nil {
			err = errors.New(`a dbcop history has "data": the sessions`)
		}
	} else {
		err = json.Unmarshal(src, &sessions)
	}
	if err != nil {
		return Result{}, jsonError(src, err)
	}
	b := &sessionBuilder{zeroIsInit: true}
	names := map[string]int32{}
	for si, s := range sessions {
		name := strconv.Itoa(si + 1)
		for _, t := range s {
			committed := (t.Committed == nil || *t.Committed) && (t.Success == nil || *t.Success)
			rt := rawTxn{session: b.session(name, names), status: history.OK, from: int32(len(b.mops))}
			if !committed {
				rt.status = history.Fail
			}
			var aborted []rawMop
			for _, e := range t.Events {
				m, err := b.dbcopMop(e)
				if err != nil {
					return Result{}, history.Errorf(0, "session %d, transaction %d: %v", si+1, len(b.txns)+1, err)
				}
				switch {
				case e.ok:
					b.mops = append(b.mops, m)
				case m.write():
					// The original dbcop's unsuccessful write: an aborted
					// write, as AWDIT and PolySI read it.
					aborted = append(aborted, m)
				}
			}
			rt.to = int32(len(b.mops))
			b.txns = append(b.txns, rt)
			if len(aborted) > 0 {
				from := int32(len(b.mops))
				b.mops = append(b.mops, aborted...)
				b.txns = append(b.txns, rawTxn{session: rt.session, status: history.Fail, from: from, to: int32(len(b.mops))})
			}
		}
	}
	h, err := b.build()
	return Result{History: h, Format: DBCop}, err
}

func (b *sessionBuilder) dbcopMop(e dbcopEvent) (rawMop, error) {
	m := rawMop{flags: mopNil}
	if e.write {
		m.flags = mopWrite
	}
	if e.varString != "" || e.variable == "" {
		m.key, m.flags = b.strKey(e.varString), m.flags|mopStrKey
	} else if k, err := strconv.ParseInt(string(e.variable), 10, 64); err == nil {
		m.key = k
	} else {
		return m, fmt.Errorf("the variable %s is not an integer that fits in 64 bits", e.variable)
	}
	if e.version != nil {
		n, err := strconv.ParseInt(string(*e.version), 10, 64)
		if err != nil || n < 0 {
			return m, fmt.Errorf("the version %s is not a non-negative integer", *e.version)
		}
		m.val, m.flags = n, m.flags&^mopNil
	}
	return m, nil
}

// jsonError names the line of a JSON decoding error.
func jsonError(src []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
		err = fmt.Errorf("%s is not what dbcop writes there (expected %s)", te.Value, te.Type)
	}
	line := 0
	if off >= 0 {
		line = 1 + bytes.Count(src[:min(int(off), len(src))], []byte("\n"))
	}
	return history.Errorf(line, "dbcop history: %v", err)
}

// writeDBCop writes h's read/write transactions as dbcop's generator
// writes a history: the wrapper with params, then one transaction per
// line. Reads of the initial state are null; start and end, which the
// format requires, are the epoch, as histcheck's histories need not
// carry dates.
func writeDBCop(w *bufio.Writer, h *history.History) error {
	ss, err := sessionsOf(h)
	if err != nil {
		return err
	}
	keys, txns, events := sessionCounts(ss)
	fmt.Fprintf(w, "{\"params\": {\"id\": 0, \"n_node\": %d, \"n_variable\": %d, \"n_transaction\": %d, \"n_event\": %d},\n", len(ss), keys, txns, events)
	w.WriteString(" \"info\": \"histcheck\", \"start\": \"1970-01-01T00:00:00+00:00\", \"end\": \"1970-01-01T00:00:00+00:00\",\n \"data\": [")
	for si, s := range ss {
		if si > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n  [")
		for ti, t := range s.txns {
			if ti > 0 {
				w.WriteString(",")
			}
			if err := writeDBCopTxn(w, h, t); err != nil {
				return err
			}
		}
		w.WriteString("]")
	}
	w.WriteString("\n ]}\n")
	return nil
}

func writeDBCopTxn(w *bufio.Writer, h *history.History, t wtxn) error {
	o := &h.Ops[t.op]
	w.WriteString("\n   {\"events\": [")
	for i, m := range t.mops {
		if i > 0 {
			w.WriteString(", ")
		}
		k, err := dbcopVariable(m.Key, o)
		if err != nil {
			return err
		}
		v := "null"
		if m.Kind != txn.Read || !m.Value.IsNil() {
			if v, err = uintText(m.Value, o, "version"); err != nil {
				return err
			}
		}
		tag := "Read"
		if m.Kind == txn.Write {
			tag = "Write"
		}
		w.WriteString(`{"` + tag + `": {"variable": ` + k + `, "version": ` + v + `}}`)
	}
	w.WriteString("], \"committed\": " + strconv.FormatBool(t.status == history.OK) + "}")
	return nil
}

// dbcopVariable writes a variable: a non-negative integer, or a string.
func dbcopVariable(k history.Value, o *history.Op) (string, error) {
	if n, ok := k.Int(); ok && n >= 0 {
		return k.Text(), nil
	}
	if s, ok := k.Str(); ok {
		b, err := json.Marshal(s)
		return string(b), err
	}
	return "", fmt.Errorf("operation %s: the key %s is neither a non-negative integer nor a string, which dbcop's variables are", o.Label(), history.Quote(k.String()))
}
