package format

import (
	"github.com/histcheck/histcheck/budget"
	"github.com/histcheck/histcheck/history"
)

// jsonValuesFit refuses a JSON document holding a value whose text is
// longer than limit bytes (0: no limit), found by one pass over the bytes
// before anything is parsed: a value is read into a tree and then into a
// history.Value, which together take several times its text, so one that
// cannot fit is refused while scanning rather than after it was built.
// The containers that hold the history are not values: the document's top
// level and, in a wrapper object, its "history" entry. Everything else (an
// event, a tuple, a string, a field's value) is measured; an event is
// about as long as its value. The document is known to be UTF-8; a
// malformed one is left to the parser, which names the fault.
func jsonValuesFit(src []byte, limit int64, mem *budget.Memory) error {
	if limit <= 0 || int64(len(src)) <= limit {
		return nil
	}
	type open struct {
		at, line int
		exempt   bool
	}
	var stack []open
	outer := -1 // the outermost open container that is measured
	line := 1
	historyKey := false // the last key read in a top-level object was "history"
	tooLong := func(line int) error {
		return history.Errorf(line, "the value starting here is longer than %s, more than the memory budget allows for one value (%s, a %dth of it)",
			budget.Size(limit), budget.Size(mem.Limit()), MaxValueShare)
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '\n':
			line++
		case '"':
			start, startLine := i, line
			for i++; i < len(src) && src[i] != '"'; i++ {
				switch src[i] {
				case '\\':
					i++
				case '\n':
					line++ // invalid JSON, but keep the lines right
				}
			}
			if int64(i-start) > limit {
				return tooLong(startLine)
			}
			// A key of the top-level object: the next value is the
			// history when the key is "history".
			if len(stack) == 1 && src[stack[0].at] == '{' {
				historyKey = string(src[start:min(i+1, len(src))]) == `"history"`
			}
		case '[', '{':
			exempt := len(stack) == 0 || len(stack) == 1 && src[stack[0].at] == '{' && historyKey
			stack = append(stack, open{at: i, line: line, exempt: exempt})
			if !exempt && outer < 0 {
				outer = len(stack) - 1
			}
		case ']', '}':
			if len(stack) == 0 {
				return nil // malformed: the parser says so
			}
			stack = stack[:len(stack)-1]
			if outer == len(stack) {
				outer = -1
			}
		}
		// A value still open and already too long is refused at once,
		// without scanning the rest of it.
		if outer >= 0 && int64(i-stack[outer].at) >= limit {
			return tooLong(stack[outer].line)
		}
	}
	return nil
}
