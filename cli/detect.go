package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/checker/suite"
	"github.com/histcheck/histcheck/history"
)

// chooseSpec picks the model or models: the flag, else the file's own,
// else one detected from the operation names. how says where a choice not
// made by the flag came from.
func chooseSpec(ms []suite.Model, flag *modelSpec, h *history.History) (spec modelSpec, how string, err error) {
	if flag != nil {
		return *flag, "", nil
	}
	if v := h.Meta["model"]; !v.IsNone() {
		name, ok := v.Str()
		if !ok {
			return spec, "", fmt.Errorf("the file names its model as %s; expected a model name or KEY=MODEL pairs", v)
		}
		spec, err = parseModelSpec(name)
		if err != nil {
			return spec, "", fmt.Errorf("the file's model: %v", err)
		}
		return spec, "from the file", nil
	}
	name, err := detectModel(h)
	if err != nil {
		return spec, "", fmt.Errorf("%v; give -m MODEL, or -m KEY=MODEL,... for a model per key (accepted: %s)", err, strings.Join(suite.Names(ms), ", "))
	}
	return modelSpec{all: name}, detected, nil
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
	lockOps := []string{"acquire", "release", "lock", "unlock"}
	leaseOps := []string{"renew", "refresh", "keepalive"}
	switch {
	case only(lockOps...):
		return "mutex", nil
	case only(append(lockOps, leaseOps...)...):
		return "lease", nil
	case keyed && (names["acquire"] || names["lock"]):
		return "", fmt.Errorf("the keys %s hold objects of different kinds (operations %s)",
			strings.Join(unionKeys(h), ", "), strings.Join(sortedNames(names), ", "))
	case !keyed && only("enqueue", "dequeue"):
		return "fifo-queue", nil
	case keyed || names["append"] || names["get"] || names["put"]:
		return "kv", nil
	case names["cas"] || names["compare-and-set"]:
		return "cas-register", nil
	case only("read", "write", "r", "w"):
		return "register", nil
	}
	return "", fmt.Errorf("cannot tell the model from the operation names %s", strings.Join(sortedNames(names), ", "))
}

func sortedNames(names map[string]bool) []string {
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	return list
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
