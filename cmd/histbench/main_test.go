package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/history"
)

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []time.Duration
		want time.Duration
	}{
		{[]time.Duration{3}, 3},
		{[]time.Duration{5, 1, 3}, 3},
		{[]time.Duration{4, 1, 3, 2}, 2}, // (2+3)/2 in integer nanoseconds
	}
	for _, tc := range tests {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestWorkloads checks that both tools get the same history and agree on
// it, for every kind of generated workload the benchmark uses (small sizes).
func TestWorkloads(t *testing.T) {
	tests := []struct {
		spec   string
		want   checker.Verdict
		method string
	}{
		{"kv/ops=2000/keys=20/clients=8/crash=0.01/anomaly=none", checker.True, "wgl"},
		{"kv/ops=2000/keys=20/clients=8/crash=0.01/anomaly=stale-read", checker.False, "wgl"},
		{"register/ops=300/clients=6/unique/anomaly=none", checker.True, "zones"},
		{"register/ops=300/clients=6/unique/anomaly=stale-read", checker.False, "zones"},
		{"hard/writers=4", checker.False, "wgl"},
		{"writes/ops=300/initwrite", checker.True, "zones"},
		{"writes/ops=300/overlap=20", checker.True, "zones"},
	}
	for _, tc := range tests {
		w, err := generate(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		res, err := w.histcheck(context.Background(), linear.Options{Verify: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if res.Valid != tc.want || w.want != tc.want || res.Method != tc.method {
			t.Errorf("%s: histcheck %v by %s, workload expects %v, want %v by %s", tc.spec, res.Valid, res.Method, w.want, tc.want, tc.method)
		}
		if p := w.porcupine(time.Minute); p != tc.want {
			t.Errorf("%s: Porcupine says %v, want %v", tc.spec, p, tc.want)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, spec := range []string{"kv/ops=x", "kv/colour=red", "queue/ops=10/clients=2"} {
		if _, err := generate(spec); err == nil {
			t.Errorf("%s: no error", spec)
		}
	}
}

func TestOutcomeAndUnits(t *testing.T) {
	r := childResult{Seconds: 2.5, Verdict: "unknown", Reason: "memo exceeded 256 MiB after 2.5s", Method: "wgl"}
	if got := outcome(r); got != "2.50 s, unknown (memo exceeded 256 MiB after 2.5s)" {
		t.Errorf("outcome: %q", got)
	}
	if got := outcome(childResult{Crashed: "died: signal: killed"}); !strings.HasPrefix(got, "died") {
		t.Errorf("crashed outcome: %q", got)
	}
	for _, tc := range []struct {
		n    uint64
		want string
	}{{512, "512 B"}, {3 << 10, "3 KiB"}, {5 << 20, "5 MiB"}, {3 << 29, "1.50 GiB"}} {
		if got := bytes(tc.n); got != tc.want {
			t.Errorf("bytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// TestTxnChild checks the transactional row's child on a small file: it
// reads and checks the generated history, which holds strict
// serializability, and times both phases.
func TestTxnChild(t *testing.T) {
	path, err := writeTxnFile(t.TempDir(), 2000)
	if err != nil {
		t.Fatal(err)
	}
	r := txnChild(path)
	if r.Error != "" || r.Verdict != "true" || r.Method != "elle" || r.Ops != 2000 || r.ReadSeconds <= 0 {
		t.Errorf("txn child: %+v", r)
	}
	if got := thousandsInt(1_000_000); got != "1,000,000" {
		t.Errorf("thousandsInt = %q", got)
	}
}

// TestCoreSize reads a core's size from a JSON report, and fails on a
// report without one.
func TestCoreSize(t *testing.T) {
	out := []byte(`{"histories":[{"results":[{"verdict":"false","violations":[{"core":{"ops":[{},{},{}],"weakened":[{}],"minimal":true}}]}]}]}`)
	if n, minimal, err := coreSize(out); err != nil || n != 4 || !minimal {
		t.Errorf("coreSize = %d, %v, %v; want 4, true", n, minimal, err)
	}
	if _, _, err := coreSize([]byte(`{"histories":[{"results":[{"verdict":"true"}]}]}`)); err == nil {
		t.Error("no error for a report without a core")
	}
}

// TestPorcupineFileChild checks Porcupine's process of the cores rows on
// small files: a generated register history with a stale read, and a kv
// history of appends whose read misses one, are false under both
// conversions' models; a valid one is true; a bad argument is an error.
func TestPorcupineFileChild(t *testing.T) {
	dir := t.TempDir()
	stale, err := generate("kv/ops=300/keys=3/clients=4/crash=0.02/anomaly=stale-read/seed=5")
	if err != nil {
		t.Fatal(err)
	}
	str := history.StringValue
	kvOp := func(client, f, v string, call, ret int64) history.Op {
		return history.Op{Client: client, F: f, Key: str("k"), Value: str(v), Call: call, Return: ret, Status: history.OK}
	}
	bad, err := history.FromOps([]history.Op{kvOp("A", "append", "x", 0, 1), kvOp("B", "get", "", 2, 3)})
	if err != nil {
		t.Fatal(err)
	}
	good, err := history.FromOps([]history.Op{kvOp("A", "append", "x", 0, 1), kvOp("B", "get", "x", 2, 3)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		conv string
		h    *history.History
		want string
	}{
		{"register", stale.h, "false"},
		{"kv", bad, "false"},
		{"kv", good, "true"},
	}
	for i, tc := range tests {
		path := filepath.Join(dir, fmt.Sprintf("h%d.json", i))
		if err := writeHistory(path, format.JSON, tc.h); err != nil {
			t.Fatal(err)
		}
		r := porcupineFileChild(tc.conv+":"+path, time.Minute)
		if r.Error != "" || r.Verdict != tc.want || r.Ops != len(tc.h.Ops) {
			t.Errorf("%s %d: %+v, want verdict %s", tc.conv, i, r, tc.want)
		}
	}
	if r := porcupineFileChild("set:"+filepath.Join(dir, "h0.json"), time.Minute); r.Error == "" {
		t.Errorf("an unknown conversion: %+v", r)
	}
}
