// Package porcupinesuite runs Porcupine v1.3.1's own tests against this
// repository's package porcupine: it stages, in a folder of its own, the
// package's files beside Porcupine's porcupine_test.go and test_data
// (read from the module cache, never committed here), with the one test
// that reads Porcupine's internal fields removed and the helper the tests
// share with Porcupine's visualization tests declared. It stages Porcupine's
// own package the same way, so that the same tests can be timed against
// both.
package porcupinesuite

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Module is Porcupine's module path; the version is the one go.mod requires.
const Module = "github.com/anishathalye/porcupine"

// Removed is the test left out: it reads Porcupine's internal fields.
const Removed = "TestRegisterModelMetadata"

// helper declares the helper Porcupine's tests share with its
// visualization tests (which test Porcupine's internals and are not run).
const helper = `package porcupine

import (
	"os"
	"testing"
)

func visualizeTempFile(t *testing.T, model Model, info LinearizationInfo) {
	file, err := os.CreateTemp("", "*.html")
	if err != nil {
		t.Fatalf("failed to create temp file")
	}
	err = Visualize(model, info, file)
	if err != nil {
		t.Fatalf("visualization failed")
	}
	t.Logf("wrote visualization to %s", file.Name())
}
`

// ErrAbsent is returned when Porcupine's module is not in the module cache.
var ErrAbsent = errors.New("porcupine's module is not in the module cache")

// Source returns the folder of Porcupine's module in the module cache, as
// the go command in root (a folder of this module) finds it.
func Source(root string) (string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", Module)
	cmd.Dir = root
	out, err := cmd.Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		return "", ErrAbsent
	}
	if _, err := os.Stat(filepath.Join(dir, "porcupine_test.go")); err != nil {
		return "", ErrAbsent
	}
	return dir, nil
}

// Impl says whose package the tests are staged with.
type Impl int

// The implementations.
const (
	Histcheck Impl = iota // this repository's package porcupine
	Porcupine             // Porcupine's own
)

// Stage writes into dst (an empty folder) a module holding the package of
// impl, Porcupine's porcupine_test.go without Removed, the helper and
// test_data. root is this repository's module root; src is Source's.
func Stage(dst, root, src string, impl Impl) error {
	test, err := os.ReadFile(filepath.Join(src, "porcupine_test.go"))
	if err != nil {
		return err
	}
	test, err = withoutFunc(test, Removed)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dst, "porcupine_test.go"), test, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dst, "helper_test.go"), []byte(helper), 0o644); err != nil {
		return err
	}
	if err := copyTree(filepath.Join(src, "test_data"), filepath.Join(dst, "test_data")); err != nil {
		return err
	}
	switch impl {
	case Porcupine:
		if err := copyPackage(src, dst); err != nil {
			return err
		}
		if err := copyTree(filepath.Join(src, "visualization"), filepath.Join(dst, "visualization")); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, "go.mod"), []byte("module "+Module+"\n\ngo 1.25\n"), 0o644)
	default:
		if err := copyPackage(filepath.Join(root, "porcupine"), dst); err != nil {
			return err
		}
		gomod := fmt.Sprintf("module porcupinesuite\n\ngo 1.25\n\nrequire github.com/histcheck/histcheck v0.0.0\n\nreplace github.com/histcheck/histcheck => %s\n", root)
		if err := os.WriteFile(filepath.Join(dst, "go.mod"), []byte(gomod), 0o644); err != nil {
			return err
		}
		sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, "go.sum"), sum, 0o644)
	}
}

// Compile builds the staged tests into the binary out.
func Compile(dir, out string) ([]byte, error) {
	cmd := exec.Command("go", "test", "-c", "-o", out, ".")
	cmd.Dir = dir
	// The staged module requires this repository by a folder; its other
	// requirements come from the module cache, never the network.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	return cmd.CombinedOutput()
}

// withoutFunc removes the top-level function name from Go source: from
// its line "func name(" to the first line that is "}" alone.
func withoutFunc(src []byte, name string) ([]byte, error) {
	start := bytes.Index(src, []byte("\nfunc "+name+"("))
	if start < 0 {
		return nil, fmt.Errorf("porcupine_test.go has no func %s", name)
	}
	end := bytes.Index(src[start:], []byte("\n}\n"))
	if end < 0 {
		return nil, fmt.Errorf("func %s has no end", name)
	}
	out := append([]byte(nil), src[:start+1]...)
	return append(out, src[start+end+3:]...), nil
}

// copyPackage copies the package's Go files, tests left out.
func copyPackage(from, to string) error {
	files, err := filepath.Glob(filepath.Join(from, "*.go"))
	if err != nil {
		return err
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, filepath.Base(f)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func copyTree(from, to string) error {
	return filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
}
