package format

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// limitInts are integers at and past the limits of 64 bits: int64's
// largest and smallest, one past each, 19 and 20 digits. The fast readers
// take at most 18 digits as an int64 and leave the rest to the exact
// reading; each of these must be read as its own digits, never wrapped
// (9999999999999999999 wrapped to 64 bits is -8446744073709551617).
var limitInts = []string{
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
	"999999999999999999", "1000000000000000000", "9999999999999999999", "-8446744073709551617",
	"-9999999999999999999", "18446744073709551615", "18446744073709551616", "99999999999999999999",
	"-99999999999999999999",
}

// intReaders read a history in each format and each way of reading it:
// write is the history's text with a value put in; the fast readers
// give up on what they cannot read exactly.
var intReaders = []struct {
	name  string
	write func(w, r string) string
	read  func(src string) (*history.History, error)
}{
	{"EDN, fast", ednInts, func(s string) (*history.History, error) { return readEDN(strings.NewReader(s), nil, true) }},
	{"EDN, exact", ednInts, func(s string) (*history.History, error) { return readEDN(strings.NewReader(s), nil, false) }},
	{"EDN, whole document", ednInts, func(s string) (*history.History, error) { return readEDNWhole([]byte(s)) }},
	{"JSON, fast", jsonInts, func(s string) (*history.History, error) { return readJSONWith([]byte(s), formAuto, true) }},
	{"JSON, exact", jsonInts, func(s string) (*history.History, error) { return readJSONWith([]byte(s), formAuto, false) }},
	{"JSON Lines, fast", jsonlInts, func(s string) (*history.History, error) { return readJSONLWith(strings.NewReader(s), true) }},
	{"JSON Lines, exact", jsonlInts, func(s string) (*history.History, error) { return readJSONLWith(strings.NewReader(s), false) }},
	{"Jepsen log", logInts, readAs("h.log", JepsenLog)},
	{"Jepsen history.txt", txtInts, readAs("h.txt", JepsenTxt)},
	{"notation", notationInts, readAs("h.hist", Notation)},
	{"tuples", tupleInts, readAs("h.json", Tuples)},
	{"operations", opsInts, readAs("h.json", Ops)},
}

func readAs(name, forced string) func(string) (*history.History, error) {
	return func(s string) (*history.History, error) { return Read(name, strings.NewReader(s), forced) }
}

func ednInts(w, r string) string {
	return fmt.Sprintf("{:process 0 :type :invoke :f :write :value %s}\n{:process 0 :type :ok :f :write :value %[1]s}\n"+
		"{:process 1 :type :invoke :f :read :value nil}\n{:process 1 :type :ok :f :read :value %s}\n", w, r)
}

func jsonlInts(w, r string) string {
	return fmt.Sprintf(`{"process": 0, "type": "invoke", "f": "write", "value": %s}`+"\n"+
		`{"process": 0, "type": "ok", "f": "write", "value": %[1]s}`+"\n"+
		`{"process": 1, "type": "invoke", "f": "read", "value": null}`+"\n"+
		`{"process": 1, "type": "ok", "f": "read", "value": %s}`+"\n", w, r)
}

func jsonInts(w, r string) string {
	return "[" + strings.ReplaceAll(strings.TrimSuffix(jsonlInts(w, r), "\n"), "\n", ",\n") + "]"
}

func logInts(w, r string) string {
	return fmt.Sprintf("INFO  jepsen.util - 0\t:invoke\t:write\t%s\nINFO  jepsen.util - 0\t:ok\t:write\t%[1]s\n"+
		"INFO  jepsen.util - 1\t:invoke\t:read\tnil\nINFO  jepsen.util - 1\t:ok\t:read\t%s\n", w, r)
}

func txtInts(w, r string) string {
	return fmt.Sprintf("0\t:invoke\t:write\t%s\n0\t:ok\t:write\t%[1]s\n1\t:invoke\t:read\tnil\n1\t:ok\t:read\t%s\n", w, r)
}

func notationInts(w, r string) string {
	return fmt.Sprintf("A: w(%s) [0, 10]\nB: r -> %s [20, 30]\n", w, r)
}

func tupleInts(w, r string) string {
	return fmt.Sprintf(`[["A", "w", %s, 0, 10], ["B", "r", %s, 20, 30]]`, w, r)
}

func opsInts(w, r string) string {
	return fmt.Sprintf(`[{"process": "A", "f": "w", "value": %s, "call": 0, "return": 10},`+
		`{"process": "B", "f": "r", "value": %s, "call": 20, "return": 30}]`, w, r)
}

// TestIntegerLimitsInEveryReader checks that every reader reads integers
// at and past the 64-bit limits as exactly the integers written.
func TestIntegerLimitsInEveryReader(t *testing.T) {
	for _, rd := range intReaders {
		for _, n := range limitInts {
			h, err := rd.read(rd.write(n, n))
			if err != nil {
				t.Errorf("%s, %s: %v", rd.name, n, err)
				continue
			}
			if len(h.Ops) != 2 {
				t.Fatalf("%s, %s: %d operations, want 2", rd.name, n, len(h.Ops))
			}
			for _, o := range h.Ops {
				if o.Value.Kind() != history.Int || o.Value.Text() != n {
					t.Errorf("%s: %s read as %s %s", rd.name, n, o.Value.Kind(), o.Value)
				}
			}
		}
	}
}

// TestWrappedIntegersStayDistinct checks that two integers that are one
// value modulo 2^64 stay two values in every reader: a read of one after a
// write of the other did not read that write.
func TestWrappedIntegersStayDistinct(t *testing.T) {
	for _, pair := range [][2]string{
		{"9999999999999999999", "-8446744073709551617"},
		{"9223372036854775808", "-9223372036854775808"},
		{"18446744073709551616", "0"},
	} {
		for _, rd := range intReaders {
			h, err := rd.read(rd.write(pair[0], pair[1]))
			if err != nil {
				t.Errorf("%s, %s and %s: %v", rd.name, pair[0], pair[1], err)
				continue
			}
			if history.Compare(h.Ops[0].Value, h.Ops[1].Value) == 0 {
				t.Errorf("%s: %s and %s read as one value %s", rd.name, pair[0], pair[1], h.Ops[0].Value)
			}
		}
	}
}

// TestIntegerFieldLimits checks the integer fields of Jepsen events (time,
// index, process) at and past the limits, fast and exact alike: int64's
// largest is kept for "never" and refused as a time or index, anything
// past 64 bits is refused as not fitting, never wrapped into range.
func TestIntegerFieldLimits(t *testing.T) {
	type want struct {
		ok  bool
		msg string // a part of the error
	}
	fits := want{ok: true}
	tooBig := want{msg: "does not fit in a 64-bit integer"}
	for _, tc := range []struct {
		field, n string
		want     want
	}{
		{"time", "9223372036854775806", fits},
		{"time", "9223372036854775807", tooBig},
		{"time", "9223372036854775808", tooBig},
		{"time", "9999999999999999999", tooBig},
		{"time", "99999999999999999999", tooBig},
		{"time", "-1", fits}, // jepsen.history's "no time"
		{"time", "-2", want{msg: "is negative"}},
		{"time", "-9223372036854775809", tooBig},
		{"index", "9223372036854775806", fits},
		{"index", "9223372036854775807", tooBig},
		{"index", "9999999999999999999", tooBig},
		{"index", "-8446744073709551617", fits}, // 19 digits, in range
		{"index", "-9223372036854775808", fits},
		{"process", "9223372036854775807", fits},
		{"process", "9223372036854775808", tooBig},
		{"process", "9999999999999999999", tooBig},
		{"process", "-9223372036854775809", tooBig},
	} {
		edn := func(typ string) string {
			s := fmt.Sprintf("{:process 0 :type :%s :f :read :value nil :%s %s}", typ, tc.field, tc.n)
			if tc.field == "process" {
				s = fmt.Sprintf("{:process %s :type :%s :f :read :value nil}", tc.n, typ)
			}
			return s + "\n"
		}
		jsonl := func(typ string) string {
			s := fmt.Sprintf(`{"process": 0, "type": %q, "f": "read", "value": null, %q: %s}`, typ, tc.field, tc.n)
			if tc.field == "process" {
				s = fmt.Sprintf(`{"process": %s, "type": %q, "f": "read", "value": null}`, tc.n, typ)
			}
			return s + "\n"
		}
		e := edn("invoke") + edn("ok")
		jl := jsonl("invoke") + jsonl("ok")
		js := "[" + strings.Replace(strings.TrimSuffix(jl, "\n"), "\n", ",\n", 1) + "]"
		for _, rd := range []struct {
			name string
			read func() (*history.History, error)
		}{
			{"EDN, fast", func() (*history.History, error) { return readEDN(strings.NewReader(e), nil, true) }},
			{"EDN, exact", func() (*history.History, error) { return readEDN(strings.NewReader(e), nil, false) }},
			{"JSON, fast", func() (*history.History, error) { return readJSONWith([]byte(js), formAuto, true) }},
			{"JSON, exact", func() (*history.History, error) { return readJSONWith([]byte(js), formAuto, false) }},
			{"JSON Lines, fast", func() (*history.History, error) { return readJSONLWith(bytes.NewReader([]byte(jl)), true) }},
			{"JSON Lines, exact", func() (*history.History, error) { return readJSONLWith(bytes.NewReader([]byte(jl)), false) }},
		} {
			h, err := rd.read()
			switch {
			case tc.want.ok && err != nil:
				t.Errorf("%s: %s %s refused: %v", rd.name, tc.field, tc.n, err)
			case !tc.want.ok && err == nil:
				t.Errorf("%s: %s %s accepted", rd.name, tc.field, tc.n)
			case !tc.want.ok && !strings.Contains(err.Error(), tc.want.msg):
				t.Errorf("%s: %s %s: error %q, want it to say %q", rd.name, tc.field, tc.n, err, tc.want.msg)
			case err == nil && tc.field == "process" && h.Ops[0].Client != tc.n:
				t.Errorf("%s: process %s read as %q", rd.name, tc.n, h.Ops[0].Client)
			case err == nil && tc.field == "index" && fmt.Sprint(h.Ops[0].Index) != tc.n:
				t.Errorf("%s: index %s read as %d", rd.name, tc.n, h.Ops[0].Index)
			case err == nil && tc.field == "time" && tc.n == "-1" && h.Timed:
				t.Errorf("%s: time -1 read as a time", rd.name)
			case err == nil && tc.field == "time" && tc.n != "-1" && fmt.Sprint(h.Ops[0].Times.Call) != tc.n:
				t.Errorf("%s: time %s read as %d", rd.name, tc.n, h.Ops[0].Times.Call)
			}
		}
	}
}
