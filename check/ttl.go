package check

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/histcheck/histcheck/history"
)

// timeUnits are the time units a file may name in its time_unit setting.
var timeUnits = map[string]time.Duration{
	"ns": time.Nanosecond,
	"us": time.Microsecond,
	"µs": time.Microsecond,
	"ms": time.Millisecond,
	"s":  time.Second,
}

// ttlSetting is a lease length as given on the command line or in a file:
// a plain number in the history's own time unit, or a duration.
type ttlSetting struct {
	text     string
	n        int64         // the plain number, when dur is 0
	dur      time.Duration // the duration, when given as one
	fromFile bool
}

// CheckTTL checks a lease length as Request.TTL takes it.
func CheckTTL(s string) error {
	_, err := parseTTL(s)
	return err
}

// parseTTL reads a lease length: a positive integer, or a positive
// duration such as 10s or 1500ms.
func parseTTL(s string) (ttlSetting, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n <= 0 {
			return ttlSetting{}, fmt.Errorf("ttl must be positive, got %s", t)
		}
		return ttlSetting{text: t, n: n}, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return ttlSetting{}, fmt.Errorf("ttl %q: want a positive number in the history's time unit, or a duration such as 10s", s)
	}
	if d <= 0 {
		return ttlSetting{}, fmt.Errorf("ttl must be positive, got %s", t)
	}
	return ttlSetting{text: t, dur: d}, nil
}

// inUnit converts the setting to the history's time unit ("" when the
// history does not say).
func (t ttlSetting) inUnit(unit string) (int64, error) {
	if t.dur == 0 {
		return t.n, nil
	}
	where := "--ttl " + t.text
	if t.fromFile {
		where = "the file's ttl " + t.text
	}
	if unit == "" {
		return 0, fmt.Errorf("%s is a duration, but the history does not say its time unit: give a plain number in the history's own unit "+
			"(e.g. --ttl 10000 for 10 s in milliseconds), or a time_unit (ns, us, ms, s) in the file", where)
	}
	per := timeUnits[unit]
	if t.dur%per != 0 {
		return 0, fmt.Errorf("%s is not a whole number of %s, the history's time unit", where, unit)
	}
	return int64(t.dur / per), nil
}

// historyTTL settles the lease length in h's time unit: --ttl first, then
// the file's ttl setting; 0 when neither gives one (a lease then needs a
// ttl field on each acquire).
func historyTTL(flag *ttlSetting, h *history.History, events bool) (int64, error) {
	t := flag
	if t == nil {
		v := h.Meta["ttl"]
		if v.IsNone() {
			return 0, nil
		}
		s := v.Text()
		if str, ok := v.Str(); ok {
			s = str
		}
		ft, err := parseTTL(s)
		if err != nil {
			return 0, fmt.Errorf("the file's %v", err)
		}
		ft.fromFile = true
		t = &ft
	}
	if t.dur == 0 {
		return t.n, nil
	}
	unit, err := timeUnit(h, events)
	if err != nil {
		return 0, err
	}
	return t.inUnit(unit)
}

// timeUnit is the unit of h's times: the file's time_unit, else
// nanoseconds for Jepsen events (Jepsen's :time), else "" (not known).
func timeUnit(h *history.History, events bool) (string, error) {
	if v := h.Meta["time_unit"]; !v.IsNone() {
		s, ok := v.Str()
		if _, known := timeUnits[s]; !ok || !known {
			return "", fmt.Errorf("the file's time_unit is %s; expected ns, us, ms or s", v)
		}
		return s, nil
	}
	if events {
		return "ns", nil
	}
	return "", nil
}
