package format

import (
	"math"
	"strings"

	"github.com/histcheck/histcheck/history"
	"github.com/histcheck/histcheck/txn"
)

// TxnProcess is the process of transactions read without one.
const TxnProcess = "nil"

// field is one entry of an op object or map, in input order, with the line
// of its value and how the value was written (for messages).
type field struct {
	name  string
	value history.Value
	line  int
	show  string
}

// quoteName writes a field name the way the input format does: ":f" in
// EDN, "f" in JSON.
func quoteName(prefix, name string) string {
	if prefix == ":" {
		return ":" + name
	}
	return `"` + name + `"`
}

// processName reads a process: an integer or a name. A leading colon is
// kept off, so :nemesis and "nemesis" are the same. Integers must fit in 64
// bits (see checkProcess).
func processName(v history.Value) (string, bool) {
	switch v.Kind() {
	case history.Int:
		_, ok := v.Int()
		return v.Text(), ok
	case history.String:
		// One leading colon is a keyword's; a name that still starts
		// with one would not read back the same once written.
		s := strings.TrimPrefix(v.Text(), ":")
		return s, s != "" && s[0] != ':'
	}
	return "", false
}

// opName reads an operation name without a leading colon.
func opName(v history.Value) (string, bool) {
	s, ok := v.Str()
	s = strings.TrimPrefix(s, ":")
	return s, ok && s != "" && s[0] != ':' // as processName
}

// processError explains why a process field was refused.
func processError(line int, name, show string, v history.Value) error {
	if v.Kind() == history.Int {
		return history.Errorf(line, "%s %s does not fit in a 64-bit integer", name, show)
	}
	return history.Errorf(line, "%s must be an integer or a name, got %s", name, show)
}

// NoTime is the time jepsen.history gives an event that has none (its
// histories fill in :time -1): it is read as no time at all, as an absent
// or nil time is.
const NoTime = -1

// isNoTime reports whether a time field holds NoTime.
func isNoTime(v history.Value) bool {
	n, ok := v.Int()
	return v.Kind() == history.Int && ok && n == NoTime
}

// timeField reads the time of a Jepsen event: like intField, and not
// negative (but for NoTime, read before), since Jepsen counts event times
// up from the start of the test.
// (Intervals written as call and return may use any integers.)
func timeField(f field, prefix string) (int64, error) {
	n, err := intField(f, prefix)
	if err == nil && n < 0 {
		return 0, history.Errorf(f.line, "%s %d is negative; times count up from the start of the history", quoteName(prefix, f.name), n)
	}
	return n, err
}

// intField reads a time or index: an integer that fits in 64 bits (and is
// not the value reserved for "never").
func intField(f field, prefix string) (int64, error) {
	if f.value.Kind() != history.Int {
		return 0, history.Errorf(f.line, "%s must be an integer, got %s", quoteName(prefix, f.name), f.show)
	}
	n, ok := f.value.Int()
	if !ok || n == math.MaxInt64 {
		return 0, history.Errorf(f.line, "%s %s does not fit in a 64-bit integer", quoteName(prefix, f.name), f.show)
	}
	return n, nil
}

// txnDefaults fills in what Elle's own histories leave out of a
// transaction (a value of micro-operations): :f is then "txn", and events
// that name no process (or name it nil) share one, TxnProcess, as Elle
// reads a nil process as one process. It returns whether the
// event now has a process.
func txnDefaults(e *history.Event, hasProcess, noF bool) bool {
	if (hasProcess && !noF) || !txn.Looks(e.Value) {
		return hasProcess
	}
	if noF {
		e.F = txn.F
	}
	if !hasProcess {
		e.Process = TxnProcess
	}
	return true
}

// buildEvent makes an Event from the fields of one op object at line.
// prefix is ":" for EDN and "" for JSON, for messages.
func buildEvent(fs []field, line int, prefix string) (history.Event, error) {
	e := history.Event{Line: line}
	var hasProcess, hasType bool
	var fField, nilProcess *field
	seen := make(map[string]int, len(fs))
	for i := range fs {
		f := &fs[i]
		if prev, dup := seen[f.name]; dup {
			return e, history.Errorf(f.line, "field %s appears twice (also at line %d)", quoteName(prefix, f.name), prev)
		}
		seen[f.name] = f.line
		switch f.name {
		case "process":
			if f.value.IsNil() {
				nilProcess = f // a transaction's, as Elle prints it, or an error
				continue
			}
			p, ok := processName(f.value)
			if !ok {
				return e, processError(f.line, quoteName(prefix, "process"), f.show, f.value)
			}
			e.Process, hasProcess = p, true
		case "type":
			s, _ := f.value.Str()
			t, ok := history.ParseType(s)
			if f.value.Kind() != history.String || !ok {
				return e, history.Errorf(f.line, "%s must be one of invoke, ok, fail, info; got %s", quoteName(prefix, "type"), f.show)
			}
			e.Type, hasType = t, true
		case "f":
			fField = f
		case "value":
			e.Value = f.value
		case "key":
			e.Key = f.value
		case "version":
			e.Version = f.value
		case "token":
			e.Token = f.value
		case "time":
			if f.value.IsNil() || isNoTime(f.value) {
				continue
			}
			t, err := timeField(*f, prefix)
			if err != nil {
				return e, err
			}
			e.Time, e.HasTime = t, true
		case "index":
			if f.value.IsNil() {
				continue
			}
			n, err := intField(*f, prefix)
			if err != nil {
				return e, err
			}
			e.Index, e.HasIdx = n, true
		default:
			e.Extra = append(e.Extra, history.Field{Name: f.name, Value: f.value})
		}
	}
	if nilProcess != nil && !txn.Looks(e.Value) {
		return e, processError(nilProcess.line, quoteName(prefix, "process"), nilProcess.show, nilProcess.value)
	}
	return e, finishEvent(&e, fField, hasProcess, hasType, line, prefix)
}

// finishEvent completes an event built from its fields: a transaction's
// defaults (txnDefaults), the fields it must have, and its operation from
// fField (nil when the event has no "f").
func finishEvent(e *history.Event, fField *field, hasProcess, hasType bool, line int, prefix string) error {
	if fField != nil && fField.value.IsNil() && txn.Looks(e.Value) {
		fField = nil // Elle prints a transaction's missing :f as nil
	}
	hasProcess = txnDefaults(e, hasProcess, fField == nil)
	if !hasProcess {
		return history.Errorf(line, "event has no %s field", quoteName(prefix, "process"))
	}
	if !hasType {
		return history.Errorf(line, "event has no %s field (invoke, ok, fail or info)", quoteName(prefix, "type"))
	}
	if fField != nil || e.F == "" { // a transaction's f may have been defaulted
		name, err := eventF(fField, history.IsNemesis(e.Process), line, prefix)
		if err != nil {
			return err
		}
		e.F = name
	}
	return nil
}

// eventF reads the operation of an event at line from its "f" field (nil
// when the event has none): an operation name; for the fault injector's
// events, which are not checked, any value, or none.
func eventF(f *field, nemesis bool, line int, prefix string) (string, error) {
	if f == nil {
		if nemesis {
			return "", nil
		}
		return "", history.Errorf(line, "event has no %s field naming the operation", quoteName(prefix, "f"))
	}
	name, ok := opName(f.value)
	switch {
	case ok:
		return name, nil
	case nemesis:
		// The fault injector's f may be any value; its text is kept as
		// it is.
		return f.value.String(), nil
	}
	return "", history.Errorf(f.line, "%s must be an operation name, got %s", quoteName(prefix, "f"), f.show)
}
