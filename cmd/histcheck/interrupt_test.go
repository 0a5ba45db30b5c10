package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/histcheck/histcheck/format"
	"github.com/histcheck/histcheck/sim"
)

// TestInterrupt runs the real binary on a history no checker finishes
// quickly (sixty-four clients on one CAS register with repeated values and
// a stale read the register sweep's windows do not confirm), sends it
// a signal while it checks, and expects what was known to be printed and
// exit status 2. The time it took to stop is logged, not asserted: tests do
// not fail on wall-clock time, but a generous guard catches a hang.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "histcheck")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	h, err := sim.Random(sim.RandomOptions{Ops: 10000, Clients: 64, Model: "cas-register", CrashRate: 0.02, Anomaly: "stale-read", Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "hard.json")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := format.Write(f, h, "json"); err != nil {
		t.Fatal(err)
	}
	f.Close()

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(bin, "check", "--no-core", file)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second)
			sent := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("histcheck did not stop within 30s of %v", sig)
			}
			t.Logf("stopped %v after %v", sig, time.Since(sent).Round(time.Millisecond))
			var xe *exec.ExitError
			if !errors.As(err, &xe) || xe.ExitCode() != 2 {
				t.Fatalf("exit: %v, want status 2\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
			}
			if want := file + "\tlinearizable\tunknown"; !strings.Contains(stdout.String(), want) {
				t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
			}
			if !strings.Contains(stdout.String(), "interrupted") || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("no word of the interruption:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			}
		})
	}
}
