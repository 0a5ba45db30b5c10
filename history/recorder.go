package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"sync"
	"time"
)

// Recorder records the events of a concurrent test run in Go: each client
// calls Invoke before an operation and Complete after it. It is safe for
// concurrent use; event times are nanoseconds since the recorder was made,
// from the monotonic clock, and strictly increase in recording order.
type Recorder struct {
	mu     sync.Mutex
	start  time.Time
	last   int64
	events []Event
	open   map[CallID]bool
}

// CallID names an invocation for its completion.
type CallID int

// NewRecorder returns an empty recorder whose clock starts now.
func NewRecorder() *Recorder {
	return &Recorder{start: time.Now(), last: -1, open: map[CallID]bool{}}
}

// now returns the next timestamp; the caller holds r.mu.
func (r *Recorder) now() int64 {
	t := time.Since(r.start).Nanoseconds()
	if t <= r.last {
		t = r.last + 1
	}
	r.last = t
	return t
}

// Invoke records that client starts operation f with value v (nil for a
// read, say) and returns the call to complete.
func (r *Recorder) Invoke(client, f string, v Value) CallID {
	return r.InvokeKey(client, f, Value{}, v)
}

// InvokeKey is Invoke for an operation on one key of a key-value store.
func (r *Recorder) InvokeKey(client, f string, key, v Value) CallID {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := CallID(len(r.events))
	r.events = append(r.events, Event{Process: client, Type: Invoke, F: f, Value: v, Key: key,
		Time: r.now(), HasTime: true, Index: int64(id), HasIdx: true})
	r.open[id] = true
	return id
}

// Complete records the outcome of a call: OK with the observed value (the
// value read, or the value written), Fail if the operation certainly did not
// take effect, Info if it is unknown whether it did. It fails for a call that
// is unknown or already completed, and for the type Invoke.
func (r *Recorder) Complete(id CallID, t Type, v Value) error {
	if t != OK && t != Fail && t != Info {
		return fmt.Errorf("history: completing call %d with type %s; want ok, fail or info", id, t)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.open[id] {
		return fmt.Errorf("history: call %d is not open", id)
	}
	delete(r.open, id)
	inv := r.events[id]
	r.events = append(r.events, Event{Process: inv.Process, Type: t, F: inv.F, Value: v, Key: inv.Key,
		Time: r.now(), HasTime: true, Index: int64(len(r.events)), HasIdx: true})
	return nil
}

// Events returns a copy of the events recorded so far.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// History pairs the events recorded so far; calls still open count as
// operations with unknown outcome.
func (r *Recorder) History() (*History, error) { return Pair(r.Events()) }

// WriteJSONL writes the recorded events as Jepsen events in JSON Lines, one
// object per line, which histcheck reads back.
func (r *Recorder) WriteJSONL(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, e := range r.Events() {
		b, err := e.MarshalJSON()
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// reservedFields are the event fields histcheck interprets; an extra field
// of the same name is not written, since reading would take it for the real one.
var reservedFields = map[string]bool{"process": true, "type": true, "f": true, "value": true,
	"time": true, "index": true, "key": true, "version": true, "token": true}

// MarshalJSON writes the event as a Jepsen event object with fields in a
// fixed order: process (a number when the name is one), type, f, value, key,
// version, token, time, index, then the extra fields. Absent fields are
// left out. Sets become arrays and maps with non-string keys become arrays
// of [key value] pairs, as JSON has nothing closer.
func (e Event) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"process":`)
	if isCanonicalInt(e.Process) {
		b.WriteString(e.Process)
	} else {
		writeJSON(&b, e.Process)
	}
	b.WriteString(`,"type":`)
	writeJSON(&b, e.Type.String())
	b.WriteString(`,"f":`)
	writeJSON(&b, e.F)
	for _, f := range []struct {
		name string
		v    Value
	}{{"value", e.Value}, {"key", e.Key}, {"version", e.Version}, {"token", e.Token}} {
		if f.v.IsNone() {
			continue
		}
		b.WriteString(`,"` + f.name + `":`)
		if err := writeJSON(&b, f.v.JSON()); err != nil {
			return nil, err
		}
	}
	if e.HasTime {
		b.WriteString(`,"time":` + strconv.FormatInt(e.Time, 10))
	}
	if e.HasIdx {
		b.WriteString(`,"index":` + strconv.FormatInt(e.Index, 10))
	}
	for _, f := range e.Extra {
		if reservedFields[f.Name] || f.Value.IsNone() {
			continue
		}
		b.WriteByte(',')
		writeJSON(&b, f.Name)
		b.WriteByte(':')
		if err := writeJSON(&b, f.Value.JSON()); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}

// isCanonicalInt reports whether s is an int64 written without sign noise or
// leading zeros, so that writing it as a JSON number reads back as s.
func isCanonicalInt(s string) bool {
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && strconv.FormatInt(n, 10) == s
}

// ValueOf converts a Go value to a Value: nil, booleans, integers, floats,
// strings, Values, slices and arrays (lists), and maps (maps). Pointers are
// followed; anything else is an error.
func ValueOf(x any) (Value, error) {
	switch v := x.(type) {
	case nil:
		return NilValue, nil
	case Value:
		return v, nil
	case bool:
		return BoolValue(v), nil
	case string:
		return StringValue(v), nil
	case int:
		return IntValue(int64(v)), nil
	case int64:
		return IntValue(v), nil
	case float64:
		return FloatValue(v), nil
	case json.Number:
		if n, ok := BigIntValue(string(v)); ok {
			return n, nil
		}
		f, err := v.Float64()
		if err != nil {
			return Value{}, fmt.Errorf("history: number %s: %w", v, err)
		}
		return FloatValue(f), nil
	}
	return valueOfReflect(reflect.ValueOf(x), 0)
}

// maxValueDepth bounds nesting so that a cyclic structure is an error, not a
// stack overflow.
const maxValueDepth = 100

func valueOfReflect(rv reflect.Value, depth int) (Value, error) {
	if depth > maxValueDepth {
		return Value{}, fmt.Errorf("history: value nested more than %d deep", maxValueDepth)
	}
	switch rv.Kind() {
	case reflect.Invalid:
		return NilValue, nil
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return NilValue, nil
		}
		return valueOfReflect(rv.Elem(), depth+1)
	case reflect.Bool:
		return BoolValue(rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return IntValue(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			v, _ := BigIntValue(strconv.FormatUint(u, 10))
			return v, nil
		}
		return IntValue(int64(u)), nil
	case reflect.Float32, reflect.Float64:
		return FloatValue(rv.Float()), nil
	case reflect.String:
		return StringValue(rv.String()), nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return NilValue, nil
		}
		vs := make([]Value, rv.Len())
		for i := range vs {
			v, err := valueOfReflect(rv.Index(i), depth+1)
			if err != nil {
				return Value{}, err
			}
			vs[i] = v
		}
		return ListValue(vs...), nil
	case reflect.Map:
		if rv.IsNil() {
			return NilValue, nil
		}
		keys := rv.MapKeys()
		ks := make([]Value, len(keys))
		vs := make([]Value, len(keys))
		for i, k := range keys {
			kv, err := valueOfReflect(k, depth+1)
			if err != nil {
				return Value{}, err
			}
			vv, err := valueOfReflect(rv.MapIndex(k), depth+1)
			if err != nil {
				return Value{}, err
			}
			ks[i], vs[i] = kv, vv
		}
		return MapValue(ks, vs), nil
	}
	return Value{}, fmt.Errorf("history: cannot make a value of %s", rv.Type())
}
