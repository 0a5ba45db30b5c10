package format

import (
	"errors"
	"io"
	"strings"
	"testing"
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
