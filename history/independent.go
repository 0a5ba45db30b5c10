package history

// SplitTuples reads every operation's value as a Jepsen "independent" tuple
// [k v]: it sets Key to k and Value to v, so that each key can be checked on
// its own. A read whose result is unknown is written [k nil]. It fails, with
// the operation's line, when a value is not a two-element list or an
// operation already has a key; the history is left unchanged then. The
// error's File is empty: the caller knows the file name.
func (h *History) SplitTuples() error {
	keys := make([]Value, len(h.Ops))
	vals := make([]Value, len(h.Ops))
	for i := range h.Ops {
		o := &h.Ops[i]
		if !o.Key.IsNone() {
			return where(o.Line, i, "operation %s already has a key (%s); independent tuples carry the key in the value", o.Label(), o.Key)
		}
		if o.Value.Kind() != List || o.Value.Len() != 2 {
			return where(o.Line, i, "operation %s: expected a value [key value] for independent keys, got %s", o.Label(), describe(o.Value))
		}
		es := o.Value.Elems()
		keys[i], vals[i] = es[0], es[1]
	}
	for i := range h.Ops {
		h.Ops[i].Key, h.Ops[i].Value = keys[i], vals[i]
	}
	return nil
}

// describe names a value for messages, including values that print as nothing.
func describe(v Value) string {
	switch v.Kind() {
	case None:
		return "no value"
	case List:
		if v.Len() == 0 {
			return "[]"
		}
	}
	return v.String()
}
