package sim

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/histcheck/histcheck/history"
)

// timeline is a story told step by step: the lines of its table and the
// operations of its history, times in ms.
type timeline struct {
	steps []step
	ops   []history.Op
}

// step is a line of a timeline's table.
type step struct {
	at         int64 // ms
	who, event string
}

// secs writes a time in ms as seconds without needless decimals: 9.9, 10.
func secs(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
}

// note adds a line to the table only.
func (t *timeline) note(at int64, who, format string, args ...any) {
	t.steps = append(t.steps, step{at, who, fmt.Sprintf(format, args...)})
}

// add adds an operation to the history and a line to the table.
func (t *timeline) add(o history.Op, format string, args ...any) {
	t.ops = append(t.ops, o)
	t.note(o.Call, o.Client, format, args...)
}

// table renders the steps in time order (steps at the same time keep the
// order they were told in).
func (t *timeline) table() string {
	steps := append([]step(nil), t.steps...)
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].at < steps[j].at })
	rows := make([][]string, len(steps))
	for i, s := range steps {
		rows[i] = []string{secs(s.at), s.who, s.event}
	}
	return mdTable([]string{"time (s)", "who", "event"}, rows)
}

// lockOp builds a lock operation on key "lock"; a token of 0 means none.
func lockOp(client, f string, token int64, call, ret int64, st history.Type) history.Op {
	o := op(client, f, history.StringValue("lock"), history.Value{}, call, ret, st)
	if token > 0 {
		o.Token = history.IntValue(token)
		if f == "acquire" {
			o.Value = o.Token
		}
	}
	return o
}

// storeOp builds a storage operation on the given key; a token of 0 means
// none.
func storeOp(client, f, key string, v history.Value, token int64, call, ret int64, st history.Type) history.Op {
	o := op(client, f, history.StringValue(key), v, call, ret, st)
	if token > 0 {
		o.Token = history.IntValue(token)
	}
	return o
}

// verdictOf is "true" when ok, else "false".
func verdictOf(ok bool) string {
	if ok {
		return "true"
	}
	return "false"
}
