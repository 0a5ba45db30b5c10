package main

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// TestOneProcessorAtFirst checks that a run starts on one processor and
// widens to the processors it had once the time is up, and that
// GOMAXPROCS in the environment is left alone.
func TestOneProcessorAtFirst(t *testing.T) {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		t.Skip("GOMAXPROCS is set in the environment")
	}
	want := runtime.GOMAXPROCS(0)
	if want < 2 {
		t.Skip("one processor only")
	}
	defer runtime.GOMAXPROCS(want)
	oneProcessorAtFirst(50 * time.Millisecond)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS at first = %d, want 1", got)
	}
	for deadline := time.Now().Add(time.Minute); runtime.GOMAXPROCS(0) != want; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("GOMAXPROCS still %d a minute later, want %d", runtime.GOMAXPROCS(0), want)
		}
	}

	t.Setenv("GOMAXPROCS", "2")
	runtime.GOMAXPROCS(2)
	oneProcessorAtFirst(time.Hour)
	if got := runtime.GOMAXPROCS(0); got != 2 {
		t.Errorf("with GOMAXPROCS=2 in the environment, GOMAXPROCS = %d, want 2", got)
	}
}
