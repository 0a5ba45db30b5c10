package format

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/history"
)

// TestLineEvents reads each format an event a line, and names the line
// of a malformed or cut-short event.
func TestLineEvents(t *testing.T) {
	cases := []struct {
		name, in string
		events   int
		err      string
	}{
		{"jsonl", "{\"process\":0,\"type\":\"invoke\",\"f\":\"read\"}\n\n{\"process\":0,\"type\":\"ok\",\"f\":\"read\",\"value\":1}\n", 2, ""},
		{"edn", "{:process 0, :type :invoke, :f :read}\n{:process 0 :type :ok :f :read :value 1}\n", 2, ""},
		{"jepsen log", "starting\nINFO  jepsen.util - 0\t:invoke\t:read\tnil\nsomething else\nINFO  jepsen.util - 0\t:ok\t:read\t1\n", 2, ""},
		{"cut short", "{\"process\":0,\"type\":\"invoke\",\"f\":\"read\"}\n{\"process\":0,\"ty", 1, ":2: the input ends inside a line"},
		{"malformed", "{\"process\":0,\"type\":\"invoke\",\"f\":\"read\"}\n{\"process\":0,,}\n", 1, ":2:"},
		{"not an event", strings.Repeat("hello\n", 1001), 0, ":1001: expected an event"},
		{"edn with two maps", "{:process 0 :type :invoke :f :read} {:process 1}\n", 0, ":1: expected one op map"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := NewLineEvents(strings.NewReader(c.in), "")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for {
				_, err = l.Next()
				if err != nil {
					break
				}
				n++
			}
			if n != c.events {
				t.Errorf("read %d events, want %d", n, c.events)
			}
			switch {
			case c.err == "" && !errors.Is(err, io.EOF):
				t.Errorf("error %v, want the end of the input", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("error %v, want one with %q", err, c.err)
			}
		})
	}
}

// TestAppendEventLine: what AppendEventLine writes reads back as the
// same event, processes that are integers written as Jepsen writes them.
func TestAppendEventLine(t *testing.T) {
	events := []history.Event{
		{Process: "17", Type: history.Invoke, F: "write", Key: history.IntValue(3), Value: history.IntValue(42), Time: 5, HasTime: true, Index: 0, HasIdx: true},
		{Process: "007", Type: history.Info, F: "write", Key: history.IntValue(3), Value: history.IntValue(42), Time: 6, HasTime: true, Index: 1, HasIdx: true},
		{Process: "a\"b", Type: history.OK, F: "read", Value: history.StringValue("x"), Time: 7, HasTime: true, Index: 2, HasIdx: true},
		{Process: "0", Type: history.Fail, F: "read", Value: history.NilValue},
	}
	var b []byte
	for i := range events {
		b = AppendEventLine(b, &events[i])
	}
	if !strings.Contains(string(b), `"process":17,`) || !strings.Contains(string(b), `"process":"007",`) {
		t.Errorf("processes not written as expected:\n%s", b)
	}
	l, err := NewLineEvents(strings.NewReader(string(b)), JSONL)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range events {
		got, err := l.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if got.Process != want.Process || got.Type != want.Type || got.F != want.F || got.Key != want.Key ||
			got.Value != want.Value || got.Time != want.Time || got.HasTime != want.HasTime || got.Index != want.Index {
			t.Errorf("event %d: read %+v, wrote %+v", i, got, want)
		}
	}
}

// TestLineEventsProcessNames reads processes numbered past the table of
// small numbers, some of them sharing a place in the cache of large
// ones, with names and operations between them: each event has its own
// process and operation.
func TestLineEventsProcessNames(t *testing.T) {
	procs := []string{"5000", "5256", "5000", "70000", "5256", "4096", "5512", "5000", "1", "0", "5000", `"n5000"`, "5000"}
	fs := []string{"read", "write", "cas", "read"}
	var in strings.Builder
	for i, p := range procs {
		in.WriteString(`{"process":` + p + `,"type":"invoke","f":"` + fs[i%len(fs)] + `","x` + fs[i%3] + `":1}` + "\n")
	}
	l, err := NewLineEvents(strings.NewReader(in.String()), JSONL)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range procs {
		e, err := l.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if want := strings.Trim(p, `"`); e.Process != want || e.F != fs[i%len(fs)] || len(e.Extra) != 1 || e.Extra[0].Name != "x"+fs[i%3] {
			t.Errorf("event %d: process %q, f %q, extra %v; want %q, %q, x%s", i, e.Process, e.F, e.Extra, want, fs[i%len(fs)], fs[i%3])
		}
	}
}

// kvLines is a key-value workload's history as JSON Lines, as histcheck
// sim live writes it: 32 clients, 1,000 keys, half writes of a new integer
// each, reads of a recent one.
func kvLines(ops int) []byte {
	var b []byte
	written := int64(0)
	for i := 0; i < ops; i++ {
		proc := strconv.Itoa(4096 + i%32)
		e := history.Event{Process: proc, Type: history.Invoke, Key: history.IntValue(int64(i*7919) % 1000),
			Time: int64(2 * i), HasTime: true, Index: int64(2 * i), HasIdx: true}
		ret := e
		ret.Type, ret.Time, ret.Index = history.OK, e.Time+1, e.Index+1
		if i%2 == 0 {
			written++
			e.F, e.Value = "write", history.IntValue(1_000_000+written)
			ret.F, ret.Value = e.F, e.Value
		} else {
			e.F, e.Value = "read", history.NilValue
			ret.F, ret.Value = e.F, history.IntValue(1_000_000+max(written-int64(i%1500), 0))
		}
		b = AppendEventLine(b, &e)
		b = AppendEventLine(b, &ret)
	}
	return b
}

// BenchmarkLineEvents decodes a key-value workload's lines, as check
// --follow does.
func BenchmarkLineEvents(b *testing.B) {
	in := kvLines(100_000)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		l, err := NewLineEvents(bytes.NewReader(in), JSONL)
		if err != nil {
			b.Fatal(err)
		}
		var e history.Event
		for {
			if err := l.Read(&e); err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
		}
	}
}

// TestJSONLTimesFastAgrees checks the fast reading of times and indexes
// against the exact reader on the numbers it reads itself (a few digits)
// and those it leaves to number: the same events, or the same error.
func TestJSONLTimesFastAgrees(t *testing.T) {
	for _, n := range []string{"0", "7", "42", "01", "00", "-1", "-0", "1.5", "1e3", "1E+3", "null", " 5 ", "5 ",
		"123456789012345678", "1234567890123456789", "12345678901234567890", "9223372036854775807", "9223372036854775808",
		"3x", "", "true", `"5"`} {
		for _, field := range []string{"time", "index"} {
			line := `{"process":0,"type":"invoke","f":"read","` + field + `":` + n + `}` + "\n" +
				`{"process":0,"type":"ok","f":"read","value":1,"` + field + `":` + n + `,"key":3}` + "\n"
			fh, ferr := readJSONLWith(strings.NewReader(line), true)
			sh, serr := readJSONLWith(strings.NewReader(line), false)
			sameResult(t, fh, sh, ferr, serr)
			var e history.Event
			l, err := NewLineEvents(strings.NewReader(line), JSONL)
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Read(&e); (err == nil) != (serr == nil) {
				t.Errorf("%s %q: following reads it with error %v, the exact reader %v", field, n, err, serr)
			}
		}
	}
}
