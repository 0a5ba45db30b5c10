package cli

import (
	"strconv"
	"strings"

	"github.com/histcheck/histcheck/history"
)

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
