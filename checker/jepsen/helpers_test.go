package jepsen_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/jepsen"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

// edn builds a Jepsen history from events written "PROCESS TYPE F VALUE"
// (VALUE in EDN), one a millisecond apart, as Jepsen's own tests time
// theirs.
func edn(t testing.TB, events ...string) *history.History {
	t.Helper()
	var sb strings.Builder
	for i, e := range events {
		parts := strings.SplitN(e, " ", 4)
		if len(parts) < 3 {
			t.Fatalf("bad event %q", e)
		}
		value := "nil"
		if len(parts) == 4 {
			value = parts[3]
		}
		fmt.Fprintf(&sb, "{:process %s, :type :%s, :f :%s, :value %s, :time %d, :index %d}\n",
			parts[0], parts[1], parts[2], value, int64(i)*1_000_000, i)
	}
	h, err := format.Read("test.edn", strings.NewReader(sb.String()), "")
	if err != nil {
		t.Fatalf("reading %q: %v", sb.String(), err)
	}
	return h
}

// run checks h with the named checker and options.
func run(t testing.TB, name string, h *history.History, settings map[string]string) checker.Result {
	t.Helper()
	res, err := jepsen.Check(context.Background(), name, h, settings, 1000)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.Jepsen == nil || res.Jepsen.Checker != name {
		t.Fatalf("%s: no tally: %+v", name, res)
	}
	return res
}

// vals renders values as a space-separated list, "" for none.
func vals(vs []history.Value) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, " ")
}

// emptyHistory is a history without operations.
func emptyHistory(t testing.TB) *history.History {
	t.Helper()
	h, err := history.Pair(nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
