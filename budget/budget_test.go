package budget

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
)

func TestDefault(t *testing.T) {
	meminfo := &fstest.MapFile{Data: []byte("MemTotal:       16384000 kB\nMemFree: 1 kB\n")}
	quarter := int64(16384000) << 10 / 4
	for _, tc := range []struct {
		name  string
		files fstest.MapFS
		as    int64
		want  int64
	}{
		{"v2 limit", fstest.MapFS{
			"proc/self/cgroup":                   {Data: []byte("0::/box\n")},
			"sys/fs/cgroup/box/memory.max":       {Data: []byte("536870912\n")},
			"proc/meminfo":                       meminfo,
			"sys/fs/cgroup/unrelated/memory.max": {Data: []byte("1\n")},
		}, 0, 512 << 20},
		{"v2 mount root is the group", fstest.MapFS{
			"proc/self/cgroup":         {Data: []byte("0::/box\n")},
			"sys/fs/cgroup/memory.max": {Data: []byte("300000000\n")},
			"proc/meminfo":             meminfo,
		}, 0, 300000000},
		{"v2 max", fstest.MapFS{
			"proc/self/cgroup":         {Data: []byte("0::/\n")},
			"sys/fs/cgroup/memory.max": {Data: []byte("max\n")},
			"proc/meminfo":             meminfo,
		}, 0, quarter},
		{"v1 limit", fstest.MapFS{
			"proc/self/cgroup": {Data: []byte("5:cpu,cpuacct:/x\n4:memory:/box/1\n0::/\n")},
			"sys/fs/cgroup/memory/box/1/memory.limit_in_bytes": {Data: []byte("1073741824\n")},
			"proc/meminfo": meminfo,
		}, 0, 1 << 30},
		{"v1 unlimited", fstest.MapFS{
			"proc/self/cgroup":                           {Data: []byte("4:memory:/box\n")},
			"sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("9223372036854771712\n")},
			"proc/meminfo":                               meminfo,
		}, 0, quarter},
		{"no cgroup", fstest.MapFS{"proc/meminfo": meminfo}, 0, quarter},
		{"meminfo in another order", fstest.MapFS{"proc/meminfo": {Data: []byte("MemFree: 1 kB\nMemTotal: 2048 kB\n")}}, 0, 512 << 10},
		{"meminfo without a total", fstest.MapFS{"proc/meminfo": {Data: []byte("MemFree: 1 kB\n")}}, 0, fallback},
		{"meminfo unreadable", fstest.MapFS{"proc/meminfo": {Data: []byte("MemTotal: lots kB\n")}}, 0, fallback},
		{"nothing readable", fstest.MapFS{}, 0, fallback},
		{"address space limit", fstest.MapFS{"proc/meminfo": meminfo}, 512 << 20, 512 << 20},
		{"address space limit above", fstest.MapFS{"proc/meminfo": meminfo}, 1 << 40, quarter},
	} {
		if got := defaultFrom(tc.files, tc.as); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
	if Default() <= 0 {
		t.Error("Default is not positive on this machine")
	}
}

func TestAllow(t *testing.T) {
	var none *Memory
	if err := none.Allow(1<<60, "x"); err != nil || none.Limit() != 0 {
		t.Errorf("the nil budget refused: %v", err)
	}
	if err := New(0).Allow(1<<60, "x"); err != nil {
		t.Errorf("no limit refused: %v", err)
	}
	m := New(1 << 40)
	if err := m.Allow(1<<20, "x"); err != nil {
		t.Errorf("a megabyte of a terabyte refused: %v", err)
	}
	err := m.Allow(1<<41, "the memo")
	var ee *ExceededError
	if !errors.As(err, &ee) || ee.Want != 1<<41 || ee.InUse <= 0 {
		t.Fatalf("got %v, want an ExceededError", err)
	}
	if want := "the memory limit of 1024 GiB does not leave room for 2048 GiB more"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start %q", err, want)
	}
	if !strings.Contains(err.Error(), "for the memo") {
		t.Errorf("error %q does not say what it was for", err)
	}
}

// TestWatch checks that a budget smaller than any process cancels the
// watched context with the reason as its cause, and that stopping a watch
// of an ample budget leaves no cause but cancellation.
func TestWatch(t *testing.T) {
	ctx, stop := New(1).Watch(context.Background())
	defer stop()
	<-ctx.Done()
	var ee *ExceededError
	if !errors.As(context.Cause(ctx), &ee) || ee.Limit != 1 {
		t.Fatalf("cause %v, want an ExceededError", context.Cause(ctx))
	}
	if !strings.Contains(ee.Error(), "was reached") {
		t.Errorf("error %q", ee)
	}
	ctx, stop = New(1 << 50).Watch(context.Background())
	stop()
	<-ctx.Done()
	if !errors.Is(context.Cause(ctx), context.Canceled) {
		t.Errorf("cause %v after stop, want context.Canceled", context.Cause(ctx))
	}
}

func TestSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{1 << 20, "1 MiB"}, {16e6, "16 MB"}, {300e6, "300 MB"}, {256 << 20, "256 MiB"},
		{512 << 20, "512 MiB"}, {2 << 30, "2 GiB"}, {6 << 30, "6 GiB"}, {3e9, "3 GB"}, {2e9, "2 GB"},
		{3 << 29, "1536 MiB"}, {4019208192, "3833.0 MiB"}, {(5 << 20) + 1, "5.0 MiB"},
		{1000, "1000 bytes"}, {1536 << 10, "1.5 MiB"},
	} {
		if got := Size(tc.n); got != tc.want {
			t.Errorf("Size(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestExceededError(t *testing.T) {
	for _, tc := range []struct {
		e    ExceededError
		want string
	}{
		{ExceededError{Limit: 300e6, InUse: 400 << 20}, "the memory limit of 300 MB was reached (400 MiB in use)"},
		{ExceededError{Limit: 300e6, InUse: 200 << 20, Want: 150 << 20, What: "reading the input"},
			"the memory limit of 300 MB does not leave room for 150 MiB more for reading the input (200 MiB in use)"},
		{ExceededError{Limit: 2e9, InUse: 1900e6, Space: true}, "the address space limit (ulimit -v) of 2 GB was reached (1900 MB mapped)"},
		{ExceededError{Limit: 721 << 20, InUse: 1000 << 20, Share: "sequential", Whole: 1e9, Base: 200 << 20},
			"the memory limit of 721 MiB for sequential (its share of 1 GB, beyond the 200 MiB held when it began) was reached (1000 MiB in use)"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// TestShare checks a share's size, what it says when it runs out, that
// its watch cancels only its own context, and that the whole budget's
// watch still cancels the run past the whole budget.
func TestShare(t *testing.T) {
	var inUse atomic.Int64
	inUse.Store(200 << 20)
	m := NewMetered(1<<30, inUse.Load)
	s := m.Share("sequential")
	// 7/8 of the 824 MiB the process does not hold, beyond its 200 MiB.
	if want := int64(200<<20 + 721<<20); s.Limit() != want {
		t.Fatalf("share of %d bytes, want %d", s.Limit(), want)
	}
	run, stopRun := m.Watch(context.Background())
	defer stopRun()
	ctx, stop := s.Watch(run)
	defer stop()
	if s.Allowance() != 721<<20 || m.Allowance() != 1<<30 {
		t.Errorf("allowances %d and %d, want the share's and the whole budget", s.Allowance(), m.Allowance())
	}
	if err := s.Allow(720<<20, "the memo"); err != nil || s.Refused() != nil {
		t.Errorf("720 MiB of a 721 MiB share refused: %v, %v", err, s.Refused())
	}
	err := s.Allow(722<<20, "the memo")
	if s.Refused() == nil || s.Refused().Error() != err.Error() || m.Refused() != nil {
		t.Errorf("refusal %v kept as %v, and %v by the whole budget", err, s.Refused(), m.Refused())
	}
	want := "the memory limit of 721 MiB for sequential (its share of 1 GiB, beyond the 200 MiB held when it began) " +
		"does not leave room for 722 MiB more for the memo (200 MiB in use)"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	inUse.Store(1000 << 20) // past the share, within the budget
	<-ctx.Done()
	var ee *ExceededError
	if !errors.As(context.Cause(ctx), &ee) || ee.Share != "sequential" || ee.InUse != 1000<<20 {
		t.Fatalf("share's cause %v, want its ExceededError", context.Cause(ctx))
	}
	if run.Err() != nil {
		t.Fatalf("the run was cancelled (%v) by a share", context.Cause(run))
	}
	inUse.Store(300 << 20) // released, but not all of it
	next := m.Share("causal")
	if want := int64(300<<20 + (724 << 20) - (724<<20)/8); next.Limit() != want {
		t.Errorf("next share: %d bytes, want %d", next.Limit(), want)
	}
	inUse.Store(2 << 30) // past the whole budget
	<-run.Done()
	if !errors.As(context.Cause(run), &ee) || ee.Share != "" || ee.Limit != 1<<30 {
		t.Errorf("run's cause %v, want the whole budget's ExceededError", context.Cause(run))
	}
	if m.Share("x") == nil || (*Memory)(nil).Share("x") != nil || New(0).Share("x") != nil {
		t.Error("a share of no budget is not nil, or a share of a budget is")
	}
}

// TestGarbage checks the estimate a Share decides to collect by: right
// after a collection, little, however much is live; none for a metered
// budget.
func TestGarbage(t *testing.T) {
	m := New(1 << 40)
	live := make([]byte, 64<<20)
	debug.FreeOSMemory()
	if g := m.meter.garbage(); g > 16<<20 {
		t.Errorf("%d bytes of garbage right after a collection, with %d bytes live", g, len(live))
	}
	runtime.KeepAlive(live)
	if g := NewMetered(1<<30, func() int64 { return 1 << 29 }).meter.garbage(); g != 0 {
		t.Errorf("a metered budget has %d bytes of garbage", g)
	}
}
