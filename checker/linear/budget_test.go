package linear

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/histcheck/histcheck/checker"
	"github.com/histcheck/histcheck/model"
)

func TestMaxMemory(t *testing.T) {
	h := hardHistory(t, 40)
	// A generous deadline that only guards against a hang: the memory
	// limit must stop the search long before.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Check(ctx, model.NewRegister(model.Options{Init: i64(0)}), h, Options{NoZones: true, MaxMemory: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid != checker.Unknown || !strings.HasPrefix(res.Reason, "memo exceeded 1 MiB after ") {
		t.Fatalf("verdict %v, reason %q", res.Valid, res.Reason)
	}
	if res.Stats.MemoSize == 0 {
		t.Errorf("no memo counted: %+v", res.Stats)
	}
	// Without a limit the same search runs on (until the deadline here).
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res, err = Check(ctx, model.NewRegister(model.Options{Init: i64(0)}), h, Options{NoZones: true, MaxMemory: -1})
	if err != nil || res.Valid != checker.Unknown || !strings.HasPrefix(res.Reason, "timed out") {
		t.Fatalf("no limit: %v %v %q", err, res.Valid, res.Reason)
	}
}

func TestMemTotal(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		text string
		want int64
		ok   bool
	}{
		{"MemTotal:       24576000 kB\nMemFree: 1 kB\n", 24576000 << 10, true},
		{"MemFree: 1 kB\nMemTotal: 2048 kB\n", 2048 << 10, true},
		{"MemFree: 1 kB\n", 0, false},
		{"MemTotal: lots kB\n", 0, false},
	}
	for i, tc := range tests {
		p := filepath.Join(dir, "meminfo")
		if err := os.WriteFile(p, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := memTotal(p)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("case %d: %d, %v; want %d", i, got, err, tc.want)
		}
	}
	if _, err := memTotal(filepath.Join(dir, "absent")); err == nil {
		t.Error("no error for a missing file")
	}
	if DefaultMaxMemory() <= 0 {
		t.Error("no default memory limit")
	}
}

func TestSizeText(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{1 << 20, "1 MiB"},
		{16e6, "16 MB"},
		{300e6, "300 MB"},
		{256 << 20, "256 MiB"},
		{6 << 30, "6 GiB"},
		{2e9, "2 GB"},
		{3 << 29, "1536 MiB"},
		{4019208192, "3833.0 MiB"},
		{(5 << 20) + 1, "5.0 MiB"},
		{1000, "1000 bytes"},
	} {
		if got := sizeText(tc.n); got != tc.want {
			t.Errorf("sizeText(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
