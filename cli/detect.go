package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
)

// chooseModel picks the model: the flag, else the file's own, else one
// detected from the operation names. how says where a choice not made by
// the flag came from.
func chooseModel(ms []suite.Model, flag string, h *history.History) (m suite.Model, how string, err error) {
	if flag != "" {
		m, err = suite.Lookup(ms, flag)
		return m, "", err
	}
	if v := h.Meta["model"]; !v.IsNone() {
		name, ok := v.Str()
		if !ok {
			return m, "", fmt.Errorf("the file names its model as %s; expected a model name", v)
		}
		m, err = suite.Lookup(ms, name)
		return m, "from the file", err
	}
	name, err := detectModel(h)
	if err != nil {
		return m, "", fmt.Errorf("%v; give -m (accepted: %s)", err, strings.Join(suite.Names(ms), ", "))
	}
	m, err = suite.Lookup(ms, name)
	return m, detected, err
}

// detected is how a model found from the operation names is announced.
const detected = "detected from operation names"

// detectModel names the built-in model whose operations the history uses.
func detectModel(h *history.History) (string, error) {
	names := map[string]bool{}
	keyed := false
	for i := range h.Ops {
		names[h.Ops[i].F] = true
		if !h.Ops[i].Key.IsNone() {
			keyed = true
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("cannot tell the model of a history without operations")
	}
	only := func(allowed ...string) bool {
		for n := range names {
			if !contains(allowed, n) {
				return false
			}
		}
		return true
	}
	switch {
	case only("acquire", "release", "lock", "unlock"):
		return "mutex", nil
	case keyed || names["append"] || names["get"] || names["put"]:
		return "kv", nil
	case names["cas"] || names["compare-and-set"]:
		return "cas-register", nil
	case only("read", "write", "r", "w"):
		return "register", nil
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	return "", fmt.Errorf("cannot tell the model from the operation names %s", strings.Join(list, ", "))
}

// ParseScalar reads a value given on the command line: integers and other
// numbers, nil or null, true and false, "" and other quoted strings; any
// other word is a string.
func ParseScalar(s string) history.Value {
	t := strings.TrimSpace(s)
	switch t {
	case "nil", "null":
		return history.NilValue
	case "true":
		return history.BoolValue(true)
	case "false":
		return history.BoolValue(false)
	case "":
		return history.StringValue("")
	}
	if v, ok := history.BigIntValue(t); ok {
		return v
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil && strings.ContainsAny(t[:1], "+-.0123456789") {
		return history.FloatValue(f)
	}
	if len(t) >= 2 && (t[0] == '"' || t[0] == '\'') && t[len(t)-1] == t[0] {
		if t[0] == '"' {
			if u, err := strconv.Unquote(t); err == nil {
				return history.StringValue(u)
			}
		}
		return history.StringValue(t[1 : len(t)-1])
	}
	if strings.HasPrefix(t, ":") && len(t) > 1 {
		// An EDN keyword, as Jepsen writes values; keywords equal strings.
		return history.StringValue(t[1:])
	}
	return history.StringValue(s)
}
