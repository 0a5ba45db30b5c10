package porcupine_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/histcheck/histcheck/internal/porcupinesuite"
)

// TestPorcupineSuite runs Porcupine v1.3.1's own porcupine_test.go (all
// but the test of its internal fields) against this package, staged in a
// folder of its own with Porcupine's test_data, all of its tests (the
// two it skips with -short too). Compiling them takes seconds, so -short
// skips it.
func TestPorcupineSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("compiling Porcupine's tests takes seconds; run without -short")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src, err := porcupinesuite.Source(root)
	if errors.Is(err, porcupinesuite.ErrAbsent) {
		t.Skip(err)
	}
	dir := t.TempDir()
	if err := porcupinesuite.Stage(dir, root, src, porcupinesuite.Histcheck); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "porcupine.test")
	if out, err := porcupinesuite.Compile(dir, bin); err != nil {
		t.Fatalf("compiling Porcupine's tests against package porcupine: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("Porcupine's tests fail against package porcupine: %v\n%s", err, out)
	}
	// Every test must have run and passed: none skipped.
	passed := bytes.Count(out, []byte("\n--- PASS: "))
	if skipped := bytes.Count(out, []byte("\n--- SKIP: ")); skipped > 0 || passed == 0 {
		t.Fatalf("%d of Porcupine's tests passed and %d were skipped, want all to pass\n%s", passed, skipped, out)
	}
	t.Logf("all %d of Porcupine's tests passed", passed)
}
