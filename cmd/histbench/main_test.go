package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/checker/linear"
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
